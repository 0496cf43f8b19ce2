"""Subtitle cues built to a style guide from restored, timed words (their speakers included).

In: each written word in order, ``CueBuilder.add(start, end, text, speaker, optional)`` (seconds); out: the cues it
completes, then ``finish()`` the rest, each a ``Cue`` (start and end in seconds, whole milliseconds; its lines;
each line's speaker). The style's limits (``style.SubtitleStyle``) hold for every cue:

* Times are steadied first (``speech_times.SteadyTimes``: never back, strays put back, a word said for too
  long cut, one speaker's words never overlapping). A cue starts with its first word, at most ``sync_frames``
  later (where the cue before still shows), and stays as long as its characters need at ``max_cps`` and at
  least ``min_duration``, into the silence after its words up to ``linger``, at most ``max_duration``; it ends
  ``gap_frames`` before the next cue, and a gap of up to ``close_frames`` is closed to that. Where speech is
  too fast for that, the cue ends short (``sync_frames`` into the next one's speech at most): nothing delays
  the cues after it, and none overlaps the one before.
* The words of a silence of ``pause`` seconds or more never share a cue. Between such silences the cues are
  chosen together (``_chosen``: fewest faults first): at most ``max_lines`` lines of ``line_chars``, one
  speaker a cue, or two in a dialogue cue of one line each opening with ``-``; a cue ends at a sentence end,
  a change of speaker or a clause mark where the limits allow, never after an article, a preposition or a
  possessive (``line_breaks``), and holds one word only where that word stands alone between silences; its
  lines break where ``line_breaks.break_cost`` is lowest, balanced or bottom-heavy. A word that alone is wider
  than a line is a cue of its own; one said for longer than a cue may last is cut to ``max_duration``. A
  backchannel (``optional``: ``add(..., optional=True)``) only ends a cue, as a dialogue line after the
  sentence it interrupted or a cue of its own, and is left out where either costs more than ``LEFT_OUT``.

The builder holds the words since the last silence, at most ``BLOCK`` of them (it then commits the cues
before the last ``TAIL`` words), so its memory is bounded on any transcript.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from gector_punct.prediction.streaming import caption_text
from gector_punct.transcripts.line_breaks import BEFORE_LINK, CLAUSE, NEVER, PLAIN, SENTENCE, break_cost
from gector_punct.transcripts.speech_times import SteadyTimes
from gector_punct.transcripts.style import SubtitleStyle, reading_chars

BLOCK, TAIL = 300, 80  # words held at most between silences; words left to choose again after a commit
END_COST = {SENTENCE: 0, CLAUSE: 3, BEFORE_LINK: 6, PLAIN: 8, NEVER: 40}  # a cue ending at a break of this cost
ONE_WORD, DIALOGUE, SHORT, CUE = 10, 4, 10, 1  # a one-word cue; two speakers in one; too short to read; each cue
HANGING = 3  # a cue that ends a sentence, then starts one it does not end
TORN_DIALOGUE = 20  # a dialogue cue whose first line is the end of a sentence begun in the cue before
LEFT_OUT = 8  # a backchannel left out of the subtitles: better than a one-word cue, worse than a dialogue line
TOP_HEAVY = 0.5  # a top line longer than the one below (lines as even as they can be, else bottom-heavy)


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]
    speakers: tuple[str | None, ...] = ()  # per line; a dialogue cue's lines open with "-"


@dataclass(frozen=True)
class _Word:
    start: int  # milliseconds
    end: int
    text: str
    speaker: str | None
    space: bool  # a space before it after the word before on a line, as the transcript's text writes it
    optional: bool = False  # a backchannel: shown where it costs less than LEFT_OUT, else left out


@dataclass(frozen=True)
class _Span:
    """A chosen cue before its timing: its words' times, its lines and their speakers."""
    start: int
    end: int
    lines: tuple[str, ...]
    speakers: tuple[str | None, ...]


