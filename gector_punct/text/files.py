"""Reading and writing text files without losing or garbling a line.

``read_lines(path)`` yields ``(line_number, text)`` one line at a time (``-`` is stdin): only ``\\n`` ends a
line (a stray ``\\r`` or U+2028 inside a line stays inside it), a trailing ``\\r`` is dropped, the byte-order
mark that may open a file is dropped (``without_bom``: the one rule for it, which the readers of single lines
and words use too), and a line that is not UTF-8 raises ``InputError`` naming the file and line, as does a file
that cannot be opened (``cannot read PATH: no such file or directory``). ``read_ended_lines(path)`` also gives
each line's ending (``\\r\\n``, ``\\n``, or ``""`` for a last line without one), for writers that keep CRLF
(``line_end``).

``atomic_write(path)`` writes to a temporary file beside ``path`` and renames it into place only when the
block succeeds, so a crash or a kill leaves the previous file (or none), never a partial one; a failed
write leaves no temporary file behind. What holds: a new file gets the mode the umask gives (0644 under the
usual 022: the temporary file is created with 0666 and the kernel applies the umask, which is never read,
as reading it means setting it for every thread of the process), a replaced file keeps its own mode; a
symbolic link is written through (its target is replaced, the link stays); ``-``, a pipe or a character
device (``/dev/stdout``, ``>(cmd)``) cannot be replaced and is streamed to directly. A missing folder
for ``path`` is created, or, with ``create_parents=False`` (a file the user named), a ``FileNotFoundError``
naming that folder (``check_parent_folder``); a folder at ``path`` is an ``IsADirectoryError`` naming it.
``check_input_file`` / ``check_output_file`` raise the same errors before any work starts.
``temporary_dir`` and ``replace_dir`` do the same for a folder (a model checkpoint); ``place_dir`` puts a
folder in place unless another process has just placed the same one (a cache both built at once), whose
folder then stays.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import stat
import sys
from collections.abc import Iterator


CACHE_TEXT = "$GECTOR_PUNCT_CACHE, else ~/.cache/gector_punct"  # cache_root() in a flag's help


def cache_root() -> str:
    """Where what is built once is kept (converted encoders, graphs, the language model unpacked)."""
    return os.environ.get("GECTOR_PUNCT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gector_punct")


class InputError(ValueError):
    """Bad input data; the message names the file and line."""


BOM = "\ufeff"


EXCERPT_CHARS = 60  # what an error message quotes of a user's text


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted for an error message: whole when short, else its start and its length (an hour of
    timed words is one line of 700 KB)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def without_bom(text: str) -> str:
    """``text`` without the byte-order marks opening it: they say how a file was written, they are no text."""
    return text.lstrip(BOM)


def read_lines(path: str) -> Iterator[tuple[int, str]]:
    for number, text, _ in read_ended_lines(path):
        yield number, text


def read_ended_lines(path: str) -> Iterator[tuple[int, str, str]]:
    """``(line_number, text, ending)`` of each line: ``read_lines``' text and the line's ending."""
    stream = sys.stdin.buffer if path == "-" else _open_input(path)
    try:
        for number, raw in enumerate(stream, start=1):
            ending = b"\n" if raw.endswith(b"\n") else b""
            raw = raw[: len(raw) - len(ending)]
            if raw.endswith(b"\r"):  # CRLF (or a last line's lone CR): the CR ends the line, it is no text
                raw, ending = raw[:-1], b"\r" + ending
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"{path}:{number}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
            yield number, without_bom(text) if number == 1 else text, ending.decode()
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def line_end(ending: str) -> str:
    """What a restored line ends with, given its input line's ending: CRLF stays CRLF, anything else is LF."""
    return "\r\n" if ending.startswith("\r") else "\n"


def _open_input(path: str):
    try:
        return open(path, "rb")
    except OSError as err:
        raise InputError(f"cannot read {path}: {reason(err)}") from None


def reason(err: OSError) -> str:
    """An operating-system error in words, without its number or the file name (the caller gives that)."""
    if isinstance(err, IsADirectoryError):
        return "it is a folder"
    return (err.strerror or str(err)).lower()


def error_text(err: OSError, path: str) -> str:
    """An operating-system error as one line naming its file (``path`` when the error names none); one
    raised here with its own message (``cannot write X: ...``) as it is."""
    if err.strerror is None:
        return str(err)
    return f"{err.filename or path}: {reason(err)}"


def check_input_file(path: str) -> None:
    """Raise ``InputError`` naming ``path`` when it cannot be read: missing, a folder, not readable."""
    if path != "-" and not _is_stream(path):
        _open_input(path).close()


