"""The model queue's turns, with stand-in workers that record the steps they run (no model): a job that
arrives waits for one step of a long job, not for all of it; a cancelled job runs no further step; a job
pinned to a worker runs there; a full queue refuses at once."""
import asyncio

import pytest

from gector_punct.service.model_queue import ModelQueue, QueueFull


class RecordingWorker:
    """Runs a step (a name) by sleeping ``seconds`` and returning the name; records the order."""

    def __init__(self, ran: list, name: str = "w", seconds: float = 0.02):
        self.ran, self.name, self.seconds = ran, name, seconds

    async def call(self, step):
        await asyncio.sleep(self.seconds)
        self.ran.append((self.name, step))
        return step

    def close(self):
        pass


def test_a_job_that_arrives_waits_for_one_step_of_a_long_job():
    async def scenario():
        ran = []
        queue = ModelQueue([RecordingWorker(ran)], size=8)
        long = asyncio.ensure_future(queue.run([f"long{i}" for i in range(10)]))
        await asyncio.sleep(0.05)  # the long job has run a step or two
        short = await queue.run(["short"])
        steps = [step for _, step in ran]
        assert short == ["short"]
        assert steps.index("short") <= steps.index("long0") + 3  # at most one long step after it arrived
        assert await long == [f"long{i}" for i in range(10)]  # in order, all of them
        return ran
    ran = asyncio.run(scenario())
    assert [step for _, step in ran].count("short") == 1


def test_two_long_jobs_take_turns():
    async def scenario():
        ran = []
        queue = ModelQueue([RecordingWorker(ran)], size=8)
        await asyncio.gather(queue.run(["a1", "a2", "a3"]), queue.run(["b1", "b2", "b3"]))
        return [step for _, step in ran]
    assert asyncio.run(scenario()) == ["a1", "b1", "a2", "b2", "a3", "b3"]


def test_a_cancelled_job_runs_no_further_step():
    async def scenario():
        ran = []
        queue = ModelQueue([RecordingWorker(ran)], size=8)
        job = asyncio.ensure_future(queue.run([f"gone{i}" for i in range(20)]))
        await asyncio.sleep(0.05)
        job.cancel()
        await asyncio.sleep(0.1)
        assert await queue.run(["next"]) == ["next"]
        return [step for _, step in ran]
    steps = asyncio.run(scenario())
    assert steps[-1] == "next" and len(steps) <= 6  # the step running when it was cancelled finished, no more


def test_a_pinned_job_runs_on_its_worker_and_others_use_any():
    async def scenario():
        ran = []
        queue = ModelQueue([RecordingWorker(ran, "w0"), RecordingWorker(ran, "w1")], size=8)
        await asyncio.gather(*(queue.run([f"p{i}"], worker=1) for i in range(4)), queue.run(["x", "y", "z"]))
        return ran
    ran = asyncio.run(scenario())
    assert {worker for worker, step in ran if step.startswith("p")} == {"w1"}
    assert {worker for worker, step in ran if step in "xyz"} == {"w0"}  # w1 was busy with its pinned steps


def test_a_failing_step_fails_its_job_only_and_a_full_queue_refuses_at_once():
    class Failing(RecordingWorker):
        async def call(self, step):
            if step == "bad":
                raise RuntimeError("a bug")
            return await super().call(step)

    async def scenario():
        queue = ModelQueue([Failing([])], size=2)
        with pytest.raises(RuntimeError):
            await queue.run(["ok", "bad", "never"])
        slow = [asyncio.ensure_future(queue.run(["s1", "s2"])) for _ in range(2)]
        await asyncio.sleep(0)
        with pytest.raises(QueueFull):
            await queue.run(["refused"])
        assert await queue.run(["waited"], wait=True) == ["waited"]
        await asyncio.gather(*slow)
    asyncio.run(scenario())


def test_a_generator_of_steps_is_sent_each_steps_result():
    """A long line's parts: the next step depends on what the last one gave (``advance`` until the lines)."""
    async def scenario():
        ran = []
        queue = ModelQueue([RecordingWorker(ran)], size=2)

        def steps():
            seen = yield "first"
            while seen != "third":
                seen = yield {"first": "second", "second": "third"}[seen]
        return await queue.run(steps())
    assert asyncio.run(scenario()) == ["first", "second", "third"]


def test_a_worker_forgets_a_job_in_parts_when_dropped_or_done():
    from gector_punct.service.contract import Reading
    from gector_punct.service.workers import ModelWorker

    class Parts:  # a punctuator whose predict_in_parts pauses twice
        def reading(self, *args):
            return self

        def predict_in_parts(self, lines, part_words, scored=False):
            yield
            yield
            return [line.upper() for line in lines]

    worker = ModelWorker(Parts())
    reading = Reading(frozenset({"punc"}), "keep", False)
    assert worker.execute(("begin", (1, reading, ["a b"], 10))) is None
    assert worker.execute(("advance", (1,))) is None
    assert worker.execute(("advance", (1,))) == ["A B"] and not worker.jobs
    worker.execute(("begin", (2, reading, ["c"], 10)))
    worker.execute(("drop", (2,)))
    assert not worker.jobs
