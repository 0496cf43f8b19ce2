"""Word-timed transcripts as speech recognisers write them, read word by word in bounded memory.

Shapes (``SHAPES``), told apart by their content (``transcript_sources.timed_shape``), each in a layout (``LAYOUTS``):
* ``whisper``: WhisperX / faster-whisper: ``{"segments": [{"start", "end", "text", "words": [{"word", "start",
  "end", ...}]}], ...}`` (``document``; WhisperX also writes ``word_segments``, every word again, openai-whisper
  ``text``, the whole transcript), the list of segments alone (``list``: faster-whisper's segments dumped), or
  a tool's words alone, ``{"words": [...]}`` (``values``: the object is the one segment). A word's text may
  carry a leading space (faster-whisper) and may lack its times (WhisperX leaves digits unaligned).
* ``vosk``: Vosk results: ``{"result": [{"word", "start", "end", "conf"}], "text": ...}``, one object or one
  per line (``values``: what a recogniser loop prints), or a list of them (``list``).
A UTF-8 byte-order mark before the JSON is skipped. A transcript comes from a ``TranscriptSource``
(``transcript_sources``): a file, parsed as read (ijson), or the same JSON as values in memory (a WhisperX /
faster-whisper dict, faster-whisper's ``Segment`` objects, Vosk results), whose parse events are those ijson
gives for its ``json.dumps``: this one reader reads both, into the same segments.

``read_segments(source, shape, top) -> Iterator[Segment]`` (``source``: a path or a ``TranscriptSource``): each
segment (a Vosk result is one) with its other fields as they were and its words as ``TimedWord`` (text stripped;
missing times filled from its neighbours: the end of the word before, the start of the word after, the segment's own
times; an end before its start raised to it; the speaker its own, else its segment's). The file is parsed as it is
read (ijson): memory holds at most ``PART`` words, whatever a segment's length: a longer segment comes as
consecutive parts (``Segment.more``: the next part continues it), its times and speaker filled across the parts as
in a whole one (a second parse, started at the first long segment, reads ahead for its start, end and speaker,
wherever they stand among its keys, and for the first time after each part). Segments without words in a row come as
one ``Segment`` whose ``silent`` run holds them spooled, to be written back as they were: a restorer that keeps
segments until their words are restored keeps one such run, not thousands of silences. ``top`` (a document's):
filled with its other top-level fields.

``check_transcript(source, shape)``: the same reading, to the end, without filling or spooling: every error a
read would meet, met before any output. An error is ``InputError`` naming the file and the segment and word,
or the line and why the JSON is broken (a NaN or Infinity, which Python's json writes and JSON has not, named
by segment and word where it is a time). ``timed_json_writer.TimedJsonWriter`` writes segments back.
"""
from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice

import ijson

from gector_punct.text.files import InputError
from gector_punct.transcripts.json_reading import TopFields, scout
from gector_punct.transcripts.transcript_sources import FileSource, TranscriptSource

SHAPES = ("whisper", "vosk")
WORD_TEXT = {"whisper": "word", "vosk": "word"}  # the key of a word's text
WORDS = {"whisper": "words", "vosk": "result"}  # the key of a segment's words
LAYOUTS = {"list": "item", "document": "segments.item", "values": ""}  # where the segments sit (ijson prefixes)
PART = 1_000  # the most words of a segment held at once: a longer one comes in parts of this many
SILENT_BYTES = 1 << 16  # a run of segments without words spooled to a file past this size
MAX_SECONDS = 360_000  # 100 hours: the longest time a transcript's word may have (SubRip writes two hour digits)
DUMPS = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps as the input was written: non-ASCII text as it is


@dataclass
class TimedWord:
    text: str  # as recognised, outer spaces removed
    start: float
    end: float  # never before start
    fields: dict  # the word's object as read (its times absent where they were)
    speaker: str | None = None  # its own "speaker" (WhisperX's diarisation), else its segment's
    backchannel: bool = False  # said over another speaker's sentence (``backchannels.marked_backchannels``)


