"""Subtitle cues built from restored, timed words, and written as SubRip or WebVTT.

``CueBuilder(limits)``: ``add(start, end, text) -> [Cue]`` takes each written word in order (its times in
seconds) and returns the cues it completes; ``finish() -> [Cue]`` the rest. A cue holds at most
``CueLimits.lines`` lines of at most ``CueLimits.line_chars`` characters, lasts at most ``CueLimits.seconds``, and
never spans a pause of ``CueLimits.pause`` seconds or more between two words. Within those limits a cue ends
at a sentence end where it can (``sentences.ends_sentence_after``), else after a word that ends with a
pause mark (``alignment.PAUSE_MARKS``: , ; : or a dash, in either script's form), else after the last word
that fits; a pause ends it where it comes. A word
that alone breaks a limit (a link longer than a line, a word said for longer than a cue may last) gets a
cue of its own, cut to ``CueLimits.seconds``. The builder holds at most one cue's worth of words.

``format_cue(number, cue, fmt)``: one cue as ``srt`` or ``vtt`` text (number and timing line, then its lines,
then an empty line); ``VTT_HEADER`` opens a WebVTT file.
"""
from __future__ import annotations

from dataclasses import dataclass

from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.alignment import PAUSE_MARKS
from gector_punct.text.units import narrow_marks, split_edges, written_spaces

VTT_HEADER = "WEBVTT\n\n"


@dataclass(frozen=True)
class CueLimits:
    lines: int = 2
    line_chars: int = 42
    seconds: float = 7.0
    pause: float = 2.0


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class _Word:
    start: float
    end: float
    text: str
    space: bool  # a space before it when it follows the word before on a line (``units.written_spaces``)


def _line(words: list[_Word]) -> str:
    return "".join((" " if k and w.space else "") + w.text for k, w in enumerate(words))


def cue_lines(words: list[_Word], limits: CueLimits) -> tuple[str, ...] | None:
    """The words as at most ``CueLimits.lines`` lines of at most ``CueLimits.line_chars`` characters, as
    even as they can be (None where they do not fit)."""
    ends = [0]  # ends[k]: the length of words[:k] as one line, and what a space before word k adds
    for k, w in enumerate(words):
        ends.append(ends[-1] + len(w.text) + (1 if k and w.space else 0))
    total = ends[-1]
    if total <= limits.line_chars:
        return (_line(words),)
    if limits.lines < 2:
        return None
    best, widest = None, None
    for k in range(1, len(words)):
        first, second = ends[k], total - ends[k] - (1 if words[k].space else 0)
        if first <= limits.line_chars and second <= limits.line_chars and (widest is None or max(first, second) < widest):
            best, widest = k, max(first, second)
    return None if best is None else (_line(words[:best]), _line(words[best:]))


class CueBuilder:
    def __init__(self, limits: CueLimits = CueLimits()):
        self.limits = limits
        self.words: list[_Word] = []

    def add(self, start: float, end: float, text: str) -> list[Cue]:
        cues = []
        if self.words and start - self.words[-1].end >= self.limits.pause:
            cues = self.finish()
        space = written_spaces([self.words[-1].text, text])[1] if self.words else True
        self.words.append(_Word(start, max(end, start), text, space))
        while self.words and not self._fits(len(self.words)):
            cues.append(self._take(forced=False))
        return cues

    def finish(self) -> list[Cue]:
        cues = []
        while self.words:
            cues.append(self._take(forced=True))
        return cues

    def _fits(self, n: int) -> bool:
        words = self.words[:n]
        return words[-1].end - words[0].start <= self.limits.seconds and cue_lines(words, self.limits) is not None

    def _take(self, forced: bool) -> Cue:
        """The next cue off the front: all the words when ``forced`` (a pause or the end follows) and they fit,
        else the longest run that fits, cut at its last sentence end, else its last pause mark."""
        fitting = next((n for n in range(len(self.words), 0, -1) if self._fits(n)), 1)
        if not (forced and fitting == len(self.words)):
            fitting = self._preferred_end(fitting)
        words, self.words = self.words[:fitting], self.words[fitting:]
        lines = cue_lines(words, self.limits) or (_line(words),)
        return Cue(words[0].start, min(words[-1].end, words[0].start + self.limits.seconds), lines)

    def _preferred_end(self, fitting: int) -> int:
        """The number of words up to the last sentence end among the first ``fitting``, else up to the last
        pause mark, else ``fitting``."""
        texts = [w.text for w in self.words]
        for ends in (lambda k: ends_sentence_after(texts[k], texts[k + 1] if k + 1 < len(texts) else None),
                     lambda k: any(ch in PAUSE_MARKS for ch in narrow_marks(split_edges(texts[k])[2]))):
            found = next((k + 1 for k in range(fitting - 1, -1, -1) if ends(k)), None)
            if found is not None:
                return found
        return fitting


def _timestamp(seconds: float, fmt: str) -> str:
    millis = int(round(max(seconds, 0.0) * 1000))
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{',' if fmt == 'srt' else '.'}{millis:03d}"


def format_cue(number: int, cue: Cue, fmt: str) -> str:
    timing = f"{_timestamp(cue.start, fmt)} --> {_timestamp(cue.end, fmt)}"
    return "\n".join(([str(number)] if fmt == "srt" else []) + [timing, *cue.lines]) + "\n\n"
