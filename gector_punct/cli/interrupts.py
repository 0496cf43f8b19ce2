"""Ctrl-C while a stream runs (predict.py --stream): raised at once while the program waits for input, else
only noted, so that the words in hand are written first (``InterruptGuard``)."""
from __future__ import annotations

import signal
from collections.abc import Iterator

from gector_punct.text.files import read_lines


class InterruptGuard:
    """Ctrl-C (SIGINT) while a stream runs, as a context manager: while the program waits for input
    (``lines``) it raises KeyboardInterrupt there and then; at any other time it only sets ``pressed``, so
    that the words in hand are written (and an output file committed) before the program stops. A Ctrl-C
    that comes with the end of the input (a pipeline's writer killed too) is caught either way."""

    def __init__(self):
        self.waiting = self.pressed = False

    def __enter__(self) -> InterruptGuard:
        self.previous = signal.signal(signal.SIGINT, self._on_interrupt)
        return self

    def __exit__(self, *_) -> None:
        signal.signal(signal.SIGINT, self.previous)

    def _on_interrupt(self, *_) -> None:
        self.pressed = True
        if self.waiting:
            raise KeyboardInterrupt

    def lines(self, path: str) -> Iterator[tuple[int, str]]:
        """``read_lines(path)``, interruptible while it waits for the next line."""
        lines = read_lines(path)
        while True:
            self.waiting = True
            try:
                item = next(lines, None)
            finally:
                self.waiting = False
            if item is None:
                return
            yield item