class SilentRun:
    """Segments without words read in a row, one JSON object a line (UTF-8) in a spooled file (memory until
    ``SILENT_BYTES``, then disk), to be written back as they were."""

    def __init__(self):
        self.file = tempfile.SpooledTemporaryFile(SILENT_BYTES)
        self.count = 0

    def add(self, raw: dict) -> None:
        self.file.write(DUMPS(raw).encode() + b"\n")  # one line: JSON escapes newlines
        self.count += 1

    def lines(self) -> Iterator[str]:
        """Each segment's JSON, in order (as often as asked: a transcript kept in memory is written again)."""
        self.file.seek(0)
        for line in self.file:
            yield line[:-1].decode()  # its newline off

    def __del__(self):
        self.file.close()


@dataclass
class Segment:
    fields: dict  # the segment's object as read, without its words (a part: the fields read so far)
    words: list[TimedWord] = field(default_factory=list)
    more: bool = False  # a part of a segment longer than PART words: the next Segment continues it
    silent: SilentRun | None = None  # instead of one segment (fields, words empty): a run of wordless ones


def _times(value, what: str, where: str) -> float | None:
    """A time as read (None where absent), in seconds; InputError for a value that cannot be one: no number,
    NaN, infinite, or past ``MAX_SECONDS`` (an integer of 400 digits included, which no float holds)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise InputError(f"{where}: {what} is {json.dumps(value)[:40]}, not a number of seconds")
    if abs(value) > MAX_SECONDS:
        shown = f"{value:.3g}" if isinstance(value, float) else f"an integer of {len(str(abs(value)))} digits"
        raise InputError(f"{where}: {what} is {shown}, not a time in seconds (at most {MAX_SECONDS:,}: 100 hours)")
    return float(value)


def _speaker(value, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # a diariser that numbers its speakers
    raise InputError(f"{where}: speaker is {json.dumps(value)[:40]}, not a name")


def _timed_word(raw, shape: str, at: str) -> TimedWord:
    """One word object read, its times as given (None where absent), its own speaker."""
    text = raw.get(WORD_TEXT[shape])
    if not isinstance(text, str):
        raise InputError(f"{at}: a word without its text ({WORD_TEXT[shape]!r}): {json.dumps(raw)[:60]}")
    return TimedWord(text.strip(), _times(raw.get("start"), "start", at), _times(raw.get("end"), "end", at), raw,
                     _speaker(raw.get("speaker"), at))


def _segment_times(fields: dict, shape: str, where: str, has_words: bool) -> tuple:
    """A whole segment's own (start, end, speaker), checked; a segment without its words refused."""
    if not has_words and (shape == "whisper" or str(fields.get("text", "")).strip()):
        raise InputError(f"{where}: no {WORDS[shape]!r} (word times): " + (
            "run WhisperX's alignment, or faster-whisper with word_timestamps=True" if shape == "whisper" else
            "call the recogniser's SetWords(True)"))
    return (_times(fields.get("start"), "start", where), _times(fields.get("end"), "end", where),
            _speaker(fields.get("speaker"), where))


def _fill(words: list[TimedWord], start: float | None, end: float | None, speaker: str | None) -> None:
    """A word without a time takes its neighbours': the end of the word before (``start``: the segment's start
    or the part before's last end), the start of the word after (``end``: the next part's first start, or the
    segment's end); a word with none of them starts and ends at 0; an end never before its start. A word
    without a speaker of its own takes ``speaker``, its segment's."""
    previous_end = _next_time(words, end) if start is None else start  # before the first word
    for k, word in enumerate(words):
        if word.start is None:
            word.start = 0.0 if previous_end is None else previous_end
        if word.end is None:
            word.end = _next_time(islice(words, k + 1, None), end)
        word.end = word.start if word.end is None else max(word.end, word.start)
        previous_end = word.end
        if "speaker" not in word.fields:
            word.speaker = speaker


