"""Subtitle files read for checking: ``read_cues(path)`` -> each cue in file order as a ``CheckedCue``: its
number (its place in the file, from 1), start and end in seconds, its lines as shown (markup removed and
entities read, so that widths are what a viewer reads), each line's speaker from a WebVTT voice tag (``<v
Karen>``) or None, and the cue as written (its format, its head: SubRip's cue number or WebVTT's identifier,
then the timing line; its lines' words with their markup), for the rules on form. A file that is missing,
not SubRip or WebVTT, or holds a bad timing line raises ``InputError`` naming its file and line.
``timing_ms(line)``: a timing line's times. ``speech_of(cues, words)``: when each cue's words are said, from the
word-timed transcript the cues were made from (the checker's ``sync`` rule).
"""
from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass

from gector_punct.text.files import InputError, check_input_file, excerpt, read_lines
from gector_punct.transcripts.subtitles import MARKUP, read_subtitles, subtitle_format_of

_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{2})[,.](\d{1,3})"
_TIMING = re.compile(rf"\s*{_TIME}\s*-->\s*{_TIME}")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]*)>|</v>")  # a voice opened (its name) or closed (None)


@dataclass(frozen=True)
class CheckedCue:
    number: int
    start: float  # seconds, whole milliseconds
    end: float
    lines: tuple[str, ...]  # as shown: markup removed
    speakers: tuple[str | None, ...]  # per line
    fmt: str = "srt"
    head: tuple[str, ...] = ()  # as written: SubRip's cue number or WebVTT's identifier, then the timing line
    tokens: tuple[tuple[str, ...], ...] = ()  # each line's words as written, markup attached

    @property
    def start_ms(self) -> int:
        return round(self.start * 1000)

    @property
    def end_ms(self) -> int:
        return round(self.end * 1000)


def timing_ms(line: str) -> tuple[int, int] | None:
    """A timing line's start and end in milliseconds (``00:01:02,500 --> 00:01:04,000``; WebVTT's hours may
    be left out, its cue settings after the times are ignored); None where it is no timing line, or a minute
    or a second is 60 or more. Fewer than three digits after the comma are a fraction (``,5``: 500 ms)."""
    found = _TIMING.match(line)
    if found is None:
        return None
    times = []
    for hours, minutes, seconds, fraction in (found.groups()[:4], found.groups()[4:]):
        if int(minutes) > 59 or int(seconds) > 59:
            return None
        times.append((int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds)) * 1000
                     + int(fraction.ljust(3, "0")))
    return times[0], times[1]


def read_cues(path: str) -> list[CheckedCue]:
    check_input_file(path)
    found = subtitle_format_of(path)
    if found is None:
        raise InputError(_not_subtitles(path))
    fmt = found[0]
    if fmt == "vtt" and path.lower().endswith(".srt") and not _opens_with_header(path):
        fmt = "srt"  # SubRip cues with WebVTT's times: the timestamp rule names them
    cues = []
    for block in read_subtitles(path, fmt).blocks:
        if not block.is_cue:
            continue
        timing = block.head[-1]
        times = timing_ms(timing)
        if times is None:
            raise InputError(f"{path}:{_line_number(path, timing)}: a bad timing line "
                             f"{excerpt(timing)} (a minute or a second past 59)")
        shown = [MARKUP.sub("", " ".join(tokens)) for tokens in block.lines]
        lines = tuple(" ".join(html.unescape(text).split()) for text in shown)
        cues.append(CheckedCue(len(cues) + 1, times[0] / 1000, times[1] / 1000, lines, _speakers(block.lines),
                               fmt, tuple(block.head), tuple(tuple(tokens) for tokens in block.lines)))
    return cues


def _opens_with_header(path: str) -> bool:
    first = next((text.strip().lstrip("\ufeff") for _, text in read_lines(path) if text.strip()), "")
    return first.startswith("WEBVTT")


def _not_subtitles(path: str) -> str:
    """Why ``path`` is read as no subtitle file, naming its first line with text."""
    for number, text in read_lines(path):
        if text.strip():
            return (f"{path}:{number}: not a SubRip or WebVTT file (no WEBVTT header, no timing line such as "
                    f"'00:00:01,000 --> 00:00:02,000' among its first lines): {excerpt(text.strip())}")
    return f"{path}:1: no subtitles (an empty file)"


def _line_number(path: str, timing: str) -> int:
    """The line of the file that holds the first bad timing line (the cues before have none like it)."""
    return next(number for number, text in read_lines(path) if text.rstrip() == timing)


def _speakers(lines: list[list[str]]) -> tuple[str | None, ...]:
    """Each line's voice: the first one it opens, else the one still open from the line before."""
    speakers, voice = [], None
    for tokens in lines:
        tags = [tag.group(1) and tag.group(1).strip() for token in tokens for tag in _VOICE.finditer(token)]
        opened = [tag for tag in tags if tag is not None]
        speakers.append(opened[0] if opened else voice)
        voice = tags[-1] if tags else voice
    return tuple(speakers)


def _key(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum())


def speech_of(cues: list[CheckedCue], words: list[tuple[str, float, float]]) -> list[tuple[int | None, int | None]]:
    """Per cue, when its first word is said and when its last word ends (ms), from ``words`` (text, start, end:
    the transcript the cues were made from, in order): the cues' words are aligned to the transcript's by their
    letters and digits (``difflib``'s longest matching runs: a word the subtitles left out or wrote otherwise is
    passed over); a cue whose first or last word is not aligned has None there."""
    shown = [[_key(w) for line in cue.lines for w in line.split()] for cue in cues]
    flat = [key for keys in shown for key in keys]
    found: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, flat, [_key(text) for text, _, _ in words], autojunk=False)
    for block in matcher.get_matching_blocks():
        found.update((block.a + k, block.b + k) for k in range(block.size))
    out, at = [], 0
    for keys in shown:
        first, last = found.get(at), found.get(at + len(keys) - 1)
        out.append((None if first is None else round(words[first][1] * 1000),
                    None if last is None or not keys else round(words[last][2] * 1000)))
        at += len(keys)
    return out
