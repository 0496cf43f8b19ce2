"""Word-timed transcripts as speech recognisers write them, read and written word by word in bounded memory.

Shapes (``SHAPES``), told apart by their content (``timed_shape(path)``):
* ``whisper``: WhisperX / faster-whisper: ``{"segments": [{"start", "end", "text", "words": [{"word", "start",
  "end", ...}]}], ...}`` (WhisperX also writes ``word_segments``, every word again), or the list of segments
  alone (faster-whisper's segments dumped as a list). A word's text may carry a leading space (faster-whisper)
  and may lack its times (WhisperX leaves digits unaligned).
* ``vosk``: Vosk results: ``{"result": [{"word", "start", "end", "conf"}], "text": ...}``, one object, a list of
  them, or one per line (what a recogniser loop prints).

``read_segments(path, shape, top) -> Iterator[Segment]``: each segment (a Vosk result is one) with its other
fields as they were and its words as ``TimedWord`` (text stripped; missing times filled from its neighbours:
the end of the word before, the start of the word after, the segment's own times). The file is parsed as it
is read (ijson): a segment at a time is in memory. Anything else raises ``InputError`` naming the file and
the segment and word (or the line, where the JSON is broken).

``TimedJsonWriter(out, shape, path)`` writes segments back in their shape: ``write(segment, words, text)`` with
each word's new fields (``word`` / text, ``confidence``), the segment's ``text`` rebuilt; ``close(top)`` ends
the document with the top-level fields ``read_segments`` gathered (one pass over the file). Word lists that
WhisperX repeats (``word_segments``) are rebuilt from the words written.
"""
from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

import ijson

from gector_punct.text.files import InputError

SHAPES = ("whisper", "vosk")
WORD_TEXT = {"whisper": "word", "vosk": "word"}  # the key of a word's text
WORDS = {"whisper": "words", "vosk": "result"}  # the key of a segment's words


@dataclass
class TimedWord:
    text: str  # as recognised, outer spaces removed
    start: float
    end: float
    fields: dict  # the word's object as read (its times absent where they were)
    speaker: str | None = None  # its own "speaker" (WhisperX's diarisation), else its segment's


@dataclass
class Segment:
    fields: dict  # the segment's object as read, without its words
    words: list[TimedWord] = field(default_factory=list)


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


def timed_shape(path: str) -> str | None:
    """``whisper`` or ``vosk`` for a word-timed JSON transcript, None for a file that is not JSON (text,
    subtitles); ``InputError`` for JSON of any other shape, or broken."""
    if not looks_like_json(path):
        return None
    keys = 0
    with open(path, "rb") as f:
        try:
            for prefix, event, value in ijson.parse(f, multiple_values=True):
                keys += event == "map_key"
                if event == "map_key" and prefix in ("", "item") and value in ("segments", "words"):
                    return "whisper"
                if event == "map_key" and prefix in ("", "item") and value == "result":
                    return "vosk"
        except ijson.JSONError:
            if not keys:  # text that opens like JSON: "[1] so we began"
                return None
            raise InputError(broken_json(path)) from None
    raise InputError(f"{path}: a JSON file, but not a word-timed transcript: expected WhisperX / faster-whisper "
                     '("segments" with "words") or Vosk ("result" with words)')


