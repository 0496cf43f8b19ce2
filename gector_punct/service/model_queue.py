"""``ModelQueue``: all model work of the service, run one job at a time on one worker thread, so that the
event loop never waits on torch and torch never runs on many threads at once (its own intra-op threads do
the parallel part).

``await queue.run(fn, *args)`` admits a job and returns its result (or raises its exception) once the
worker has run it; at most ``size`` jobs are admitted at once, running or waiting. ``run`` raises
``QueueFull`` at once when they are all taken (an HTTP request: 503 with Retry-After);
``run(..., wait=True)`` waits for a free place instead (the next words of a stream already admitted: its
words are never dropped). Jobs run in the order they were admitted. Each job is one request's own call:
jobs are not merged into shared batches, because a line's probabilities move in their last digits with the
lines batched beside it (``chunks.word_chunks``), and the service answers exactly as ``predict.py``.

``run`` and ``close`` are called on the event loop's thread; ``close`` lets the admitted jobs finish, then
stops the worker.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Any


class QueueFull(Exception):
    """Every place of the queue is taken: try again shortly."""


class ModelQueue:
    def __init__(self, size: int):
        if size < 1:
            raise ValueError("a model queue needs at least one place")
        self.size = size
        self._places = asyncio.Semaphore(size)  # a place is freed when its job is done, even if no one awaits it
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._work, name="model-worker", daemon=True)
        self._worker.start()

    def full(self) -> bool:
        """Whether a job admitted now would have to wait for a place."""
        return self._places.locked()

    async def run(self, fn: Callable[..., Any], *args, wait: bool = False) -> Any:
        if self.full() and not wait:
            raise QueueFull(f"all {self.size} places of the model queue are taken")
        await self._places.acquire()
        loop = asyncio.get_running_loop()
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(self._places.release))
        self._jobs.put((future, fn, args))
        return await asyncio.wrap_future(future)  # cancelled (the client left): a job not yet started never runs

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, fn, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as err:  # noqa: BLE001 - handed to the awaiting request
                future.set_exception(err)

    def close(self, timeout: float | None = None) -> None:
        """Stop the worker after the jobs already put; waits up to ``timeout`` seconds for it."""
        self._jobs.put(None)
        self._worker.join(timeout)