class CueBuilder:
    def __init__(self, style: SubtitleStyle | None = None, language: str | None = "en"):
        self.style, self.language = style or SubtitleStyle(), language
        self.times = SteadyTimes()  # the words' times made steady (speech_times), LOOKAHEAD words behind
        self.block: list[_Word] = []  # the words since the last silence that are in no cue yet
        self.spans: list[_Span] = []  # chosen cues waiting for the next one's start (their timing needs it)
        self.latest_end = 0  # the latest end of a word so far (ms): a silence after it ends the block
        self.shown_until: int | None = None  # the end of the last cue given out

    def add(self, start: float, end: float, text: str, speaker: str | None = None, optional: bool = False
            ) -> list[Cue]:
        for begin, word_end, item in self.times.push(_ms(start), _ms(end), text, (text, speaker, optional), speaker):
            self._add(begin, word_end, *item)
        return self._timed(final=False)

    def finish(self) -> list[Cue]:
        for begin, word_end, item in self.times.finish():
            self._add(begin, word_end, *item)
        self._choose()
        return self._timed(final=True)

    def _add(self, begin: int, word_end: int, text: str, speaker: str | None, optional: bool) -> None:
        if self.block and begin - self.latest_end >= self.style.pause_ms:
            self._choose()
        space = caption_text([text], self.block[-1].text).startswith(" ") if self.block else False
        self.block.append(_Word(begin, word_end, text, speaker, space, optional))
        self.latest_end = max(self.latest_end, word_end)
        if len(self.block) >= BLOCK:
            self._choose(upto=len(self.block) - TAIL)

    def _choose(self, upto: int | None = None) -> None:
        """Cues for the block's words: all of them, or (``upto``) those of the chosen cues that end by word
        ``upto`` (the rest are chosen again with the words that follow)."""
        taken = 0
        for i, j, lines, speakers in _chosen(self.block, self.style, self.language):
            if upto is not None and j > upto:
                break
            words = self.block[i:j]
            if lines is not None:  # (None: a backchannel left out)
                self.spans.append(_Span(words[0].start, max(w.end for w in words), lines, speakers))
            taken = j
        del self.block[:taken]

    def _timed(self, final: bool) -> list[Cue]:
        """The waiting cues timed, each knowing where the next one starts: the next chosen cue, else the first
        word held, else (the last cue, before more words come) only at the end."""
        out = []
        while self.spans:
            if len(self.spans) > 1:
                following = self.spans[1].start
            elif self.block:
                following = self.block[0].start
            elif final:
                following = None
            else:
                break
            out.append(self._time(self.spans.pop(0), following))
        return out

    def _time(self, span: _Span, following: int | None) -> Cue:
        """A chosen cue's times: from its first word (later only while the cue before shows, which ends
        ``sync_ms`` into this one's speech at the latest) to its last word's end and the linger after it,
        longer where the minimum duration or the reading speed need it, shorter where the next cue's speech
        starts; chained to the next over a short gap; at most ``max_ms``."""
        style = self.style
        start = span.start if self.shown_until is None else max(span.start, self.shown_until + style.gap_ms)
        spoken = span.end + style.linger_ms  # the out-time, unless the next cue, the minimum or chaining move it
        need = start + max(style.min_ms, style.reading_ms(reading_chars(span.lines)))
        if following is None:
            end = max(spoken, need)
        else:
            soft = following - style.gap_ms  # the next cue at its speech
            end = max(min(spoken, soft), min(need, soft + style.sync_ms))
            if 0 < soft - end <= style.close_ms - style.gap_ms:
                end = soft  # a short gap closed: the next cue follows at once
        end = max(min(end, start + style.max_ms), start + 1)
        self.shown_until = end
        return Cue(start / 1000, end / 1000, span.lines, span.speakers)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _chosen(words: list[_Word], style: SubtitleStyle, language: str | None):
    """The block's words cut into cues with the fewest faults (a shortest path over the places a cue may
    end): per cue (first word, end, lines, speakers); lines None for a backchannel left out (``optional``
    words: shown as a dialogue line or a cue of their own only where that costs less than ``LEFT_OUT``)."""
    n, fit, limits = len(words), _Fit(words, style, language), _Limits.of(style)
    room, longest = style.max_lines * (style.line_chars + 1), limits.longest
    cost: list[float] = [0.0] + [float("inf")] * n
    back: list[tuple] = [()] * (n + 1)
    for j in range(1, n + 1):
        end_cost = 0 if j == n or words[j].speaker != words[j - 1].speaker else END_COST[fit.breaks[j]]
        changes, span_end = [], 0
        for i in range(j - 1, -1, -1):
            span_end = max(span_end, words[i].end)
            if i < j - 1 and words[i].speaker != words[i + 1].speaker:
                changes.append(i + 1)
            if j - i > 1 and (len(changes) > 1 or span_end - words[i].start > longest or fit.width(i, j) > room):
                break
            found = fit.layout(i, j, changes)
            if found is None or (words[i].optional and not words[j - 1].optional):
                continue  # (a backchannel ends the cue of the sentence it interrupts; it opens none)
            if cost[i] + found[0] + end_cost + CUE >= cost[j]:
                continue  # no cheaper whatever its timing (every cue costs CUE at least)
            fault = found[0] + end_cost + _timing_fault(words, fit, limits, i, j, span_end, found[2])
            if changes and 0 < i and words[i - 1].speaker == words[i].speaker and fit.breaks[i] != SENTENCE:
                fault += TORN_DIALOGUE  # a dialogue line that goes on with a sentence of the cue before
            if cost[i] + fault < cost[j]:
                cost[j], back[j] = cost[i] + fault, (i, found[1], bool(changes))
        first = j
        while first > 0 and words[first - 1].optional and words[first - 1].speaker == words[j - 1].speaker:
            first -= 1
        if first < j and (j == n or not words[j].optional) and cost[first] + LEFT_OUT < cost[j]:
            cost[j], back[j] = cost[first] + LEFT_OUT, (first, None, False)
    cuts, j = [], n
    while j > 0:
        i, bounds, dialogue = back[j]
        lines = None if bounds is None else \
            tuple(("-" if dialogue else "") + fit.text(a, b) for a, b in zip(bounds, bounds[1:]))
        cuts.append((i, j, lines, None if bounds is None else tuple(words[a].speaker for a in bounds[:-1])))
        j = i
    return cuts[::-1]


