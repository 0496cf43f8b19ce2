"""Subtitle files checked against a style guide: every cue that breaks one of its rules, named.

In: a SubRip or WebVTT file's cues, any program's, as ``checked_cues.read_cues(path)`` reads them (each a
``CheckedCue``: its place in the file, its times, its lines as shown and their speakers, the cue as written),
and a style (``style.SubtitleStyle``). Out: ``violations(cues, style, language, rules, speech)``, one
``Violation`` (cue number, rule, message) per fault, by cue, then in ``RULES`` order; ``rule_counts`` tallies
them by rule and ``summary`` says them in a line (``12 cues, 3 violations (gap: 2, line-end: 1)``).

The rules, each figure from the style: ``line-width`` (a line of more than ``line_chars`` characters, unless
it is one word), ``lines`` (more than ``max_lines``), ``reading-speed`` (more than ``max_cps`` characters a
second, ``style.reading_chars``), ``too-short`` / ``too-long`` (shown less than ``min_duration``, more than
``max_duration``), ``gap`` (less than ``gap_frames`` frames at ``fps`` after the cue before), ``open-gap``
(more than that but at most ``close_frames``: it should have been closed), ``overlap`` (a cue starting before
the one before ends, or ending before it starts), ``line-end`` (a line ending with a word that
``line_breaks.line_end_fault`` names: an article, an auxiliary, a subject pronoun before its verb ...),
``one-word`` (a cue of one word without ``pause - linger`` seconds of silence on each side, the file's start
and end counting as silence), ``dialogue`` (a cue whose lines open with ``-`` has each line so and at most two;
a cue of two voices is such a cue, one line a voice). On the cue as written: ``empty`` (no text),
``numbering`` (SubRip's cue numbers 1, 2, 3 ... in order, none twice), ``timestamp`` (SubRip's
``00:00:01,000``; WebVTT's reader refuses any other form itself), ``tags`` (a paired tag, ``<i>``, ``<b>`` ..., closed in the cue
that opens it; a voice may stay open); on its words: ``name-split`` (two capitalised words of a name on two
lines), ``number-split`` (a number's words on two lines or cues: ``one hundred and`` / ``fifty``). With the
words' times (``speech``): ``sync`` (an in-time more than ``sync_frames`` from its first word's start; an
out-time more than ``linger`` after its last word's end that neither the minimum duration, the reading speed
nor a chained gap needs).

Times are compared in whole milliseconds, as the files hold them, against the style's ``*_ms`` limits, which
round each limit the way the cue builder (``cues.CueBuilder``) does: a cue exactly at a limit passes.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from gector_punct.text.units import split_edges, split_units
from gector_punct.transcripts.checked_cues import CheckedCue
from gector_punct.transcripts.formats import FORMATS
from gector_punct.transcripts.line_breaks import is_name, is_number, line_end_fault
from gector_punct.transcripts.style import SubtitleStyle, reading_chars

RULES = ("line-width", "lines", "reading-speed", "too-short", "too-long", "gap", "open-gap", "overlap",
         "line-end", "one-word", "dialogue", "empty", "numbering", "timestamp", "tags", "name-split", "number-split",
         "sync")
DIALOGUE_LINES = 2  # a dialogue cue: two speakers, a line each
SUBRIP_TIME = re.compile(r"\d{2}:\d{2}:\d{2},\d{3}$")  # SubRip's one form (its reader takes "." and fewer digits)
_TAG = re.compile(r"<(/?)([A-Za-z]+)[^>]*>")  # a tag opened or closed: <i>, </i>, <font color=...>
PAIRED_TAGS = frozenset("i b u s c lang ruby rt font".split())  # each opened in a cue is closed in it (not <v>)
@dataclass(frozen=True)
class Violation:
    cue_number: int
    rule: str
    message: str


@dataclass(frozen=True)
class _Place:
    """A cue where it stands: the cues before and after it (None at the file's start and end)."""
    cue: CheckedCue
    before: CheckedCue | None
    after: CheckedCue | None
    style: SubtitleStyle
    language: str | None
    speech: tuple[int | None, int | None] | None = None  # when its first word is said and its last ends (ms)

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


def _empty(p: _Place) -> list[str]:
    return [] if any(line.strip() for line in p.cue.lines) else ["no text"]


def _numbering(p: _Place) -> list[str]:
    """SubRip's cue numbers: 1 first, then each one more than the one before."""
    if p.cue.fmt != "srt" or len(p.cue.head) < 2:
        return []
    written = p.cue.head[0].strip()
    before = p.before.head[0].strip() if p.before is not None and len(p.before.head) > 1 else "0"
    expected = int(before) + 1 if before.isdigit() else None
    if not written.isdigit():
        return [f"cue number {written!r} is no number"]
    if expected is not None and int(written) != expected:
        return [f"cue number {written} after {before} (SubRip numbers its cues 1, 2, 3 ...: {expected})"]
    return []


def _timestamp(p: _Place) -> list[str]:
    """SubRip's times as SubRip writes them (WebVTT's reader already refuses any other form)."""
    if p.cue.fmt != "srt" or not p.cue.head:
        return []
    times = [part.split()[0] if part.split() else "" for part in p.cue.head[-1].split("-->")[:2]]
    return [f"time {time!r} is not written as {FORMATS['srt'].timestamp(1)} (a comma before three digits)"
            for time in times if not SUBRIP_TIME.match(time)]


def _tags(p: _Place) -> list[str]:
    """Each paired tag opened in a cue is closed in it, after it was opened."""
    open_tags, out = [], []
    for tag in (m for tokens in p.cue.tokens for token in tokens for m in _TAG.finditer(token)):
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        if name not in PAIRED_TAGS:
            continue
        if not closing:
            open_tags.append(name)
        elif name in open_tags:
            open_tags.reverse()
            open_tags.remove(name)
            open_tags.reverse()
        else:
            out.append(f"</{name}> closes no <{name}>")
    return out + [f"<{name}> is not closed" for name in open_tags]


def _splits(p: _Place):
    """The places the cue's text breaks with no mark (between its lines, and before the next cue): (what, the
    words before, the first word after)."""
    lines = [_words(line) for line in p.cue.lines]
    for n, words in enumerate(lines[:-1], 1):
        if words and lines[n] and not split_edges(words[-1])[2]:
            yield f"lines {n} and {n + 1}", words, lines[n][0]
    following = _words(p.after.lines[0]) if p.after is not None and p.after.lines else []
    if lines and lines[-1] and following and not split_edges(lines[-1][-1])[2]:
        yield f"cue {p.cue.number} and the next", lines[-1], following[0]


def _name_split(p: _Place) -> list[str]:
    return [f"a name split between {where} ({words[-1]!r} / {after!r})" for where, words, after in _splits(p)
            if where.startswith("lines") and is_name(words[-1]) and is_name(after)]


def _number_split(p: _Place) -> list[str]:
    out = []
    for where, words, after in _splits(p):
        left = words[-1] if is_number(words[-1]) else None
        if words[-1].lower() == "and" and len(words) > 1 and is_number(words[-2]):
            left = f"{words[-2]} and"  # one hundred and / fifty
        if left is not None and is_number(after):
            out.append(f"a number split between {where} ({left!r} / {after!r})")
    return out


def _sync(p: _Place) -> list[str]:
    """Against the words' times (``--words``): the in-time within ``sync_ms`` of the first word's start; the
    out-time at most ``linger`` after the last word's end, unless the minimum duration or the reading speed
    needs more or the cue is chained to the next."""
    if p.speech is None:
        return []
    style, (said, ended), out = p.style, p.speech, []
    if said is not None and abs(p.cue.start_ms - said) > style.sync_ms:
        side = "before" if p.cue.start_ms < said else "after"
        out.append(f"starts {_seconds(abs(p.cue.start_ms - said))} {side} its first word is said (at most "
                   f"{_seconds(style.sync_ms)}: {style.sync_frames} frames)")
    needed = max(style.min_ms, style.reading_ms(reading_chars(p.cue.lines)))
    if ended is not None and p.cue.end_ms - ended > style.linger_ms and p.shown_ms > needed \
            and p.gap_after > style.gap_ms:
        out.append(f"ends {_seconds(p.cue.end_ms - ended)} after its last word (at most {_seconds(style.linger_ms)} "
                   "unless the minimum duration, the reading speed or a chained gap needs more)")
    return out


CHECKS = dict(zip(RULES, (_line_width, _line_count, _reading_speed, _too_short, _too_long, _gap, _open_gap,
                          _overlap, _line_end, _one_word, _dialogue, _empty, _numbering, _timestamp, _tags,
                          _name_split, _number_split, _sync)))


def violations(cues: list[CheckedCue], style: SubtitleStyle | None = None, language: str | None = "en",
               rules=RULES, speech: list | None = None) -> list[Violation]:
    """Every fault of ``cues`` against ``style`` under the ``rules`` named (all of ``RULES`` by default);
    ``language``: whose line-end words are faults (``line_breaks.line_end_fault``: English's); ``speech``
    (``checked_cues.speech_of``): per cue, when its words are said, for ``sync``."""
    style = style or SubtitleStyle()
    unknown = set(rules) - set(RULES)
    if unknown:
        raise ValueError(f"unknown rules {', '.join(sorted(unknown))} (the rules: {', '.join(RULES)})")
    out = []
    for k, cue in enumerate(cues):
        place = _Place(cue, cues[k - 1] if k else None, cues[k + 1] if k + 1 < len(cues) else None, style, language,
                       speech[k] if speech is not None else None)
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
