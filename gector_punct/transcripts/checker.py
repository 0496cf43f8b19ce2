"""Subtitle files checked against a style guide: every cue that breaks one of its rules, named.

In: a SubRip or WebVTT file, any program's (``read_cues(path)``: its cues in file order, each a ``CheckedCue``:
its number, its place in the file from 1; start and end in seconds; its lines as shown, markup removed, so that
widths are what a viewer reads; each line's speaker from a WebVTT voice tag, ``<v Karen>``, or None), and a
style (``style.SubtitleStyle``). Out: ``violations(cues, style, language, rules)``, one ``Violation`` (cue
number, rule, message) per fault, by cue, then in ``RULES`` order; ``rule_counts`` tallies them by rule and
``summary`` says them in a line (``12 cues, 3 violations (gap: 2, line-end: 1)``). A file that is missing,
not SubRip or WebVTT, or holds a bad timing line raises ``InputError`` naming its file and line.

The rules, each figure from the style: ``line-width`` (a line of more than ``line_chars`` characters, unless
it is one word), ``lines`` (more than ``max_lines``), ``reading-speed`` (more than ``max_cps`` characters a
second, ``style.reading_chars``), ``too-short`` / ``too-long`` (shown less than ``min_duration``, more than
``max_duration``), ``gap`` (less than ``gap_frames`` frames at ``fps`` after the cue before), ``open-gap``
(more than that but at most ``close_frames``: it should have been closed), ``overlap`` (a cue starting before
the one before ends, or ending before it starts), ``line-end`` (a line ending with a word that
``line_breaks.line_end_fault`` names), ``one-word`` (a cue of one word without ``pause - linger`` seconds of
silence on each side, the file's start and end counting as silence), ``dialogue`` (a cue whose lines open
with ``-`` has each line so and at most two; a cue of two voices is such a cue, one line a voice).

Times are compared in whole milliseconds, as the files hold them, against the style's ``*_ms`` limits, which
round each limit the way the cue builder (``cues.CueBuilder``) does: a cue exactly at a limit passes.
"""
from __future__ import annotations

import html
import math
import re
from collections import Counter
from dataclasses import dataclass

from gector_punct.text.files import InputError, check_input_file, excerpt, read_lines
from gector_punct.text.units import split_units
from gector_punct.transcripts.line_breaks import line_end_fault
from gector_punct.transcripts.style import SubtitleStyle, reading_chars
from gector_punct.transcripts.subtitles import MARKUP, read_subtitles, subtitle_format_of

RULES = ("line-width", "lines", "reading-speed", "too-short", "too-long", "gap", "open-gap", "overlap",
         "line-end", "one-word", "dialogue")
DIALOGUE_LINES = 2  # a dialogue cue: two speakers, a line each
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

    @property
    def start_ms(self) -> int:
        return round(self.start * 1000)

    @property
    def end_ms(self) -> int:
        return round(self.end * 1000)


@dataclass(frozen=True)
class Violation:
    cue_number: int
    rule: str
    message: str


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
    cues = []
    for block in read_subtitles(path, found[0]).blocks:
        if not block.is_cue:
            continue
        timing = block.head[-1]
        times = timing_ms(timing)
        if times is None:
            raise InputError(f"{path}:{_line_number(path, timing)}: a bad timing line "
                             f"{excerpt(timing)} (a minute or a second past 59)")
        shown = [MARKUP.sub("", " ".join(tokens)) for tokens in block.lines]
        lines = tuple(" ".join(html.unescape(text).split()) for text in shown)
        cues.append(CheckedCue(len(cues) + 1, times[0] / 1000, times[1] / 1000, lines, _speakers(block.lines)))
    return cues


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


@dataclass(frozen=True)
class _Place:
    """A cue where it stands: the cues before and after it (None at the file's start and end)."""
    cue: CheckedCue
    before: CheckedCue | None
    after: CheckedCue | None
    style: SubtitleStyle
    language: str | None

    @property
    def shown_ms(self) -> int:
        return self.cue.end_ms - self.cue.start_ms

    @property
    def gap_before(self) -> float:
        return math.inf if self.before is None else self.cue.start_ms - self.before.end_ms

    @property
    def gap_after(self) -> float:
        return math.inf if self.after is None else self.after.start_ms - self.cue.end_ms


def _words(line: str) -> list[str]:
    """A shown line's words (``units.split_units``), a dialogue dash or other marks alone left out."""
    return [unit for unit in split_units(line) if any(ch.isalnum() for ch in unit)]


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.3f} s"


def _line_width(p: _Place) -> list[str]:
    return [f"line {n} has {len(line)} characters (at most {p.style.line_chars})"
            for n, line in enumerate(p.cue.lines, 1) if len(line) > p.style.line_chars and len(_words(line)) > 1]


def _line_count(p: _Place) -> list[str]:
    count = len(p.cue.lines)
    return [f"{count} lines (at most {p.style.max_lines})"] if count > p.style.max_lines else []


def _reading_speed(p: _Place) -> list[str]:
    chars = reading_chars(p.cue.lines)
    need = p.style.reading_ms(chars)
    if p.shown_ms <= 0 or p.shown_ms >= need:
        return []
    return [f"{chars * 1000 / p.shown_ms:.1f} characters a second (at most {p.style.max_cps:g}): {chars} characters "
            f"need {_seconds(need)}, shown {_seconds(p.shown_ms)}"]


