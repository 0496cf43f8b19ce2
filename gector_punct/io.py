"""Reading and writing text files without losing or garbling a line.

``read_lines(path)`` yields ``(line_number, text)`` one line at a time (``-`` is stdin): only ``\\n`` ends a
line (a stray ``\\r`` or U+2028 inside a line stays inside it), a trailing ``\\r`` is dropped, and a line that
is not UTF-8 raises ``InputError`` naming the file and line. ``atomic_write(path)`` is a context manager
that writes to a temporary file beside ``path`` and renames it into place only when the block succeeds.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator


class InputError(ValueError):
    """Bad input data; the message names the file and line."""


def read_lines(path: str) -> Iterator[tuple[int, str]]:
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        for number, raw in enumerate(stream, start=1):
            raw = raw[:-1] if raw.endswith(b"\n") else raw
            raw = raw[:-1] if raw.endswith(b"\r") else raw
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"{path}:{number}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def read_all_lines(path: str) -> list[str]:
    """Every line of a file; an empty file raises ``InputError`` (there is nothing to work on)."""
    lines = [text for _, text in read_lines(path)]
    if not lines:
        raise InputError(f"{path}: the file is empty")
    return lines


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w"):
    """Open a temporary file beside ``path``; on success it replaces ``path`` in one rename."""
    if path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        kwargs = {"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def replace_dir(tmp_dir: str, final_dir: str) -> None:
    """Move a fully written folder into place, keeping the old one until the new one is there."""
    old = final_dir + ".old"
    if os.path.exists(old):
        _rmtree(old)
    if os.path.exists(final_dir):
        os.replace(final_dir, old)
    os.replace(tmp_dir, final_dir)
    if os.path.exists(old):
        _rmtree(old)


def _rmtree(path: str) -> None:
    import shutil

    shutil.rmtree(path)
