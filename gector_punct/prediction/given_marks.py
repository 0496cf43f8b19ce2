"""``--existing weigh``: a recogniser's marks as evidence, not truth. Per line (or a stretch of a stream), are
the marks the input already carries reliable enough to keep as given (``keep``), or are they removed so the
model decides (``strip``)?

In: a line's units as ``existing.read_units`` reads them under ``keep`` (``marks_given``: which carry a
trailing mark), and the model's punctuation probabilities over the same units stripped of marks and case
(``mark_probabilities``: per unit, how likely the model appends a mark). Out: ``weigh`` -> ``"keep"`` or
``"strip"``. A line with no given mark is read as ``keep`` without asking the model, so unpunctuated input
is restored exactly as under ``keep``. ``weighed_modes(punctuator, unit_lines)`` asks the model (one
``probabilities`` call over the lines that carry marks) and decides each line: the one home of the policy
for lines (``Punctuator.start``) and streams (``Punctuator.read_units``: each stretch a stream is given at a
time, a timed transcript's up to ``transcripts.restoring.STEP`` words) alike.

The evidence is agreement: where the model, reading the words alone, is sure a mark follows (``SURE``), a
reliable recogniser has one too (Whisper on clear speech: most of them); marks a recogniser scatters at
random fall where the model is sure none goes (``REJECTED``). Marks are kept when at most ``MAX_REJECTED`` of
them are rejected and they cover at least ``MIN_COVERED`` of the model's sure ones (a long stretch with
almost none of them: a recogniser that dropped its marks). Measured on simulated marks
(``utils/report/given_marks.py``, docs/prediction.md), rejection does most of the work: marks that are few
but right are better kept (the model still adds the missing ones) than stripped, so the coverage asked is low.
"""
from __future__ import annotations

import numpy as np

from gector_punct.model.vocabulary import PUNCT_HEAD
from gector_punct.text.existing import WEIGH, prepare_spaced, read_words, strip_word
from gector_punct.text.tags import Tag
from gector_punct.text.units import narrow_marks, split_edges

# Thresholds chosen on the tune half of the TED and cased dev sets (utils/report/given_marks.py --half tune
# --sweep: a grid of these four, per line keep or strip, ranked by the sum of F1 over reliable, sparse and
# scattered simulated marks), scored on the other half (docs/prediction.md). A coverage of 0.5 asked cost
# 2.5 F1 on sparse but right marks; rejecting below 0.05 stripped more reliable lines (-0.6 F1).
SURE = 0.7  # the model's probability of a mark after a unit above which it is sure one goes there
REJECTED = 0.02  # ... below which it is sure none goes: a given mark there is rejected
MIN_COVERED = 0.1  # share of the model's sure marks the given marks must cover to be kept
MAX_REJECTED = 0.2  # share of the given marks that may be rejected for them to be kept
SCORED_MARKS = ",.?!;:…"  # a unit ending with one of these carries a given mark (quotes and brackets do not)


def marks_given(units: list[str]) -> tuple[list[str], list[bool]]:
    """A line's units as read under ``keep`` -> the units stripped (``existing.strip_word``, a unit of
    marks only left out) and, per stripped unit, whether the input gave it a trailing mark (a marks-only
    unit's counts for the unit before it)."""
    stripped: list[str] = []
    given: list[bool] = []
    for unit in units:
        marked = any(ch in SCORED_MARKS for ch in split_edges(unit)[2])
        bare = strip_word(unit)
        if bare:
            stripped.append(bare)
            given.append(marked)
        elif given:
            given[-1] = given[-1] or marked
    return stripped, given


def mark_probabilities(punct: np.ndarray, labels: list[str]) -> np.ndarray:
    """Per unit, the model's probability that a mark follows it: the punctuation head's probabilities
    (units x ``labels``) summed over the labels that append one of ``SCORED_MARKS``."""
    appends = np.array([any(ch in SCORED_MARKS for ch in narrow_marks(Tag.parse(label).append)) for label in labels])
    return punct[:, appends].sum(axis=1)


def weigh(given: list[bool], p_mark: np.ndarray) -> str:
    """``"keep"`` where the given marks agree with the model (they cover ``MIN_COVERED`` of the units where
    it is ``SURE`` of a mark, and at most ``MAX_REJECTED`` of them fall where it is sure of none), else
    ``"strip"``. No given mark: ``"keep"``. A line where the model is sure of no mark is judged by the
    rejected share alone."""
    marked = np.asarray(given, dtype=bool)
    if not marked.any():
        return "keep"
    # A line's last mark closes the utterance, as the line rules close it (line_rules.close_utterance) whatever
    # the model's probability there: only the units before it are weighed.
    marked, p_mark = marked[:-1], np.asarray(p_mark)[:-1]
    if not marked.any():
        return "keep"
    sure = p_mark > SURE
    covered = (marked & sure).sum() / sure.sum() if sure.any() else 1.0
    rejected = (marked & (p_mark < REJECTED)).sum() / marked.sum()
    return "keep" if covered >= MIN_COVERED and rejected <= MAX_REJECTED else "strip"


def weighed_modes(punctuator, unit_lines: list[list[str]]) -> list[str]:
    """Per line of units (as read under ``keep``): ``weigh``'s mode, from ``Punctuator.probabilities`` over
    the stripped units of the lines that carry a given mark (the others: ``"keep"``, no model run)."""
    read = [marks_given(units) for units in unit_lines]
    todo = [i for i, (_, given) in enumerate(read) if any(given)]
    modes = ["keep"] * len(unit_lines)
    if not todo:
        return modes
    lines = [read[i][0] for i in todo]
    punct = punctuator.probabilities(lines)[PUNCT_HEAD.name]
    p_mark = mark_probabilities(punct, punctuator.names[PUNCT_HEAD.name])
    start = 0
    for i, line in zip(todo, lines):
        modes[i] = weigh(read[i][1], p_mark[start: start + len(line)])
        start += len(line)
    return modes


def line_modes(punctuator, lines: list[str]) -> str | list[str]:
    """How ``punctuator`` reads ``lines`` (``Punctuator.start``): its ``existing`` mode, or under ``weigh``
    each line's (``weighed_modes`` of its units as ``existing.prepare_spaced`` reads them under ``keep``)."""
    if punctuator.existing != WEIGH or "punc" not in punctuator.tasks:
        return punctuator.existing if punctuator.existing != WEIGH else "keep"  # punc off: the marks stay
    return weighed_modes(punctuator, [prepare_spaced(line, "keep")[0] for line in lines])


def stream_mode(punctuator, words: list[str]) -> str:
    """How ``punctuator`` reads a stretch of a stream's ``words`` (``Punctuator.read_units``): its
    ``existing`` mode, or under ``weigh`` the stretch's (its units as ``existing.read_words`` reads them)."""
    if punctuator.existing != WEIGH or "punc" not in punctuator.tasks:
        return punctuator.existing if punctuator.existing != WEIGH else "keep"  # punc off: the marks stay
    return weighed_modes(punctuator, [[unit for word in read_words(words, "keep") for unit in word]])[0]
