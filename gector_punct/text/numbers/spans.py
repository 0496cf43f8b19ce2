"""Where a line's numbers are and what replaces them: ``number_spans(words, language, mode) -> [NumberSpan]``.

In: a line's written words (``Tag``s applied: marks and case as the restoration wrote them), the line's
language (``language.LANGUAGES``; None: no library reads it, nothing changes) and a mode of ``NUMBERS``.
Out: spans of consecutive words, each with the text that replaces them (the first word's leading marks and the
last word's trailing marks kept around the number). A number never crosses a mark the restoration wrote: the
line is read in clauses (``clauses``), each clause's words lower-cased without their marks, as the
libraries read spoken text. A clause the library cannot read, or whose reading does not line up with its
words, stays as spoken: a word is never lost. But a mark the restoration put inside a spoken number goes first
(``inside_marks``: ``mil novecientos, setenta y dos`` is one number, ``1972``; ``vingt, trente`` are two).

``merged(items, spans, join)`` replaces each span's items by ``join(items, text)``: plain words, a scored
line's ``RestoredWord``s (the lowest confidence: a number is as sure as its least sure word) and timed words
(the first's start, the last's end) are merged by the one rule.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from gector_punct.text.language import language_of, language_of_start
from gector_punct.text.numbers.english import require_english
from gector_punct.text.numbers.european import EUROPEAN
from gector_punct.text.numbers.readers import numbers_read, reader
from gector_punct.text.units import split_edges

NUMBERS = ("words", "digits", "all_digits")
NUMBERS_HELP = ("how spoken numbers are written: words = as the recogniser wrote them; digits = as an editor "
                "writes them ($25.50, 3:30 p.m., 1984, 15%, 447-2918), one to ten and ordinals outside dates left "
                "as words in running text, words that are no quantity (no one, a second) left alone; all_digits = "
                "digits, one to ten and ordinals too. English needs nemo_text_processing "
                "(pip install -r requirements-numbers.txt)")

T = TypeVar("T")
INSIDE_MARKS = frozenset(",;")  # the pauses a restoration may put inside a spoken number; others (. ? : -) say more


@dataclass(frozen=True)
class NumberSpan:
    start: int  # the first word's index
    end: int  # past the last word
    text: str  # the words written as one: the number, with the first word's leading and last word's trailing marks


def checked(mode: str) -> str:
    """``mode`` if it is one of ``NUMBERS``; else ValueError naming them."""
    if mode not in NUMBERS:
        raise ValueError(f"unknown numbers mode {mode!r} (one of {', '.join(NUMBERS)})")
    return mode


def numbers_available(mode: str, language: str | None = None) -> str:
    """``mode`` (``checked``), once the library that reads ``language`` (the input's, guessed from its first
    words: ``file_language``) is known to be installed: else ``english.NumbersUnavailable``, whose one line says
    what to install. text2num, which reads French, Spanish, German and Italian, is a dependency; nemo is asked
    for only where the input is English or its language is not known (None). An English line met later
    without nemo stays as spoken, with one note on stderr (``english.read_english``)."""
    if checked(mode) != "words" and language not in EUROPEAN:
        require_english()
    return mode


def file_language(path: str) -> str | None:
    """The language of a text or subtitle file's first words (``language.language_of_start``: a cue's number and
    timing line are no words to it); None for stdin (``-``), a file that cannot be read, or words that say no
    language."""
    if path == "-":
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return language_of_start(word for line in f for word in line.split())
    except OSError:
        return None


def clauses(words: list[str]) -> list[tuple[int, int]]:
    """The line's runs of words that no mark divides: a run ends at a word with trailing marks and the next
    starts at a word with leading ones; a word of marks alone belongs to none. A letter's period before
    another letter divides nothing (``P. M``, ``A. M.``: the restoration took them for initials)."""
    runs, start = [], None
    edges = [split_edges(word) for word in words]
    for k, (lead, core, trail) in enumerate(edges):
        if not core:
            if start is not None:
                runs.append((start, k))
            start = None
            continue
        if lead and start is not None:
            runs.append((start, k))
            start = None
        if start is None:
            start = k
        if trail and not (trail == "." and len(core) == 1 and k + 1 < len(words) and _a_letter(edges[k + 1])):
            runs.append((start, k + 1))
            start = None
    if start is not None:
        runs.append((start, len(words)))
    return runs


def _a_letter(edges: tuple[str, str, str]) -> bool:
    lead, core, _ = edges
    return not lead and len(core) == 1 and core.isalpha()


def number_spans(words: list[str], language: str | None, mode: str) -> list[NumberSpan]:
    """The line's numbers as ``mode`` writes them (module docstring); none under ``words``. A mark inside a
    spoken number (``inside_marks``) goes where the number written takes the words on both its sides."""
    read = reader(language) if checked(mode) != "words" else None
    if read is None:
        return []
    marks = inside_marks(words, language)
    while True:
        spans = _spans(_without_marks(words, marks), read, mode)
        kept = {k for k in marks if any(span.start <= k < span.end - 1 for span in spans)}
        if kept == marks:
            return spans
        marks = kept  # a mark no number written takes stays


def inside_marks(words: list[str], language: str) -> set[int]:
    """The words whose trailing mark (``INSIDE_MARKS`` alone, the next word without a leading one) stands inside
    a spoken number: read without the marks that link its clauses, by text2num (``readers.numbers_read``), one
    number takes the whole number each side's clause reads alone there (``mil novecientos, setenta y dos``:
    1900 and 72 are 1972; ``vingt, trente``: 20 and 30 stay two; ``mille, deux mille``: 1002 would split 2000,
    the mark stays)."""
    edges = [split_edges(word) for word in words]
    cores = [core for _, core, _ in edges]
    runs, out = clauses(words), set()
    if not runs:
        return out
    chain = runs[:1]
    for run in runs[1:] + [None]:
        trail = edges[chain[-1][1] - 1][2]
        if run is not None and run[0] == chain[-1][1] and pause(trail) and not edges[run[0]][0]:
            chain.append(run)
            continue
        if chain[1:]:
            out |= _marks_inside(chain, cores, language)
        chain = [run]
    return out


def pause(trail: str) -> bool:
    """Whether a word's trailing marks are a pause that may stand inside a number (``INSIDE_MARKS`` alone)."""
    return bool(trail) and all(mark in INSIDE_MARKS for mark in trail)


