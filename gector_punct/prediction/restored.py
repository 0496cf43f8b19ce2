"""A restored line with each written word's confidence: the typed result of ``Punctuator.predict_scored``,
the stream's final words and the service's ``"words": true`` answers, and the one writer of their JSON.

``RestoredWord(text, confidence, review)``: a word as the line writes it (marks before and after it, its
case), the probability that it is what an editor would write (``confidence``), and whether it is among
the least confident (``review``: a unit of it below the model's review threshold). ``RestoredLine(text, words)``:
the line exactly as plain output writes it, and its words, which joined by single spaces give ``text``
(a line without words: an empty or whitespace-only line, given back as it was, or one whose words were
all deleted). ``restored_line(units, spacing, confidences, threshold)`` builds one from a line's written
units (``units.written_spaces`` says where a word ends); ``to_json()`` gives the object predict.py's
``--format jsonl`` writes per line (``json_line``) and the service answers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from gector_punct.text.units import join_units, written_spaces

DIGITS = 4  # a confidence is written rounded to this many digits


@dataclass(frozen=True)
class RestoredWord:
    text: str
    confidence: float
    review: bool

    def to_json(self) -> dict:
        return {"text": self.text, "confidence": round(self.confidence, DIGITS), "review": self.review}


@dataclass(frozen=True)
class RestoredLine:
    text: str
    words: tuple[RestoredWord, ...] = ()

    def to_json(self) -> dict:
        return {"text": self.text, "words": [word.to_json() for word in self.words]}


def restored_word(text: str, confidences: list[float], threshold: float) -> RestoredWord:
    """A written word of units with these confidences: right when all of them are (their product); to review
    when one of them is below the threshold (a share of the dev units, so a long run of Chinese characters
    is not flagged for its length)."""
    confidence = 1.0
    for c in confidences:
        confidence *= c
    return RestoredWord(text, confidence, min(confidences, default=1.0) < threshold)


def merged_restored(words: list[RestoredWord], text: str) -> RestoredWord:
    """Words written as one (a number, ``numbers.spans.merged``): as sure as the least sure of them, to review
    when one of them is."""
    return RestoredWord(text, min(word.confidence for word in words), any(word.review for word in words))


def restored_line(units: list[str], spacing: list[bool] | None, confidences: list[float],
                  threshold: float) -> RestoredLine:
    """A line's written units (kept ones), the spaces its input had before them, each unit's confidence."""
    spaces = written_spaces(units, spacing)
    words, start = [], 0
    for end in [i for i, space in enumerate(spaces) if space] + [len(units)]:
        if end > start:
            words.append(restored_word("".join(units[start:end]), confidences[start:end], threshold))
        start = end
    return RestoredLine(join_units(units, spacing), tuple(words))


def json_line(line: RestoredLine) -> str:
    """The JSON of one line, on one line (UTF-8 text as it is, not escaped)."""
    return json.dumps(line.to_json(), ensure_ascii=False)
