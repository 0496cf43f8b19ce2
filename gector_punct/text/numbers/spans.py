"""Where a line's numbers are and what replaces them: ``number_spans(words, language, mode) -> [NumberSpan]``.

In: a line's written words (``Tag``s applied: marks and case as the restoration wrote them), the line's
language (``language.LANGUAGES``; None: no library reads it, nothing changes) and a mode of ``NUMBERS``.
Out: spans of consecutive words, each with the text that replaces them (the first word's leading marks and the
last word's trailing marks kept around the number). A number never crosses a mark the restoration wrote: the
line is read in clauses (``clauses``), each clause's words lower-cased without their marks, as the
libraries read spoken text. A clause the library cannot read, or whose reading does not line up with its
words, stays as spoken: a word is never lost.

``merged(items, spans, join)`` replaces each span's items by ``join(items, text)``: plain words, a scored
line's ``RestoredWord``s (the lowest confidence: a number is as sure as its least sure word) and timed words
(the first's start, the last's end) are merged by the one rule.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from gector_punct.text.language import language_of
from gector_punct.text.numbers.english import require_english
from gector_punct.text.numbers.readers import reader
from gector_punct.text.units import split_edges

NUMBERS = ("words", "digits", "all_digits")
NUMBERS_HELP = ("how spoken numbers are written: words = as the recogniser wrote them; digits = as an editor "
                "writes them ($25.50, 3:30 p.m., 1984, 15%, 447-2918), one to ten and ordinals outside dates left "
                "as words in running text, words that are no quantity (no one, a second) left alone; all_digits = "
                "digits, one to ten and ordinals too. English needs nemo_text_processing "
                "(pip install -r requirements-numbers.txt)")

T = TypeVar("T")


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


def numbers_available(mode: str) -> str:
    """``mode`` (``checked``), once the libraries it needs are known to be installed: else
    ``english.NumbersUnavailable``, whose one line says what to install."""
    if checked(mode) != "words":
        require_english()
    return mode


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
    """The line's numbers as ``mode`` writes them (module docstring); none under ``words``."""
    read = reader(language) if checked(mode) != "words" else None
    if read is None:
        return []
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