def _marks_inside(chain: list[tuple[int, int]], cores: list[str], language: str) -> set[int]:
    """Of a chain of clauses, each linked to the next by a mark of ``INSIDE_MARKS``, the marks inside a number
    (``inside_marks``); text2num reads any case."""
    first = chain[0][0]
    together = [(a + first, b + first) for a, b in numbers_read(cores[first: chain[-1][1]], language)]
    out = set()
    for (start, end), (after, last) in zip(chain, chain[1:]):
        left = [start + a for a, b in numbers_read(cores[start:end], language) if start + b == end]  # its first word
        right = [after + b for a, b in numbers_read(cores[after:last], language) if a == 0]  # past its last
        if left and right and any(a <= left[0] and right[0] <= b for a, b in together):
            out.add(end - 1)
    return out


def _without_marks(words: list[str], marks: set[int]) -> list[str]:
    return ["".join(split_edges(word)[:2]) if k in marks else word for k, word in enumerate(words)]


def _spans(words: list[str], read, mode: str) -> list[NumberSpan]:
    spans = []
    for start, end in clauses(words):
        edges = [split_edges(word) for word in words[start:end]]
        for a, b, text in read([core for _, core, _ in edges], mode):
            spans.append(NumberSpan(start + a, start + b, _with_marks(edges[a][0], text, edges[b - 1][2])))
    return spans


def line_number_spans(words: list[str], mode: str) -> list[NumberSpan]:
    """``number_spans`` of a line in the language its words say (``language.language_of``; English when they
    say none): how every writer of restored text finds a line's numbers."""
    if checked(mode) == "words" or not words:
        return []
    return number_spans(words, language_of(words) or "en", mode)


def _with_marks(lead: str, text: str, trail: str) -> str:
    """A number between its words' outer marks; an abbreviation's period is the sentence's (``3 p.m.``)."""
    if text.endswith(".") and trail.startswith("."):
        trail = trail[1:]
    return lead + text + trail


def merged(items: list[T], spans: list[NumberSpan], join: Callable[[list[T], str], T]) -> list[T]:
    """``items`` (one per word) with each span's run replaced by ``join(run, span.text)``; spans in order,
    not overlapping."""
    out, at = [], 0
    for span in spans:
        out.extend(items[at: span.start])
        out.append(join(items[span.start: span.end], span.text))
        at = span.end
    out.extend(items[at:])
    return out


def merged_words(words: list[str], spans: list[NumberSpan]) -> list[str]:
    """Plain words with their numbers written."""
    return merged(words, spans, lambda _, text: text)
