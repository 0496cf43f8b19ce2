"""Chunks of lines restored with the encoder never waiting for the tokeniser or the decoder.

``predict_chunks(punctuator, chunks)`` yields ``punctuator.predict(chunk)`` for each chunk, in order, the
same lines exactly, but in three stages that overlap, each in a thread of its own: while the encoder runs
chunk i (its matrix work on all of the engine's threads), one thread reads and tokenises chunk i+1 and another
decodes chunk i-1 (and the caller writes it). The tokenizers library, torch's kernels and ONNX Runtime release
the GIL; the Python parts of reading and decoding take turns with the little Python that the encoder's loop
needs.

Queues of one chunk between the stages bound what is in flight to about four chunks. An exception in any
stage (a bad input line while reading, say) is raised in the caller at the point where that chunk's result
would have come, after every earlier chunk's. With ``iteration_count`` > 1 the chunks go one after the
other (a second pass depends on the first one's decoding); lines with audio are not taken here
(``predict.py`` gives them to ``predict`` chunk by chunk).
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator

from gector_punct.prediction.lines_job import LinesJob
from gector_punct.prediction.punctuator import Punctuator, run_to_end

OVERLAP_MODES = ("auto", "threads", "off")  # predict.py --overlap: auto = threads on a GPU, off on a CPU
_DONE = object()
STRAGGLER_SECONDS = 10  # how long a stage still working after a failure is waited for


class _Failed:
    """An exception raised in a stage, carried to the caller in place of that stage's result."""

    def __init__(self, error: BaseException):
        self.error = error


def _put(out: queue.Queue, item, stop: threading.Event) -> bool:
    """``item`` into ``out`` once there is room; False if the caller stopped listening first."""
    while not stop.is_set():
        try:
            out.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _run_stage(source: Iterator, work, out: queue.Queue, stop: threading.Event) -> None:
    """``work(item)`` for each item of ``source`` into ``out``, then ``_DONE``; a failure (``source``'s or
    ``work``'s) goes into ``out`` in its place and ends the stage."""
    try:
        for item in source:
            result = item if isinstance(item, _Failed) else work(item)
            if not _put(out, result, stop) or isinstance(result, _Failed):
                return
        _put(out, _DONE, stop)
    except BaseException as error:  # raised in the caller, in order
        _put(out, _Failed(error), stop)


def _results(q: queue.Queue, stop: threading.Event) -> Iterator:
    """A stage's results, up to its end or its failure (passed on as the last item), or until the caller
    stops listening."""
    while not stop.is_set():
        try:
            item = q.get(timeout=0.1)
        except queue.Empty:
            continue
        if item is _DONE:
            return
        yield item
        if isinstance(item, _Failed):
            return


def _stage(source: Iterator, work, stop: threading.Event, threads: list[threading.Thread]) -> Iterator:
    """``work`` over ``source`` in a thread of its own (added to ``threads``), one result ahead of whoever
    reads it."""
    out: queue.Queue = queue.Queue(maxsize=1)
    thread = threading.Thread(target=_run_stage, args=(source, work, out, stop), daemon=True)
    thread.start()
    threads.append(thread)
    return _results(out, stop)


def predict_chunks(punctuator: Punctuator, chunks: Iterable[list[str]], scored: bool = False) -> Iterator[list]:
    """Each chunk's restored lines, in order: ``punctuator.predict(chunk)`` (``scored``: ``predict_scored``'s
    ``RestoredLine`` objects), overlapped (module docstring): the steps of ``Punctuator.pass_steps``, each in
    a stage of its own."""
    if punctuator.iteration_count != 1:
        yield from map(punctuator.predict_scored if scored else punctuator.predict, chunks)
        return
    tokenise, encode, decode = punctuator.pass_steps()

    def on_lines(step) -> Callable[[LinesJob], LinesJob]:
        """``step`` on a job that has lines to do (a chunk of empty lines has none), then the job."""
        def run(job: LinesJob) -> LinesJob:
            if job.todo:
                step(job)
            return job
        return run

    def read(lines: list[str]) -> LinesJob:
        return on_lines(tokenise)(punctuator.start(lines, scored=scored))

    def finish(job: LinesJob) -> list:
        job = on_lines(decode)(job)
        return job.restored(punctuator.calibration, punctuator.review_threshold) if scored else job.written()

    stop, threads = threading.Event(), []
    try:
        encode_whole = on_lines(lambda job: run_to_end(encode(job)))
        for item in _stage(_stage(_stage(iter(chunks), read, stop, threads), encode_whole, stop, threads),
                           finish, stop, threads):
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:  # the stages end before the caller goes on (a thread left inside torch aborts the process at its
        stop.set()  # exit): after the last chunk each has ended already; after a failure or Ctrl-C, one blocked
        for thread in threads:  # reading a terminal is waited for STRAGGLER_SECONDS at most
            thread.join(STRAGGLER_SECONDS)

