"""Model workers: where the service's model work runs, one step at a time on each worker.

A step is ``(name, args)``, picklable: ``("restore", (reading, lines, scored))`` -> the lines restored (one
``Punctuator.predict`` call: one chunk of a request; ``scored``: ``predict_scored``'s lines as JSON
objects); ``("open", (stream, reading, lookahead, scored))`` starts stream ``stream``'s captions
(``streaming.Captions`` on a ``StreamingPunctuator``); ``("push", (stream, words))`` -> the message of what its
words made final, ``{"final": TEXT}`` (TEXT '' when none; ``scored``: with ``"words"``, each final word's
``RestoredWord`` object); ``("end", (stream,))`` -> the message that ends the utterance; ``("end_open",
(stream,))`` -> that message if the utterance has words, else None;
``("forget", (stream,))`` drops the stream. A chunk of more words than a step may take (one long line) is
restored in parts: ``("begin", (job, reading, lines, part_words))`` and then ``("advance", (job,))`` -> None
until the last part, which gives the lines restored (``Punctuator.predict_in_parts``); ``("drop", (job,))``
forgets a job whose client left. ``ModelWorker`` carries steps out on a punctuator and holds the streams
opened on it and the jobs under way.

``start_workers(settings, punctuator)``: ``--workers 1`` is one ``ThreadWorker`` (the server's own
punctuator, on a thread of the server); more are ``ProcessWorker``s, each a child process that loads its
own punctuator from the service's model settings (``loading.load_punctuator(settings.prediction())``, as
``serve.py`` loads the server's) and runs its engine on ``worker_threads`` threads (0: the machine's cores
shared out). Both kinds: ``await worker.call(step)`` returns the step's result or raises ``WorkerError``;
``close()`` stops the worker after its step. A child that dies is started again;
the step it was running fails, and the streams it held are gone (their next step fails).
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.restored import RestoredLine
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.streaming import Captions, StreamingPunctuator
from gector_punct.service.contract import Reading

log = logging.getLogger("gector_punct.service")
Step = tuple[str, tuple]


class WorkerError(Exception):
    """A step failed in a worker process (its traceback is in the log)."""


class ModelWorker:
    """Steps on one punctuator: its views per ``Reading`` and the streams opened on it, by id."""

    def __init__(self, punctuator: Punctuator):
        self.punctuator = punctuator
        self.readers: dict[Reading, Punctuator] = {}
        self.streams: dict[int, Captions] = {}
        self.scored: dict[int, bool] = {}  # per stream: whether its messages carry their words
        self.jobs: dict[int, Generator] = {}  # restores in parts, by job id
        self.steps: dict[str, Callable[..., Any]] = {"restore": self.restore, "open": self.open, "push": self.push,
                                                     "end": self.end, "end_open": self.end_open,
                                                     "forget": self.forget, "begin": self.begin,
                                                     "advance": self.advance, "drop": self.drop}

    def execute(self, step: Step) -> Any:
        name, args = step
        return self.steps[name](*args)

    def reader(self, reading: Reading) -> Punctuator:
        if reading not in self.readers:
            self.readers[reading] = self.punctuator.reading(
                reading.tasks, reading.existing, reading.fragments, reading.numbers)
        return self.readers[reading]

    def restore(self, reading: Reading, lines: list[str], scored: bool = False) -> list:
        """The lines restored: text, or (``scored``) each line's ``RestoredLine.to_json()`` object."""
        reader = self.reader(reading)
        return replied(reader.predict_scored(lines) if scored else reader.predict(lines))

    def begin(self, job: int, reading: Reading, lines: list[str], part_words: int, scored: bool = False) -> list | None:
        self.jobs[job] = self.reader(reading).predict_in_parts(lines, part_words, scored)
        return self.advance(job)

    def advance(self, job: int) -> list | None:
        """The next part of ``job``'s model work: None, or the lines restored once it is done (as ``restore``
        gives them)."""
        try:
            next(self.jobs[job])
        except StopIteration as done:
            del self.jobs[job]
            return replied(done.value)
        return None

    def drop(self, job: int) -> None:
        self.jobs.pop(job, None)

    def open(self, stream: int, reading: Reading, lookahead: int, scored: bool = False) -> None:
        self.streams[stream] = Captions(StreamingPunctuator(self.reader(reading), lookahead))
        self.scored[stream] = scored

    def push(self, stream: int, words: list[str]) -> dict:
        return self._final(stream, self.streams[stream].push_scored(words, self.scored[stream]))

    def end(self, stream: int) -> dict:
        return self._final(stream, self.streams[stream].finish_scored(self.scored[stream]))

    def end_open(self, stream: int) -> dict | None:
        return self.end(stream) if self.streams[stream].open else None

    def _final(self, stream: int, final: tuple[str, list]) -> dict:
        """A stream's message of final words: ``{"final": TEXT}``, with ``"words"`` when the stream asked."""
        text, words = final
        return {"final": text, "words": [word.to_json() for word in words]} if self.scored[stream] else {"final": text}

    def forget(self, stream: int) -> None:
        self.streams.pop(stream, None)
        self.scored.pop(stream, None)