def _too_short(p: _Place) -> list[str]:
    if not 0 <= p.shown_ms < p.style.min_ms:
        return []
    return [f"shown {_seconds(p.shown_ms)} (at least {_seconds(p.style.min_ms)})"]


def _too_long(p: _Place) -> list[str]:
    return [f"shown {_seconds(p.shown_ms)} (at most {_seconds(p.style.max_ms)})"] if p.shown_ms > p.style.max_ms else []


def _gap(p: _Place) -> list[str]:
    style = p.style
    if not 0 <= p.gap_before < style.gap_ms:
        return []
    return [f"{p.gap_before} ms after cue {p.before.number} (at least {style.gap_ms} ms: {style.gap_frames} frames "
            f"at {style.fps:g} fps)"]


def _open_gap(p: _Place) -> list[str]:
    style = p.style
    if not style.gap_ms < p.gap_before <= style.close_ms:
        return []
    return [f"{p.gap_before} ms after cue {p.before.number}: a gap of at most {style.close_frames} frames "
            f"({style.close_ms} ms) is closed to {style.gap_frames} ({style.gap_ms} ms)"]


def _overlap(p: _Place) -> list[str]:
    out = []
    if p.gap_before < 0:
        out.append(f"starts {-p.gap_before} ms before cue {p.before.number} ends")
    if p.shown_ms < 0:
        out.append(f"ends {-p.shown_ms} ms before it starts")
    return out


def _line_end(p: _Place) -> list[str]:
    out = []
    lines = [_words(line) for line in p.cue.lines] + [_words(p.after.lines[0]) if p.after and p.after.lines else []]
    for n, words in enumerate(lines[:-1], 1):
        following = next((line[0] for line in lines[n:] if line), None)
        fault = line_end_fault(words[-1], p.language, following) if words else None
        if fault:
            out.append(f"line {n} ends with {words[-1]!r} ({fault})")
    return out


def _one_word(p: _Place) -> list[str]:
    words = [word for line in p.cue.lines for word in _words(line)]
    alone = p.style.pause_ms - p.style.linger_ms
    if len(words) != 1 or min(p.gap_before, p.gap_after) >= alone:
        return []
    sides = [f"{gap} ms {side}" for gap, side in ((p.gap_before, "before it"), (p.gap_after, "after it"))
             if gap < alone]
    return [f"a cue of one word ({words[0]!r}) with {' and '.join(sides)} (a word stands alone between silences "
            f"of {_seconds(alone)} or more)"]


def _dialogue(p: _Place) -> list[str]:
    lines = p.cue.lines
    voices = list(dict.fromkeys(speaker for speaker in p.cue.speakers if speaker is not None))
    dashed = [line.startswith("-") for line in lines]
    if len(voices) > 1 and not (all(dashed) and len(lines) == len(voices)):
        return [f"{len(voices)} voices ({', '.join(voices)}) in one cue: one line a voice, each opening with '-'"]
    if any(dashed) and not all(dashed):
        return [f"line {dashed.index(False) + 1} of a dialogue cue does not open with '-'"]
    if any(dashed) and len(lines) > DIALOGUE_LINES:
        return [f"a dialogue cue of {len(lines)} lines (at most {DIALOGUE_LINES}, a speaker each)"]
    return []


CHECKS = dict(zip(RULES, (_line_width, _line_count, _reading_speed, _too_short, _too_long, _gap, _open_gap,
                          _overlap, _line_end, _one_word, _dialogue)))


def violations(cues: list[CheckedCue], style: SubtitleStyle = SubtitleStyle(), language: str | None = "en",
               rules=RULES) -> list[Violation]:
    """Every fault of ``cues`` against ``style`` under the ``rules`` named (all of ``RULES`` by default);
    ``language``: whose line-end words are faults (``line_breaks.line_end_fault``: English's)."""
    unknown = set(rules) - set(RULES)
    if unknown:
        raise ValueError(f"unknown rules {', '.join(sorted(unknown))} (the rules: {', '.join(RULES)})")
    out = []
    for k, cue in enumerate(cues):
        place = _Place(cue, cues[k - 1] if k else None, cues[k + 1] if k + 1 < len(cues) else None, style, language)
        out.extend(Violation(cue.number, rule, message)
                   for rule in RULES if rule in rules for message in CHECKS[rule](place))
    return out


def rule_counts(found: list[Violation]) -> dict[str, int]:
    """The violations of each rule that has any, in ``RULES`` order."""
    counts = Counter(violation.rule for violation in found)
    return {rule: counts[rule] for rule in RULES if counts[rule]}


def summary(cues: int, found: list[Violation], files: int = 1) -> str:
    """``12 cues, 3 violations (gap: 2, line-end: 1)``; ``in 2 files`` after the cues of several."""
    where = f" in {files} files" if files > 1 else ""
    detail = ", ".join(f"{rule}: {count}" for rule, count in rule_counts(found).items())
    return f"{cues:,} cues{where}, {len(found):,} violations" + (f" ({detail})" if detail else "")