def broken_json(path: str) -> str:
    """Where a file that ijson could not parse stops being JSON: ``PATH:LINE: not valid JSON (why)``. Read
    whole, value after value (a Vosk file holds one per line): only on this error's way out."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        text = f.read()
    decoder, at = json.JSONDecoder(), 0
    while True:
        at = len(text) - len(text[at:].lstrip())
        if at >= len(text):
            return f"{path}: not valid JSON (it ends inside a value)"
        try:
            _, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as err:
            return f"{path}:{err.lineno}: not valid JSON ({err.msg})"


def _segment_prefix(path: str, shape: str) -> str:
    """Where the segments sit: ``segments.item`` (an object holding them), ``item`` (a list of them) or
    the top-level values themselves (one Vosk result, or one per line)."""
    if _first_char(path) == "[":
        return "item"
    return "segments.item" if shape == "whisper" else ""


def _times(value, what: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {what} is {json.dumps(value)[:40]}, not a number of seconds")
    return float(value)


def _segment(raw: dict, shape: str, where: str) -> Segment:
    """One segment read (``where``: the file and the segment's number, for errors)."""
    if WORDS[shape] not in raw and (shape == "whisper" or str(raw.get("text", "")).strip()):
        raise InputError(f"{where}: no {WORDS[shape]!r} (word times): " + (
            "run WhisperX's alignment, or faster-whisper with word_timestamps=True" if shape == "whisper" else
            "call the recogniser's SetWords(True)"))
    raw_words = raw.get(WORDS[shape]) or []
    if not isinstance(raw_words, list) or not all(isinstance(w, dict) for w in raw_words):
        raise InputError(f"{where}: {WORDS[shape]!r} is not a list of word objects")
    fields_ = {k: v for k, v in raw.items() if k != WORDS[shape]}
    words = []
    for k, w in enumerate(raw_words, 1):
        text, at = w.get(WORD_TEXT[shape]), f"{where}, word {k}"
        if not isinstance(text, str):
            raise InputError(f"{at}: a word without its text ({WORD_TEXT[shape]!r}): {json.dumps(w)[:60]}")
        words.append(TimedWord(text.strip(), _times(w.get("start"), "start", at), _times(w.get("end"), "end", at), w,
                               _speaker(w.get("speaker", fields_.get("speaker")), at)))
    _fill_times(words, _times(fields_.get("start"), "start", where), _times(fields_.get("end"), "end", where))
    return Segment(fields_, words)


def _speaker(value, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # a diariser that numbers its speakers
    raise InputError(f"{where}: speaker is {json.dumps(value)[:40]}, not a name")


def _fill_times(words: list[TimedWord], start: float | None, end: float | None) -> None:
    """A word without a time takes its neighbours': the end of the word before (or the segment's start), the
    start of the word after (or the segment's end); a word with none of them starts and ends at 0."""
    previous_end = start
    for k, word in enumerate(words):
        if word.start is None:
            word.start = previous_end if previous_end is not None else _next_time(words, k + 1, end)
            word.start = 0.0 if word.start is None else word.start
        if word.end is None:
            word.end = _next_time(words, k + 1, end)
            word.end = word.start if word.end is None else max(word.end, word.start)
        previous_end = word.end


def _next_time(words: list[TimedWord], k: int, end: float | None) -> float | None:
    return next((w.start for w in words[k:] if w.start is not None), end)


def read_segments(path: str, shape: str, top: dict | None = None) -> Iterator[Segment]:
    """The segments, parsed as the file is read; ``top`` (a whisper document's): filled with its other top-level
    fields (``language`` ...; ``word_segments``, the words again, as None: only that it is there) in the same
    pass, complete once the segments are."""
    prefix = _segment_prefix(path, shape)
    fields = _TopFields(top) if top is not None and prefix == "segments.item" else None
    builder, number = None, 0
    with open(path, "rb") as f:
        try:
            for at, event, value in ijson.parse(f, multiple_values=True, use_float=True):
                if builder is None and at == prefix:
                    if event != "start_map":
                        if event in ("end_array", "map_key"):
                            continue
                        raise InputError(f"{path}: segment {number + 1} is not an object")
                    builder = ijson.ObjectBuilder()
                if builder is not None:
                    builder.event(event, value)
                    if at == prefix and event == "end_map":
                        number += 1
                        yield _segment(builder.value, shape, f"{path}: segment {number}")
                        builder = None
                elif fields is not None:
                    fields.event(at, event, value)
        except ijson.JSONError:
            raise InputError(broken_json(path)) from None


class _TopFields:
    """A whisper document's top-level fields besides its segments, built from parse events into ``out``."""

    def __init__(self, out: dict):
        self.out, self.key, self.builder = out, None, None

    def event(self, at: str, event: str, value) -> None:
        if at == "" and event == "map_key":
            self.key, self.builder = value, None
            if value in ("segments", "word_segments"):
                self.out[value] = None
        elif at and self.key is not None and not at.startswith(("segments", "word_segments")):
            if self.builder is None:
                self.builder = ijson.ObjectBuilder()
            self.builder.event(event, value)
            self.out[self.key] = self.builder.value


class TimedJsonWriter:
    """Segments written back in their shape as they come (module docstring); ``close(top)`` ends the document
    with the top-level fields ``read_segments`` gathered."""

    def __init__(self, out, shape: str, path: str):
        self.out, self.shape, self.count = out, shape, 0
        self.listed = _first_char(path) == "["
        document = shape == "whisper" and not self.listed  # a whisper object: its words may be repeated after
        self.repeat = tempfile.TemporaryFile("w+", encoding="utf-8") if document else None
        self.repeated = 0
        if self.listed:
            out.write("[")
        elif document:
            out.write('{"segments": [')

    def write(self, segment: Segment, words: list[dict], text: str) -> None:
        """One segment, its words replaced by ``words`` (objects), its ``text`` by ``text`` where it had one."""
        fields_ = dict(segment.fields)
        if "text" in fields_ or self.shape == "vosk":
            fields_["text"] = text
        fields_[WORDS[self.shape]] = words
        item = json.dumps(fields_, ensure_ascii=False)
        if self.shape == "vosk" and not self.listed:
            self.out.write(item + "\n")  # one result per line
        else:
            self.out.write(("," if self.count else "") + "\n" + item)
        if self.repeat is not None:
            for word in words:
                self.repeat.write(("," if self.repeated else "") + "\n" + json.dumps(word, ensure_ascii=False))
                self.repeated += 1
        self.count += 1

    def close(self, top: dict) -> None:
        if self.listed:
            self.out.write("\n]\n")
        elif self.repeat is not None:
            self.out.write("\n]")
            if "word_segments" in top:
                self.out.write(', "word_segments": [')
                self.repeat.seek(0)
                while chunk := self.repeat.read(1 << 16):
                    self.out.write(chunk)
                self.out.write("\n]")
            self.repeat.close()
            self.out.write("".join(f", {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                   for k, v in top.items() if k not in ("segments", "word_segments")) + "}\n")
