"""Reading and writing text files without losing or garbling a line.

``read_lines(path)`` yields ``(line_number, text)`` one line at a time (``-`` is stdin): only ``\\n`` ends a
line (a stray ``\\r`` or U+2028 inside a line stays inside it), a trailing ``\\r`` is dropped, and a line that
is not UTF-8 raises ``InputError`` naming the file and line.

``atomic_write(path)`` writes to a temporary file beside ``path`` and renames it into place only when the
block succeeds, so a crash or a kill leaves the previous file (or none), never a partial one. What holds:
a new file gets the mode the umask gives (0644 under the usual 022), a replaced file keeps its own mode; a
symbolic link is written through (its target is replaced, the link stays); ``-``, a pipe or a character
device (``/dev/stdout``, ``>(cmd)``) cannot be replaced and is streamed to directly. A missing folder
for ``path`` is created, or, with ``create_parents=False`` (a file the user named), a ``FileNotFoundError``
naming that folder (``check_parent_folder``). ``temporary_dir`` and ``replace_dir`` do the same for a folder
(a model checkpoint).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterator


class InputError(ValueError):
    """Bad input data; the message names the file and line."""


BOM = "\ufeff".encode("utf-8")


def read_lines(path: str) -> Iterator[tuple[int, str]]:
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        for number, raw in enumerate(stream, start=1):
            raw = raw[len(BOM):] if number == 1 and raw.startswith(BOM) else raw  # a file's byte-order mark is no text
            raw = raw[:-1] if raw.endswith(b"\n") else raw
            raw = raw[:-1] if raw.endswith(b"\r") else raw
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"{path}:{number}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def read_json_objects(path: str) -> list[tuple[int, dict]]:
    """(line number, object) of each non-blank line of a JSON-lines file; a line that is not a JSON object
    raises ``InputError`` naming the file and line."""
    return [(number, parse_json_object(text, path, number)) for number, text in read_lines(path) if text.strip()]


def parse_json_object(text: str, path: str, number: int) -> dict:
    """Line ``number`` of ``path``, a JSON object; anything else raises ``InputError`` naming the file and line."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}:{number}: not JSON ({err.msg})") from None
    if not isinstance(record, dict):
        raise InputError(f"{path}:{number}: not a JSON object")
    return record


def read_all_lines(path: str) -> list[str]:
    """Every line of a file; an empty file raises ``InputError`` (there is nothing to work on)."""
    lines = [text for _, text in read_lines(path)]
    if not lines:
        raise InputError(f"{path}: the file is empty")
    return lines


def umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def new_file_mode(path: str, directory: bool = False) -> int:
    """The mode a file (or folder) replacing ``path`` gets: the existing one's, else what the umask allows."""
    with contextlib.suppress(FileNotFoundError):
        return stat.S_IMODE(os.stat(path).st_mode)
    return (0o777 if directory else 0o666) & ~umask()


def _is_stream(path: str) -> bool:
    """A pipe, socket or character device (or a /dev, /proc name for one): it can only be written to."""
    if path.startswith(("/dev/", "/proc/")):
        return True
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)
    return False


def check_parent_folder(path: str) -> None:
    """Raise ``FileNotFoundError`` naming the folder when the folder that would hold ``path`` (that of a
    link's target) is missing or not a folder; ``-`` and streams have none to check."""
    if path == "-" or _is_stream(path):
        return
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        problem = "is not a folder" if os.path.exists(directory) else "does not exist"
        raise FileNotFoundError(f"cannot write {path}: the folder {directory} {problem}")


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w", create_parents: bool = True):
    """Open a temporary file beside ``path`` (beside a link's target); on success it replaces the file in
    one rename. ``-`` and streams are written to directly. A missing folder is created, unless
    ``create_parents`` is False: then ``check_parent_folder`` raises."""
    kwargs = {"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {}
    if path == "-":
        yield sys.stdout.buffer if "b" in mode else sys.stdout
        sys.stdout.flush()
        return
    if _is_stream(path):
        with open(path, mode, **kwargs) as handle:
            yield handle
        return
    path = os.path.realpath(path)  # through symbolic links: the target is what gets replaced
    directory = os.path.dirname(path)
    if create_parents:
        os.makedirs(directory, exist_ok=True)
    else:
        check_parent_folder(path)
    file_mode = new_file_mode(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fchmod(handle.fileno(), file_mode)
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def temporary_dir(final_dir: str) -> str:
    """An empty folder beside ``final_dir`` to fill and then ``replace_dir`` into place."""
    parent = os.path.dirname(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=f".{os.path.basename(final_dir)}.")
    os.chmod(tmp, new_file_mode(final_dir, directory=True))
    return tmp


def replace_dir(tmp_dir: str, final_dir: str) -> None:
    """Move a fully written folder into place, keeping the old one until the new one is there. A kill
    between the two renames leaves ``final_dir.old``, which ``recover_dir`` puts back."""
    old = final_dir + ".old"
    if os.path.exists(old):
        _rmtree(old)
    if os.path.exists(final_dir):
        os.replace(final_dir, old)
    os.replace(tmp_dir, final_dir)
    if os.path.exists(old):
        _rmtree(old)


def recover_dir(final_dir: str) -> None:
    """After a crash inside ``replace_dir``: the old folder back in place if the new one never arrived."""
    if not os.path.exists(final_dir) and os.path.isdir(final_dir + ".old"):
        os.replace(final_dir + ".old", final_dir)


def _rmtree(path: str) -> None:
    import shutil

    shutil.rmtree(path)