def _next_time(words: Iterable[TimedWord], end: float | None) -> float | None:
    """The first start among ``words``, else ``end``."""
    return next((w.start for w in words if w.start is not None), end)




def read_segments(source: str | TranscriptSource, shape: str | None = None, top: dict | None = None
                  ) -> Iterator[Segment]:
    """The segments of a file (``source``: its path; ``shape`` told by its content where not given) or of a
    ``TranscriptSource``, parsed as read (module docstring); ``top`` (a document's): filled with its
    other top-level fields (``language`` ...) in the same pass, complete once the segments are; what the
    writer rebuilds is there as None, only to say it is: ``word_segments`` (the words again) and a ``text``
    string (the segments' texts)."""
    return _SegmentReader(_source(source, shape), top).segments()


def _source(source: str | TranscriptSource, shape: str | None) -> TranscriptSource:
    return source if isinstance(source, TranscriptSource) else FileSource(source, shape)


def check_transcript(source: str | TranscriptSource, shape: str | None = None) -> None:
    """Read the whole transcript as ``read_segments`` does, without filling times or keeping anything: the
    ``InputError`` a read would raise, raised now (one fast pass, before any output)."""
    for _ in _SegmentReader(_source(source, shape), None, filled=False).segments():
        pass


class _OpenSegment:
    """A segment being read: its fields so far (its words' key among them, holding [] or None, for their
    order), the key being read, its words not yet given out."""

    def __init__(self, number: int, where: str):
        self.number, self.where = number, where
        self.fields: dict = {}
        self.key, self.builder, self.word = None, None, None  # the key being read, its value's and a word's builder
        self.buffer: list[TimedWord] = []
        self.count = self.given = 0  # words read; words given out in parts
        self.previous_end: float | None = None  # the last time of the part given out before (None: none was)
        self.ahead: tuple | None = None  # what the scout read ahead: its times and speaker, its parts' next starts

    def end_field(self) -> None:
        if self.builder is not None:
            self.fields[self.key] = self.builder.value
            self.builder = None


