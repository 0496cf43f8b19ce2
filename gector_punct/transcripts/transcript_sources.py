"""Where a word-timed transcript comes from, and what it is: a file, or the same JSON as values in memory.

``timed_shape(path)``: ``whisper`` (WhisperX / faster-whisper) or ``vosk``, told by the first key that tells
(``TELLING_KEYS``); None for a file that is not JSON (text, subtitles that open with ``[``), ``InputError`` for
JSON of another shape. ``timed_layout(path, shape)``: where its segments sit (``list``, ``document``,
``values``: ``timed_words.LAYOUTS``). A ``TranscriptSource`` gives a transcript's parse events (``events()``), its
``shape``, ``layout`` and ``name``: ``FileSource(path)``, ijson's events as the file is read, and
``ValueSource(value)``, the events ijson would give for ``json.dumps(value)`` (``json_reading.value_events``),
``value`` a recogniser's result as its JSON holds it or faster-whisper's ``Segment`` objects as
``transcribe`` yields them (``json_value``: objects of fields as dicts), so that one reader
(``timed_words.read_segments``) reads both into the same segments.
"""
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Iterator

import ijson

from gector_punct.text.files import InputError
from gector_punct.transcripts.json_reading import broken_json, file_events, open_json, value_events


def _first_char(path: str) -> str:
    return _opening(path)[:1]


def _opening(path: str, size: int = 16) -> str:
    """The file's first characters after blanks (and a byte-order mark)."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        return f.read(4096).lstrip()[:size]


def looks_like_json(path: str) -> bool:
    """Whether a file opens as a JSON object or array does: ``{`` before a key, or ``[`` before a JSON value (a
    transcript line such as ``[music] hello`` or ``{laughs} so`` is text)."""
    opening = _opening(path)
    rest = opening[1:].lstrip()
    if opening.startswith("{"):
        return rest[:1] in ('"', "}")
    return opening.startswith("[") and (rest[:1] in tuple('{["]-0123456789') or rest.startswith(("true", "false", "null")))


TELLING_KEYS = {"segments": "whisper", "words": "whisper", "result": "vosk"}  # a key -> the shape it tells


def _telling_key(events: Iterable[tuple[str, str, object]]) -> str:
    """The first key that tells a transcript's shape (``TELLING_KEYS``) in a top-level object or a top-level
    list's; ``""`` for JSON without one."""
    for prefix, event, value in events:
        if event == "map_key" and prefix in ("", "item") and value in TELLING_KEYS:
            return value
    return ""


def _file_telling_key(path: str) -> str | None:
    """``_telling_key`` of a file; None for text that only opens like JSON (``[1] so we began``)."""
    keys = 0

    def counted(events):
        nonlocal keys
        for item in events:
            keys += item[1] == "map_key"
            yield item

    with open_json(path) as f:
        try:  # (numbers as ijson reads them by default: a huge one is no error before the key is found)
            return _telling_key(counted(ijson.parse(f, multiple_values=True)))
        except ijson.JSONError as err:
            if not keys:
                return None
            raise InputError(broken_json(path, err, lambda values: None)) from None


def _shape_of(key: str, name: str, what: str) -> str:
    if not key:
        raise InputError(f"{name}: {what}, but not a word-timed transcript: expected WhisperX / "
                         'faster-whisper ("segments" with "words") or Vosk ("result" with words)')
    return TELLING_KEYS[key]


def timed_shape(path: str) -> str | None:
    """``whisper`` or ``vosk`` for a word-timed JSON transcript, None for a file that is not JSON (text,
    subtitles); ``InputError`` for JSON of any other shape, or broken."""
    if not looks_like_json(path) or (key := _file_telling_key(path)) is None:
        return None
    return _shape_of(key, path, "a JSON file")


def timed_layout(path: str, shape: str) -> str:
    """Where a transcript's segments sit (``timed_words.LAYOUTS``): ``list``, a top-level list of them; ``document``, a
    whisper object holding them (``segments``); ``values``, the top-level objects themselves."""
    return _layout(_first_char(path) == "[", shape, lambda: _file_telling_key(path))


def _layout(is_list: bool, shape: str, key) -> str:
    if is_list:
        return "list"
    return "document" if shape == "whisper" and key() == "segments" else "values"


class TranscriptSource:
    """Where a transcript's JSON comes from, as parse events (``events()``, a context manager: a parse each
    time it is entered), with its ``shape``, ``layout`` and ``name`` (what its error messages start with):
    ``FileSource`` (a file, parsed as it is read) or ``ValueSource`` (a value in memory); one reader
    (``read_segments``) reads both alike."""
    name: str
    shape: str
    layout: str

    def events(self):
        raise NotImplementedError

    def broken(self, err: Exception, named: Callable[[list], str | None]) -> str:
        """The message for JSON that ijson refused (a file's only); ``named(values)``: the reader's own word on
        the values decoded (``json_reading.broken_json``)."""
        return f"{self.name}: not valid JSON ({err})"


class FileSource(TranscriptSource):
    """A transcript file (``shape``: told by its content where not given)."""

    def __init__(self, path: str, shape: str | None = None):
        self.name, self.shape = path, shape or timed_shape(path)
        if self.shape is None:
            raise InputError(f"{path}: not JSON: expected a word-timed transcript (WhisperX / faster-whisper or Vosk)")
        self.layout = timed_layout(path, self.shape)

    def events(self):
        return file_events(self.name)

    def broken(self, err: Exception, named: Callable[[list], str | None]) -> str:
        return broken_json(self.name, err, named)


class ValueSource(TranscriptSource):
    """A recogniser's result in memory: a WhisperX / faster-whisper dict or list of segments, a Vosk result or
    a list of them, as their JSON holds them, or faster-whisper's ``Segment`` objects (``json_value``); read as
    the file of its ``json.dumps`` is. ``name``: what its error messages start with."""

    def __init__(self, value, name: str = "transcript"):
        self.value, self.name = json_value(value), name
        key = _telling_key(self._checked(value_events(self.value)))
        self.shape = _shape_of(key, name, "JSON values" if isinstance(self.value, (dict, list)) else
                               f"a {type(value).__name__}")
        self.layout = _layout(isinstance(self.value, list), self.shape, lambda: key)

    @contextlib.contextmanager
    def events(self):
        yield self._checked(value_events(self.value))

    def _checked(self, events: Iterator[tuple]) -> Iterator[tuple]:
        """The events; an InputError naming the source where a value is none that JSON holds."""
        try:
            yield from events
        except TypeError as err:
            raise InputError(f"{self.name}: not JSON values: {err}") from None


def json_value(value):
    """A result as JSON values: dicts, lists and scalars as they are; an object of fields (faster-whisper's
    ``Segment`` and ``Word``: NamedTuples, or dataclasses in later versions; any object by its attributes) as
    the dict of its fields, in their order; any other iterable (a generator of segments) as a list."""
    if isinstance(value, dict):
        return {key: json_value(item) for key, item in value.items()}
    if hasattr(value, "_asdict"):
        return {key: json_value(item) for key, item in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) or hasattr(value, "__iter__"):
        return [json_value(item) for item in value]
    if hasattr(value, "__dict__"):
        return {key: json_value(item) for key, item in vars(value).items() if not key.startswith("_")}
    return value