def read_json_object(path: str) -> dict:
    """A whole file that is one JSON object (a byte-order mark opening it is dropped); a file that cannot be
    read, or holds anything else, raises ``InputError`` naming it."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = without_bom(handle.read())
    except OSError as err:
        raise InputError(error_text(err, path)) from None
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    return parse_json_object(text, path)


def read_json_objects(path: str) -> list[tuple[int, dict]]:
    """(line number, object) of each non-blank line of a JSON-lines file; a line that is not a JSON object
    raises ``InputError`` naming the file and line."""
    return [(number, parse_json_object(text, f"{path}:{number}")) for number, text in read_lines(path) if text.strip()]


def parse_json_object(text: str, where: str) -> dict:
    """``text`` (of ``where``: a file, or ``file:line``), a JSON object; anything else raises ``InputError``
    naming ``where``."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: not JSON ({err.msg})") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: not a JSON object")
    return record


def read_all_lines(path: str) -> list[str]:
    """Every line of a file; an empty file raises ``InputError`` (there is nothing to work on)."""
    lines = [text for _, text in read_lines(path)]
    if not lines:
        raise InputError(f"{path}: the file is empty")
    return lines


def _kept_mode(path: str) -> int | None:
    """The mode of the file (or folder) at ``path``, which its replacement keeps; None when there is none."""
    with contextlib.suppress(FileNotFoundError):
        return stat.S_IMODE(os.stat(path).st_mode)
    return None


def _new_temporary(final: str, directory: bool = False) -> tuple[str, int | None]:
    """A new, empty file (with its descriptor, open for writing) or folder beside ``final``, named
    ``.<name>.<random>.tmp``. It is created with mode 0666 (a folder 0777) for the kernel to apply the
    umask, as a file created at ``final`` would get it."""
    parent, name = os.path.split(final)
    for _ in range(100):
        tmp = os.path.join(parent, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            if directory:
                os.mkdir(tmp, 0o777)
                return tmp, None
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {final}")


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


def check_output_file(path: str) -> None:
    """``check_parent_folder``, and an ``IsADirectoryError`` naming ``path`` when it is a folder."""
    check_parent_folder(path)
    if path != "-" and os.path.isdir(path):
        raise IsADirectoryError(f"cannot write {path}: it is a folder")


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w", create_parents: bool = True, durable: bool = True):
    """Open a temporary file beside ``path`` (beside a link's target); on success it replaces the file in
    one rename. ``-`` and streams are written to directly. A missing folder is created, unless
    ``create_parents`` is False: then ``check_parent_folder`` raises. ``durable``: the data reach the disk
    before the rename (an output, a checkpoint); False for a cache entry, which a crash may lose and the
    next run recomputes, where a disk flush per file would cost more than the entry."""
    kwargs = {"encoding": "utf-8", "newline": "\n"} if "b" not in mode else {}
    if path == "-":
        yield sys.stdout.buffer if "b" in mode else sys.stdout
        sys.stdout.flush()
        return
    if _is_stream(path):
        with open(path, mode, **kwargs) as handle:
            yield handle
        return
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot write {path}: it is a folder")
    path = os.path.realpath(path)  # through symbolic links: the target is what gets replaced
    directory = os.path.dirname(path)
    if create_parents:
        os.makedirs(directory, exist_ok=True)
    else:
        check_parent_folder(path)
    kept_mode = _kept_mode(path)
    tmp, fd = _new_temporary(path)
    try:
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            if kept_mode is not None:
                os.fchmod(handle.fileno(), kept_mode)
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def temporary_dir(final_dir: str) -> str:
    """An empty folder beside ``final_dir`` to fill and then ``replace_dir`` into place."""
    final_dir = os.path.abspath(final_dir)
    os.makedirs(os.path.dirname(final_dir), exist_ok=True)
    tmp, _ = _new_temporary(final_dir, directory=True)
    kept_mode = _kept_mode(final_dir)
    if kept_mode is not None:
        os.chmod(tmp, kept_mode)
    return tmp


def replace_dir(tmp_dir: str, final_dir: str) -> None:
    """Move a fully written folder into place, keeping the old one until the new one is there. A kill
    between the two renames leaves ``final_dir.old``, which ``recover_dir`` puts back."""
    old = final_dir + ".old"
    if os.path.exists(old):
        shutil.rmtree(old)
    if os.path.exists(final_dir):
        os.replace(final_dir, old)
    os.replace(tmp_dir, final_dir)
    if os.path.exists(old):
        shutil.rmtree(old)


def place_dir(tmp_dir: str, final_dir: str) -> bool:
    """Move a fully written folder into place as ``final_dir`` unless one is there already: another
    process that built the same folder (a cache) finished first. Its folder then stays, ``tmp_dir`` is
    removed, and False is returned."""
    try:
        os.rename(tmp_dir, final_dir)  # atomic; replaces nothing but an empty folder
        return True
    except OSError as err:
        shutil.rmtree(tmp_dir)
        if err.errno in (errno.EEXIST, errno.ENOTEMPTY):
            return False
        raise


def recover_dir(final_dir: str) -> None:
    """After a crash inside ``replace_dir``: the old folder back in place if the new one never arrived."""
    if not os.path.exists(final_dir) and os.path.isdir(final_dir + ".old"):
        os.replace(final_dir + ".old", final_dir)