class _SegmentReader:
    """A transcript's parse events -> its segments (module docstring). ``filled``: False only checks."""

    def __init__(self, source: TranscriptSource, top: dict | None, filled: bool = True):
        self.source, self.filled = source, filled
        self.path, self.shape, self.key = source.name, source.shape, WORDS[source.shape]
        layout = source.layout
        self.prefix = LAYOUTS[layout]
        self.words_at = f"{self.prefix}.{self.key}" if self.prefix else self.key
        self.word_at = f"{self.words_at}.item"
        self.top = TopFields(top) if top is not None and layout == "document" else None
        self.number, self.open, self.silent = 0, None, None
        self.scouting, self.scouted = None, 0

    def segments(self) -> Iterator[Segment]:
        with self.source.events() as events:
            try:
                word_at = self.word_at
                for at, event, value in events:
                    if (s := self.open) is not None:
                        if s.word is not None and (at != word_at or event != "end_map"):
                            s.word.event(event, value)  # inside a word (most events): its keys and values
                        elif out := self._event(s, at, event, value):
                            yield from out
                    elif at == self.prefix:
                        self.number += 1
                        if event != "start_map":
                            raise InputError(f"{self.path}: segment {self.number} is not an object")
                        self.open = _OpenSegment(self.number, f"{self.path}: segment {self.number}")
                    elif self.top is not None:
                        self.top.event(at, event, value)
            except ijson.JSONError as err:
                raise InputError(self._broken(err)) from None
            finally:
                if self.scouting is not None:
                    self.scouting.close()
        if self.silent is not None:
            yield Segment({}, silent=self.silent)

    def _broken(self, err: Exception) -> str:
        return self.source.broken(err, lambda values: _time_problem(values, self.shape))

    def _event(self, s: _OpenSegment, at: str, event: str, value) -> tuple[Segment, ...] | None:
        if at == self.prefix and event in ("map_key", "end_map"):  # the segment's own keys, and its end
            s.end_field()
            if event == "end_map":
                self.open = None
                return self._ended(s)
            s.key = value
            if value == self.key:
                s.fields[value] = []
        elif s.key != self.key:
            if s.builder is None:
                s.builder = ijson.ObjectBuilder()
            s.builder.event(event, value)
        elif at == self.word_at and event in ("start_map", "end_map"):  # a word's start or end
            if event == "start_map":
                s.word = ijson.ObjectBuilder()
            s.word.event(event, value)
            if event == "end_map":
                raw, s.word = s.word.value, None
                return self._add(s, raw)
        elif at != self.words_at or event not in ("start_array", "end_array", "null"):
            raise InputError(f"{s.where}: {self.key!r} is not a list of word objects")
        elif event == "null":
            s.fields[self.key] = None
        return None

    def _add(self, s: _OpenSegment, raw: dict) -> tuple[Segment, ...] | None:
        s.count += 1
        s.buffer.append(_timed_word(raw, self.shape, f"{s.where}, word {s.count}"))
        if len(s.buffer) <= PART:
            return None
        part, s.buffer = s.buffer[:PART], s.buffer[PART:]  # one word kept: the last part is never empty
        if self.filled:
            if s.ahead is None:
                s.ahead = self._ahead(s)
            start, end, speaker, starts = s.ahead
            if s.given + PART in starts:  # the next start from here on: a word of this part missing its end takes it
                k, value = starts[s.given + PART]
                end = _times(value, "start", f"{s.where}, word {k + 1}")
            _fill(part, start if s.previous_end is None else s.previous_end, end, speaker)
            s.previous_end = part[-1].end
        s.given += PART
        return self._out(Segment({k: v for k, v in s.fields.items() if k != self.key}, part, more=True))

    def _ahead(self, s: _OpenSegment) -> tuple:
        """A long segment's start, end and speaker and its parts' next starts, read ahead by the scout."""
        if self.scouting is None:
            self.scouting = scout(self.source.events, self.prefix, self.key, PART, self._broken)
        while self.scouted < s.number:
            summary = next(self.scouting)
            self.scouted += 1
        return (_times(summary.get("start"), "start", s.where), _times(summary.get("end"), "end", s.where),
                _speaker(summary.get("speaker"), s.where), summary["starts"])

    def _ended(self, s: _OpenSegment) -> tuple[Segment, ...] | None:
        start, end, speaker = _segment_times(s.fields, self.shape, s.where, self.key in s.fields)
        if not s.buffer:  # no words (a long segment's last part has one at least)
            if self.filled:
                self.silent = self.silent or SilentRun()
                self.silent.add(s.fields)
            return None
        if self.filled:
            _fill(s.buffer, start if s.previous_end is None else s.previous_end, end, speaker)
        return self._out(Segment({k: v for k, v in s.fields.items() if k != self.key}, s.buffer))

    def _out(self, segment: Segment) -> tuple[Segment, ...]:
        """The segment, after the run of silent ones before it."""
        if self.silent is None:
            return (segment,)
        run, self.silent = self.silent, None
        return Segment({}, silent=run), segment


def _time_problem(values: list, shape: str) -> str | None:
    """The first word or segment of decoded ``values`` that reading refuses (a time of NaN), as ``segment N,
    word K: ...``; None where all would be read."""
    segments = values[0] if len(values) == 1 and isinstance(values[0], list) else values
    if shape == "whisper" and len(values) == 1 and isinstance(values[0], dict) and "segments" in values[0]:
        segments = values[0]["segments"] if isinstance(values[0]["segments"], list) else []
    for n, raw in ((n, raw) for n, raw in enumerate(segments, 1) if isinstance(raw, dict)):
        words = raw.get(WORDS[shape])
        try:  # what the reader met before the parse failed was read: only dicts, a list of them
            for k, word in enumerate(words if isinstance(words, list) else [], 1):
                if isinstance(word, dict):
                    _timed_word(word, shape, f"segment {n}, word {k}")
            _segment_times(raw, shape, f"segment {n}", WORDS[shape] in raw)
        except InputError as problem:
            return str(problem)
    return None