@dataclass(frozen=True)
class _Limits:
    """The style's limits in whole milliseconds, read once a block (the shortest path reads them per cue)."""
    gap: int
    close: int  # a gap up to this long past ``gap`` is closed
    sync: int
    shortest: int
    longest: int
    linger: int
    cps: float  # characters a millisecond

    @classmethod
    def of(cls, style: SubtitleStyle) -> _Limits:
        return cls(style.gap_ms, style.close_ms - style.gap_ms, style.sync_ms, style.min_ms, style.max_ms,
                   style.linger_ms, style.max_cps / 1000)


def _timing_fault(words: list[_Word], fit: _Fit, limits: _Limits, i: int, j: int, span_end: int,
                  chars: int) -> float:
    """The faults of the words ``i`` to ``j`` as one cue besides its layout: each cue's, a one-word cue's, a
    sentence started and not ended, too short to read (as ``CueBuilder._time`` would time it), a gap the
    longest cue leaves open."""
    n = len(words)
    fault = CUE + (ONE_WORD if j - i == 1 and n > 1 else 0)
    ends_badly = j < n and words[j].speaker == words[j - 1].speaker and fit.breaks[j] != SENTENCE
    fault += HANGING if ends_badly and fit.sentences[j - 1] > fit.sentences[i] else 0
    reach = span_end + limits.linger  # the cue's out-time as _time sets it, chained or cut at the next cue
    if j < n:
        soft = words[j].start - limits.gap
        reach = soft if soft - reach <= limits.close else min(reach, soft)
        most = soft + limits.sync - words[i].start  # the longest the minimum duration may hold it
    else:
        most = reach - words[i].start
    shown = reach - words[i].start
    fault += SHORT if most < limits.shortest or shown * limits.cps < chars else 0
    fault += SHORT if j < n and 0 < shown - limits.longest <= limits.close else 0  # left open by the cap
    return fault


