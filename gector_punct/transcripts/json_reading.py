"""JSON as ijson parses it, for the word-timed transcript reader (``timed_words``): what does not depend on a
transcript's shape.

``open_json(path)``: the file opened for ijson, past a UTF-8 byte-order mark; ``file_events(path)``: its parse
events; ``value_events(value)``: the same events for a value in memory (what ijson gives for its ``json.dumps``),
so that one reader reads both. ``broken_json(path, err, named)``: why a file ijson refused is not JSON,
``PATH:LINE: not valid JSON (why)`` (the file read whole: only on an error's way out), or ``named``'s message for
a value the transcript cannot take (a time of NaN). ``scout(events, prefix, words, part, why)``: a second parse
(``events()`` opens it), for each object at ``prefix`` what its first parts need from further on: its ``start``,
``end``, ``speaker`` and the first word start at or after each multiple of ``part``. ``TopFields``: a document's
top-level fields built from parse events.
"""
from __future__ import annotations

import codecs
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import ContextManager

import ijson

from gector_punct.text.files import InputError

NOT_JSON = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')  # a constant Python's json writes, outside strings
REBUILT = ("segments", "word_segments")  # a document's top-level fields the writer writes from the segments


def open_json(path: str):
    """The file opened for ijson (binary), past a UTF-8 byte-order mark, which ijson does not read."""
    f = open(path, "rb")
    if f.read(3) != codecs.BOM_UTF8:
        f.seek(0)
    return f


@contextlib.contextmanager
def file_events(path: str) -> Iterator[Iterator[tuple[str, str, object]]]:
    """ijson's parse events of the file (every top-level value: a Vosk file holds one per line), numbers as
    int or float; the file closed on leaving."""
    with open_json(path) as f:
        yield ijson.parse(f, multiple_values=True, use_float=True)


def value_events(value, prefix: str = "") -> Iterator[tuple[str, str, object]]:
    """The parse events ijson gives for ``json.dumps(value)`` (``use_float``): a dict's keys as JSON writes them
    (``1`` as ``"1"``), a tuple as a list; TypeError for a value JSON cannot hold."""
    if isinstance(value, dict):
        yield prefix, "start_map", None
        for key, item in value.items():
            key = key if isinstance(key, str) else json.dumps(key)
            yield prefix, "map_key", key
            yield from value_events(item, f"{prefix}.{key}" if prefix else key)
        yield prefix, "end_map", None
    elif isinstance(value, (list, tuple)):
        yield prefix, "start_array", None
        inside = f"{prefix}.item" if prefix else "item"
        for item in value:
            yield from value_events(item, inside)
        yield prefix, "end_array", None
    elif value is None or isinstance(value, (bool, int, float, str)):
        kind = ("null" if value is None else "boolean" if isinstance(value, bool) else
                "string" if isinstance(value, str) else "number")
        yield prefix, kind, value
    else:
        raise TypeError(f"a {type(value).__name__} is no JSON value")


def broken_json(path: str, err: Exception | None, named: Callable[[list], str | None]) -> str:
    """Why a file that ijson could not parse (``err``) is no transcript. Python's json reads it value after
    value (a Vosk file holds one per line): where it fails, ``PATH:LINE: not valid JSON (why)``; where it does
    not (ijson refuses the NaN and Infinity Python writes, and numbers too large for a float), ``named(values)``
    (the transcript's own reading of the values: ``PATH: segment N, word K: ...``), else the line of the first
    such constant, else ijson's reason."""
    with open(path, "rb") as f:
        data = f.read()
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode()
    except UnicodeDecodeError as bad:
        line = data[:bad.start].count(b"\n") + 1
        return f"{path}:{line}: not UTF-8 text"
    decoder, at, values = json.JSONDecoder(), 0, []
    while (at := len(text) - len(text[at:].lstrip())) < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as bad:
            why = "it ends inside a value: cut short?" if not text[bad.pos:].strip() else bad.msg
            return f"{path}:{bad.lineno}: not valid JSON ({why})"
        values.append(value)
    problem = named(values)
    if problem is not None:
        return f"{path}: {problem}"
    constant = next((m for m in NOT_JSON.finditer(text) if m.group(1)), None)
    if constant is not None:
        line = text[:constant.start()].count("\n") + 1
        return f"{path}:{line}: not valid JSON ({constant.group(1)} is not a JSON number: write a number or null)"
    return f"{path}: not valid JSON ({str(err).splitlines()[0] if str(err) else type(err).__name__})"


def scout(events: Callable[[], ContextManager[Iterator[tuple]]], prefix: str, words: str, part: int,
          why: Callable[[Exception], str]) -> Iterator[dict]:
    """For each object at ``prefix`` (a segment), in order: ``{"start", "end", "speaker"}`` as given (those it
    has, wherever they stand among its keys) and ``"starts"``, for each word number ``b`` that is a multiple of
    ``part``: (k, start) of the first word from ``b`` on (0-based) with a start. A parse of its own: run only
    as far as asked. ``events()``: the parse, opened (``file_events``); ``why(err)``: the message of the
    ``InputError`` for broken JSON."""
    inside = f"{prefix}." if prefix else ""
    own = {f"{inside}{key}": key for key in ("start", "end", "speaker")}
    word_at = f"{inside}{words}.item"
    start_at = f"{word_at}.start"
    with events() as parsed:
        try:  # (the events it reads all lie inside a segment: word_at and own start with prefix)
            for at, event, value in parsed:
                if at == prefix and event == "start_map":
                    summary, index, waiting = {"starts": {}}, -1, []
                elif at == prefix and event == "end_map":
                    yield summary
                elif at == word_at and event == "start_map":
                    index += 1
                    if index % part == 0:  # (0 too: never asked for)
                        waiting.append(index)
                elif at == start_at and value is not None and waiting:
                    summary["starts"].update((b, (index, value)) for b in waiting)
                    waiting = []
                elif at in own:
                    summary[own[at]] = value
        except ijson.JSONError as err:
            raise InputError(why(err)) from None


class TopFields:
    """A whisper document's top-level fields besides its segments, built from parse events into ``out``; the
    fields the writer rebuilds (``REBUILT``, and a ``text`` string: the segments' texts) only marked, as None."""

    def __init__(self, out: dict):
        self.out, self.key, self.builder = out, None, None

    def event(self, at: str, event: str, value) -> None:
        if at == "" and event == "map_key":
            self.key, self.builder = value, None
        elif at == "":
            return  # the document's own start and end
        elif self.key in REBUILT or (self.key == "text" and at == "text" and event == "string"):
            self.out[self.key] = None
        else:
            if self.builder is None:
                self.builder = ijson.ObjectBuilder()
            self.builder.event(event, value)
            self.out[self.key] = self.builder.value
