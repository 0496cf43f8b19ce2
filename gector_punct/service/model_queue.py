"""``ModelQueue``: the service's model work, admitted up to a bound and shared fairly between the workers.

A job is a sequence of steps (``workers``: a request's chunks, or one stream update), or a generator of
them that is sent each step's result. ``await
queue.run(steps)`` admits a job and returns the list of its steps' results, in order, once a worker has run
them all (or raises the exception of the one that failed). At most ``size`` jobs are admitted at once,
running or waiting: ``run`` raises ``QueueFull`` at once when every place is taken (an HTTP request: 503
with Retry-After); ``run(..., wait=True)`` waits for a place instead (the next words of a stream already
admitted: they are never dropped). ``run(..., worker=i)`` pins a job to worker ``i`` (a stream's steps go
where its state is).

Turns: a job has at most one step running at a time. A worker that is free takes the next step of the
first job in the turn order that it may run; a job joins the back of the order when it arrives and again
after each of its steps. So a job waits for at most one step of each job ahead of it, however many steps
those have: a two-word request that arrives while a 20,000-word one runs waits for one chunk of it, not
for all of it. A job whose caller is cancelled (its client left) runs no further step: the step it was
running finishes and its result is dropped.

Steps of different jobs are never merged into one model call: a line's probabilities move in their last
digits with the lines batched beside it (``docs/service.md``), and each request is restored as
``predict.py`` restores its lines alone. Everything here runs on the event loop's thread.
"""
from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


class QueueFull(Exception):
    """Every place of the queue is taken: try again shortly."""


@dataclass(eq=False)
class Job:
    steps: Iterator
    worker: int | None  # the worker it must run on, or None: any
    done: asyncio.Future
    results: list = field(default_factory=list)
    step: Any = None  # the next step to run

    def advance(self) -> bool:
        """Take the next step; False (the job done, or failed while making its steps) when there is none. A
        generator of steps is sent the last step's result (None before the first): its next step may
        depend on it."""
        try:
            last = self.results[-1] if self.results else None
            self.step = self.steps.send(last) if hasattr(self.steps, "send") else next(self.steps)
            return True
        except StopIteration:
            self.done.set_result(self.results)
        except Exception as err:  # noqa: BLE001 - handed to the caller
            self.done.set_exception(err)
        return False


class ModelQueue:
    def __init__(self, workers: list, size: int):
        if size < 1 or not workers:
            raise ValueError("a model queue needs at least one place and one worker")
        self.workers, self.size = workers, size
        self._places = asyncio.Semaphore(size)
        self._turns: deque[Job] = deque()  # jobs with a step ready to run, in turn order
        self._free = set(range(len(workers)))
        self._steps_running: set[asyncio.Task] = set()

    def full(self) -> bool:
        """Whether a job admitted now would have to wait for a place."""
        return self._places.locked()

    def check_room(self) -> None:
        """QueueFull when a job admitted now would have to wait for a place."""
        if self.full():
            raise QueueFull(f"all {self.size} places of the model queue are taken")

    async def run(self, steps: Iterable, *, wait: bool = False, worker: int | None = None) -> list:
        if not wait:
            self.check_room()
        await self._places.acquire()
        job = Job(iter(steps), worker, asyncio.get_running_loop().create_future())
        try:
            if job.advance():
                self._turns.append(job)
                self._dispatch()
            return await job.done  # cancelled with its caller: no further step
        finally:
            if job in self._turns:
                self._turns.remove(job)
            self._places.release()

    def _dispatch(self) -> None:
        for index in sorted(self._free):
            job = next((job for job in self._turns if job.worker in (None, index)), None)
            if job is not None:
                self._turns.remove(job)
                self._free.discard(index)
                task = asyncio.ensure_future(self._run_step(index, job))
                self._steps_running.add(task)
                task.add_done_callback(self._steps_running.discard)

    async def _run_step(self, index: int, job: Job) -> None:
        try:
            result = await self.workers[index].call(job.step)
        except Exception as err:  # noqa: BLE001 - handed to the caller
            if not job.done.done():
                job.done.set_exception(err)
        else:
            if not job.done.done():
                job.results.append(result)
                if job.advance():
                    self._turns.append(job)
        finally:
            self._free.add(index)
            self._dispatch()

    def close(self) -> None:
        """Stop the workers once their steps are done (no job may be admitted after)."""
        for worker in self.workers:
            worker.close()
