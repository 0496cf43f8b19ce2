"""The decoding policy: per-word probabilities of the heads -> one ``Tag`` per word, as pure functions.

In: ``Probabilities``, a dict keyed by head name (``vocabulary.HEADS``): ``PUNCT_HEAD.name`` -> words x
punctuation labels, ``CASE_HEAD.name`` -> words x ``tags.MARK_CONTEXTS`` x case labels (one distribution
per mark context of the word before), ``DETECT_HEAD.name`` -> words x detection labels; the words of all
lines one after the other; columns in the order of ``names`` (per head name, its labels: an ensemble's are
the union of its members'); an ensemble's also keeps each member's punctuation and case tables
(``member_tables``: what per-word confidence reads of their disagreement). Also the tasks that are on and a ``DecodeConfig``. Out: per line, per word,
its tag. Nothing here reads a model or changes its inputs.

``decode_lines`` reads what the probabilities say of each word (``line_evidence``: its likeliest labels,
GECToR's ``additional_confidence`` added to the punctuation head's ``$KEEP`` and ``case_bias`` to the case
head's, a task that is off deciding nothing: ``open_columns``), then takes each line through the line rules
in their order (``line_rules.LINE_RULES``: deletion, GECToR's gate and each word's decision, then the rules
of the whole line; ``line_rules`` says what each does and where ``given`` holds).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from gector_punct.model.config import DecodeConfig
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.prediction.decoded_line import Evidence, Line, Reading, decide
from gector_punct.prediction.line_rules import LINE_RULES, WORD_RULES
from gector_punct.text.case_forms import CaseForms
from gector_punct.text.sentences import (INVERTED_EXCLAMATION, INVERTED_QUESTION, SENTENCE_MARKS, ends_sentence,
                                          trails_off)
from gector_punct.text.tags import DELETE, KEEP, Tag
from gector_punct.text.units import narrow_marks, split_edges

Probabilities = dict[str, np.ndarray]  # head name -> per-word probabilities, float32 (see the module docstring)
NO_EDIT = {PUNCT_HEAD.name: KEEP, CASE_HEAD.name: KEEP, DETECT_HEAD.name: "CORRECT"}  # per head: "leave it"


def no_edit_probabilities(names: dict[str, list[str]], n_words: int, contexts: int) -> Probabilities:
    """Probabilities of ``n_words`` words that certainly take no edit (each head's ``NO_EDIT`` label at 1)."""
    out = {}
    for head, labels in names.items():
        shape = (n_words,) + ((contexts,) if head == CASE_HEAD.name else ()) + (len(labels),)
        out[head] = np.zeros(shape, dtype=np.float32)
        out[head][..., labels.index(NO_EDIT[head])] = 1.0
    return out


MEMBERS_OF = "members of "  # + a head's name: its members' tables, stacked (an ensemble's Probabilities only)


def mean_probabilities(members: list[Probabilities]) -> Probabilities:
    """An ensemble's probabilities: per head, the mean of its members' (all in the same columns); the
    members' punctuation and case tables are kept beside it, stacked (``member_tables``)."""
    out = {head: sum(m[head] for m in members) / len(members) for head in members[0]}
    out.update({MEMBERS_OF + head: np.stack([m[head] for m in members]) for head in (PUNCT_HEAD.name, CASE_HEAD.name)})
    return out


def member_tables(probabilities: Probabilities, head: str) -> np.ndarray:
    """A head's table per member, stacked (members x words x ...): one member's own table where the
    probabilities are one model's."""
    return probabilities.get(MEMBERS_OF + head, probabilities[head][None])


def open_columns(names: dict[str, list[str]], tasks: frozenset[str]) -> dict[str, list[int]]:
    """Per head (punctuation, case), the labels besides ``$KEEP`` that a kept word may take: no ``$DELETE``
    (whether a word goes is ``line_rules.delete_disfluencies``' decision, on the probabilities themselves),
    and no mark or case change without ``punc`` (a task that is off decides nothing)."""
    punc = "punc" in tasks
    return {head: [j for j, name in enumerate(names[head]) if punc and name not in (KEEP, DELETE)]
            for head in (PUNCT_HEAD.name, CASE_HEAD.name)}


def likeliest(p: np.ndarray, keep: int, bias: float, columns: list[int], threshold: float) -> np.ndarray:
    """Per row of ``p`` (a word, or a word in one mark context), the column of its likeliest label: ``keep``,
    its probability raised by ``bias``, or one of ``columns`` (the first of equals, as argmax takes them);
    ``keep`` where that label's score is below ``threshold`` (compared in double precision, as Python floats
    compare). ``p`` is read in place, one run of adjacent columns at a time: the case head's table is the
    largest thing decoding reads, and is not copied."""
    runs = [[keep, keep + 1]]
    for j in sorted(columns):
        if runs[-1][1] == j and runs[-1][0] != keep:
            runs[-1][1] = j + 1
        else:
            runs.append([j, j + 1])
    best, index = None, None
    for start, end in sorted(runs):
        if start == keep:
            value, at = p[..., keep] + np.float32(bias), np.full(p.shape[:-1], keep, dtype=np.int64)
        else:
            value, at = p[..., start:end].max(-1), p[..., start:end].argmax(-1) + start
        if best is None:
            best, index = value, at
        else:  # an earlier column keeps a tie
            better = value > best
            best, index = np.where(better, value, best), np.where(better, at, index)
    return np.where(best.astype(np.float64) >= threshold, index, keep)


def opening_columns(punct_names: list[str], opening: str) -> list[int]:
    """The punctuation labels that open a sentence with ``opening`` (``¿`` or ``¡``: ``pair_openings``)."""
    return [j for j, name in enumerate(punct_names) if opening in Tag.parse(name).prepend]


def sentence_mark_columns(punct_names: list[str]) -> dict[str, list[int]]:
    """Per sentence mark (. ? !), the punctuation labels whose appended marks end with it."""
    appended = [narrow_marks(Tag.parse(name).append) for name in punct_names]
    return {m: [j for j, a in enumerate(appended) if [c for c in a if c in SENTENCE_MARKS][-1:] == [m]]
            for m in SENTENCE_MARKS}


def closing_columns(punct_names: list[str]) -> list[int]:
    """The punctuation labels that end a sentence (``sentence_mark_columns``) without trailing off
    (``sentences.trails_off``: ``...`` is a pause inside a spoken number, not the end of a sentence)."""
    marks = sentence_mark_columns(punct_names)
    return sorted(j for m in SENTENCE_MARKS for j in marks[m]
                  if not trails_off(narrow_marks(Tag.parse(punct_names[j]).append)))


def completeness(words: list[str], added: list[float]) -> float:
    """How complete a line's marks are: its words with marks of their own after them (the input's), over
    those and the marks the model expects still missing (per word without, ``added``: the probability of its
    labels that add a mark, summed); 0 for a line with no mark."""
    marked = [bool(split_edges(w)[2]) for w in words]
    given = sum(marked)
    return given / (given + sum(p for m, p in zip(marked, added) if not m)) if given else 0.0


def opens_and_closes(words: list[str]) -> bool:
    """Whether a line opens with a capital (its first word with a letter) and ends with a sentence mark."""
    first = next((split_edges(w)[1] for w in words if any(ch.isalpha() for ch in w)), "")
    return bool(words) and first[:1].isupper() and ends_sentence(split_edges(words[-1])[2])


def written(words: list[str], added: list[float], threshold: float) -> bool:
    """Whether a line reads as its writer's finished text: it opens and closes as a sentence does
    (``opens_and_closes``) and its marks are at least ``threshold`` complete (``completeness``). Restored text
    does; a transcript given 30% or 70% of its marks seldom both opens and closes a sentence, and a sentence
    whose commas were left out (``milk eggs and bread``) is not complete (``utils/report/written_report.py``)."""
    return opens_and_closes(words) and completeness(words, added) >= threshold


def added_mark_probability(punct_p: np.ndarray, at: LabelColumns) -> np.ndarray:
    """Per word, the probability that a mark is added: every punctuation label but ``$KEEP`` and ``$DELETE``
    (read from those two columns, not summed over a copy of all the others)."""
    return 1 - punct_p[:, at.punct_keep] - (punct_p[:, at.delete] if at.delete is not None else 0)


def likeliest_marks(marks: dict[str, np.ndarray]) -> list[str]:
    """Per word, its likeliest sentence mark from each mark's probability (``_summed`` over its
    ``sentence_mark_columns``); the first of equals in . ? ! order."""
    sums = {mark: p.tolist() for mark, p in marks.items()}
    return [max(sums, key=lambda mark: sums[mark][k]) for k in range(len(sums["."]))]


def _summed(p: np.ndarray, columns: list[int]) -> np.ndarray:
    """Per row, the probabilities of ``columns`` added up."""
    return p[:, columns].sum(-1) if columns else np.zeros(len(p), dtype=np.float32)


def _row_labels(index: np.ndarray, labels: list[str]) -> list[tuple[str, ...]]:
    """Per row of label columns (a word's, one per mark context), the labels' names: one tuple per distinct
    row (a row read as one number in base ``len(labels)``, whose distinct values are few)."""
    places = len(labels) ** np.arange(index.shape[-1], dtype=np.int64)
    codes, inverse = np.unique((index * places).sum(-1), return_inverse=True)
    named = [tuple(labels[code // place % len(labels)] for place in places.tolist()) for code in codes.tolist()]
    return [named[i] for i in inverse.tolist()]


class LabelColumns(NamedTuple):
    """Where the labels decoding reads sit among a label set's columns (``label_columns``)."""

    punct_keep: int
    case_keep: int
    incorrect: int
    delete: int | None
    open: dict[str, list[int]]  # ``open_columns`` with punc on
    sentence_marks: dict[str, list[int]]
    closing: list[int]
    question_opening: list[int]
    exclamation_opening: list[int]


@lru_cache(maxsize=64)
def label_columns(punct: tuple[str, ...], case: tuple[str, ...], detect: tuple[str, ...]) -> LabelColumns:
    """The ``LabelColumns`` of the heads' label names, worked out once per label set (a stream asks for every
    update, and parsing every label each time cost as much as decoding a short line)."""
    names = {PUNCT_HEAD.name: list(punct), CASE_HEAD.name: list(case)}
    return LabelColumns(punct.index(KEEP), case.index(KEEP), detect.index("INCORRECT"),
                        punct.index(DELETE) if DELETE in punct else None, open_columns(names, frozenset({"punc"})),
                        sentence_mark_columns(list(punct)), closing_columns(list(punct)),
                        opening_columns(list(punct), INVERTED_QUESTION),
                        opening_columns(list(punct), INVERTED_EXCLAMATION))


def line_evidence(word_lines: list[list[str]], probabilities: Probabilities, names: dict[str, list[str]],
                  tasks: frozenset[str], config: DecodeConfig) -> list[Evidence]:
    """Per line, what the probabilities say of its words (``decoded_line.Evidence``): each word's likeliest
    labels (``likeliest``: GECToR's ``additional_confidence`` added to the punctuation head's ``$KEEP``,
    ``case_bias`` to the case head's, ``min_error_probability`` the bar; ``$KEEP`` throughout a line whose marks
    read as written: ``written``) and the probabilities the rules read."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    punct_p, case_p = probabilities[PUNCT_HEAD.name], probabilities[CASE_HEAD.name]
    at = label_columns(tuple(punct_names), tuple(case_names), tuple(names[DETECT_HEAD.name]))
    threshold, columns = config.min_error_probability, at.open if "punc" in tasks else {}
    labels = [punct_names[j] for j in likeliest(punct_p, at.punct_keep, config.additional_confidence,
                                                 columns.get(PUNCT_HEAD.name, []), threshold).tolist()]
    case_labels = _row_labels(likeliest(case_p, at.case_keep, config.case_bias, columns.get(CASE_HEAD.name, []),
                                        threshold), case_names)
    bounds = [0]
    for words in word_lines:
        bounds.append(bounds[-1] + len(words))
    if PUNCT_HEAD.name in columns:
        added = added_mark_probability(punct_p, at).tolist()
        for words, start, end in zip(word_lines, bounds, bounds[1:]):
            if written(words, added[start:end], config.written):  # the writer's: the tagger adds no mark
                labels[start:end] = [KEEP] * (end - start)
    error = probabilities[DETECT_HEAD.name][:, at.incorrect].tolist()
    delete = punct_p[:, at.delete].tolist() if at.delete is not None else None
    marks = {mark: _summed(punct_p, cols) for mark, cols in at.sentence_marks.items()}
    sentence_end = _summed(punct_p, at.closing).tolist()
    exclaim, asking = marks["!"].tolist(), marks["?"].tolist()
    opening, exclaim_opening = (_summed(punct_p, at.question_opening).tolist(),
                                _summed(punct_p, at.exclamation_opening).tolist())
    last = np.array([end - 1 for start, end in zip(bounds, bounds[1:]) if end > start], dtype=np.int64)
    last_marks = iter(likeliest_marks({mark: sums[last] for mark, sums in marks.items()}))
    return [Evidence(labels[start:end], case_labels[start:end], error[start:end],
                     delete[start:end] if delete is not None else None, sentence_end[start:end],
                     exclaim[start:end], opening[start:end], asking[start:end], exclaim_opening[start:end],
                     next(last_marks) if end > start else ".")
            for start, end in zip(bounds, bounds[1:])]


def decode_lines(word_lines: list[list[str]], probabilities: Probabilities, names: dict[str, list[str]],
                 tasks: frozenset[str], config: DecodeConfig, case_forms: CaseForms | None = None,
                 whole: bool = False, deletions: list[list[bool]] | None = None,
                 given: list[list[Tag]] | None = None, opens: bool = False,
                 rules: tuple[Callable[[Line], Line], ...] | None = None) -> list[list[Tag]]:
    """Each line's tags: its ``line_evidence`` through ``rules`` (default ``line_rules.LINE_RULES``,
    ``WORD_RULES`` alone without ``punc``; ``utils/report/rule_ablation.py`` leaves one out). ``whole``: each line
    is a whole utterance (``close_utterance``); ``opens``: each line begins one (``open_utterance``: a
    stream's window at an utterance's start); ``deletions`` (per line, per word): which words go, whatever
    the tasks; ``given`` (per line): the tags of its first words, kept."""
    reading = Reading(tasks, config, case_forms, whole, opens)
    if rules is None:
        rules = LINE_RULES if "punc" in tasks else WORD_RULES
    evidence = line_evidence(word_lines, probabilities, names, tasks, config)
    return [decide(Line.start(words, evidence[n], reading, given[n] if given else None,
                              deletions[n] if deletions is not None else None), rules).tags
            for n, words in enumerate(word_lines)]