def replied(lines: list) -> list:
    """Restored lines as a step answers them: text as it is, a ``RestoredLine`` as its JSON object."""
    return [line.to_json() if isinstance(line, RestoredLine) else line for line in lines]


class ThreadWorker:
    """Steps on a thread of the server: the event loop never waits on torch."""

    def __init__(self, punctuator: Punctuator):
        self.model = ModelWorker(punctuator)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="model-worker")

    async def call(self, step: Step) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.thread, self.model.execute, step)

    def close(self) -> None:
        self.thread.shutdown(wait=False, cancel_futures=True)


class ProcessWorker:
    """Steps in a child process, sent over a pipe by a thread of the server that waits for each reply."""

    def __init__(self, index: int, model: PredictionSettings, threads: int):
        self.index, self.model, self.threads = index, model, threads
        self.thread = ThreadPoolExecutor(1, thread_name_prefix=f"model-worker-{index}")
        self.start()

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process that has torch threads running
        self.pipe, child_end = context.Pipe()
        self.process = context.Process(target=serve_steps, args=(child_end, self.model, self.threads, self.index),
                                       name=f"model-worker-{self.index}", daemon=True)
        self.process.start()
        child_end.close()

    def wait_ready(self) -> None:
        """Block until the child has loaded its model (RuntimeError when it died instead)."""
        try:
            self.pipe.recv()
        except EOFError:
            self.process.join()
            raise RuntimeError(f"model worker {self.index} exited with status {self.process.exitcode} "
                               "before its model was loaded") from None

    async def call(self, step: Step) -> Any:
        ok, value = await asyncio.get_running_loop().run_in_executor(self.thread, self.round_trip, step)
        if not ok:
            raise WorkerError(value)
        return value

    def round_trip(self, step: Step) -> tuple[bool, Any]:
        try:
            self.pipe.send(step)
            return self.pipe.recv()
        except (EOFError, OSError):
            self.process.join()
            log.error("model worker %d died (exit status %s) during a %r step; starting it again",
                      self.index, self.process.exitcode, step[0])
            self.start()
            self.wait_ready()
            return False, f"model worker {self.index} died during this step (started again)"

    def close(self) -> None:
        """Ask the child to stop once its step is done (it stops too when the server's end of the pipe closes)."""
        self.thread.submit(self.pipe.send, None)
        self.thread.shutdown(wait=False)


def serve_steps(pipe, model: PredictionSettings, threads: int, index: int) -> None:
    """A worker process: load the model, say so, then answer each step with (True, result) or (False, why)
    until told to stop (None) or the server has gone. Signals are the server's to handle: it stops us."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s model-worker-{index}: %(message)s")
    worker = ModelWorker(load_punctuator(model, threads=threads))
    pipe.send(None)
    while True:
        try:
            step = pipe.recv()
        except EOFError:
            return
        if step is None:
            return
        try:
            reply = (True, worker.execute(step))
        except Exception as err:  # noqa: BLE001 - logged here, reported to the server
            log.exception("model step %r failed", step[0])
            reply = (False, f"{type(err).__name__} in model worker {index} (logged)")
        pipe.send(reply)


def start_workers(settings, punctuator: Punctuator):
    """The service's workers: ``settings.workers`` of them, loaded (ready) when this returns."""
    if settings.workers == 1:  # ``punctuator`` runs on settings.worker_threads threads (serve.py loads it so)
        return [ThreadWorker(punctuator)]
    threads = settings.worker_threads or max(1, len(os.sched_getaffinity(0)) // settings.workers)
    workers = [ProcessWorker(i, settings.prediction(), threads) for i in range(settings.workers)]
    for worker in workers:
        worker.wait_ready()
    log.info("%d model workers of %d engine thread(s) each", len(workers), threads)
    return workers