class _Fit:
    """How a run of the block's words fits on lines: widths from running sums, line breaks' costs."""

    def __init__(self, words: list[_Word], style: SubtitleStyle, language: str | None):
        self.words, self.chars, self.lines = words, style.line_chars, style.max_lines
        self.breaks = [0] + [break_cost(words[k - 1].text, words[k].text, language) for k in range(1, len(words))]
        self.sentences = [0]  # sentences[k]: how many of the words before k+1 after the first end a sentence
        for cost in self.breaks[1:]:
            self.sentences.append(self.sentences[-1] + (cost == SENTENCE))
        self.ends = [0]  # ends[k]: the words before k as one line
        self.starts = []  # starts[k]: what a line that opens with word k does not count of ends[k]
        for k, w in enumerate(words):
            space = 1 if k and w.space else 0
            self.starts.append(self.ends[-1] + space)
            self.ends.append(self.ends[-1] + space + len(w.text))

    def width(self, i: int, j: int) -> int:
        """The words ``i`` to ``j`` as one line."""
        return self.ends[j] - self.starts[i]

    def text(self, i: int, j: int) -> str:
        return "".join((" " if k > i and self.words[k].space else "") + self.words[k].text for k in range(i, j))

    def layout(self, i: int, j: int, changes: list[int]):
        """(fault, the line bounds, the characters read) of the words ``i`` to ``j`` as one cue, None where
        they do not fit (a lone word always does: it is a cue of its own)."""
        if changes:  # a dialogue cue: one line a speaker, each opening with "-"
            k = changes[0]
            top, below = self.width(i, k), self.width(k, j)
            if self.lines < 2 or max(top, below) + 1 > self.chars:
                return None
            return DIALOGUE, (i, k, j), top + below + 2
        total = self.width(i, j)
        if total <= self.chars or j - i == 1:
            return 0, (i, j), total
        found = self.split(i, j, self.lines)
        if found is None:
            return None
        bounds = (i, *found[1], j)
        chars = total - len(found[1]) if all(self.words[k].space for k in found[1]) else \
            sum(self.width(a, b) for a, b in zip(bounds, bounds[1:]))  # a break takes the space before it
        return found[0], bounds, chars

    def split(self, i: int, j: int, lines: int):
        """(fault, the places lines break) for the words ``i`` to ``j`` in at most ``lines`` lines: the
        breaks' costs, then how uneven the lines are (a top line longer than the one below costs a little
        more than the reverse)."""
        chars, ends, start = self.chars, self.ends, self.starts[i]
        if ends[j] - start <= chars:
            return 0.0, ()
        if lines < 2:
            return None
        best = None
        for k in range(min(j - 1, bisect.bisect_right(ends, start + chars, i + 1, j) - 1), i, -1):
            top, below = ends[k] - start, ends[j] - self.starts[k]
            tail = (0.0, ())
            if below > chars:
                tail = self.split(k, j, lines - 1) if lines > 2 else None
                if tail is None:
                    break  # fewer words on the top line leave more below
                below = ends[tail[1][0]] - self.starts[k]
            shape = 3 * abs(top - below) / chars + (TOP_HEAVY if top > below else 0)
            fault = self.breaks[k] + shape + tail[0]
            if best is None or fault < best[0]:
                best = (fault, (k, *tail[1]))
        return best
