"""The decoding policy: per-word probabilities of the heads -> one ``Tag`` per word, as pure functions.

In: ``Probabilities``, a dict keyed by head name (``vocabulary.HEADS``): ``PUNCT_HEAD.name`` -> words x
punctuation labels, ``CASE_HEAD.name`` -> words x ``tags.MARK_CONTEXTS`` x case labels (one distribution
per mark context of the word before), ``DETECT_HEAD.name`` -> words x detection labels; the words of all
lines one after the other; columns in the order of ``names`` (per head name, its labels: an ensemble's are
the union of its members'). Also the tasks that are on and a ``DecodeConfig``. Out: per line, per word,
its tag. Nothing here reads a model or changes its inputs.

``decode_lines`` reads what the probabilities say of each word (``line_evidence``: the scores with
``additional_confidence`` added to the punctuation head's ``$KEEP`` and ``case_bias`` to the case head's,
a task that is off deciding nothing, ``mask_tasks_off``), then takes each line through the line rules in
their order (``line_rules.LINE_RULES``: deletion, GECToR's gate and each word's decision, then the rules
of the whole line; ``line_rules`` says what each does and where ``given`` holds).
"""
from __future__ import annotations

import torch

from gector_punct.model.config import DecodeConfig
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.prediction.line_rules import (INVERTED_QUESTION, LINE_RULES, SENTENCE_MARKS, WORD_RULES, Evidence,
                                                Line, Reading, decide)
from gector_punct.text.case_forms import CaseForms
from gector_punct.text.tags import DELETE, KEEP, Tag
from gector_punct.text.units import narrow_marks

Probabilities = dict[str, torch.Tensor]  # head name -> per-word probabilities (see the module docstring)
NO_EDIT = {PUNCT_HEAD.name: KEEP, CASE_HEAD.name: KEEP, DETECT_HEAD.name: "CORRECT"}  # per head: "leave it"


def no_edit_probabilities(names: dict[str, list[str]], n_words: int, contexts: int) -> Probabilities:
    """Probabilities of ``n_words`` words that certainly take no edit (each head's ``NO_EDIT`` label at 1)."""
    out = {}
    for head, labels in names.items():
        shape = (n_words,) + ((contexts,) if head == CASE_HEAD.name else ()) + (len(labels),)
        out[head] = torch.zeros(shape)
        out[head][..., labels.index(NO_EDIT[head])] = 1.0
    return out


def mean_probabilities(members: list[Probabilities]) -> Probabilities:
    """An ensemble's probabilities: per head, the mean of its members' (all in the same columns)."""
    return {head: sum(m[head] for m in members) / len(members) for head in members[0]}


def mask_tasks_off(punct: torch.Tensor, case: torch.Tensor, names: dict[str, list[str]],
                   tasks: frozenset[str]) -> None:
    """Rule out, in place, every decision of a task that is off: ``$DELETE`` without ``disf``; any mark and
    any case change without ``punc``."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    for j, name in enumerate(punct_names):
        off = "disf" if name == DELETE else None if name == KEEP else "punc"
        if off is not None and off not in tasks:
            punct[:, j] = -1.0
    if "punc" not in tasks:
        case[..., [j for j, name in enumerate(case_names) if name != KEEP]] = -1.0


def decision_scores(probabilities: Probabilities, names: dict[str, list[str]], tasks: frozenset[str],
                    config: DecodeConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """(punctuation, case) scores whose argmax is each kept word's decision: the probabilities with the
    ``$KEEP`` biases added, the tasks that are off masked, and ``$DELETE`` ruled out (whether a word goes is
    ``line_rules.delete_disfluencies``' decision, on the probabilities themselves)."""
    punct, case = probabilities[PUNCT_HEAD.name].clone(), probabilities[CASE_HEAD.name].clone()
    punct_names = names[PUNCT_HEAD.name]
    punct[:, punct_names.index(KEEP)] += config.additional_confidence
    case[..., names[CASE_HEAD.name].index(KEEP)] += config.case_bias
    mask_tasks_off(punct, case, names, tasks)
    if DELETE in punct_names:
        punct[:, punct_names.index(DELETE)] = -1.0
    return punct, case


def question_opening_columns(punct_names: list[str]) -> list[int]:
    """The punctuation labels that open a question with ``¿`` (``pair_questions``)."""
    return [j for j, name in enumerate(punct_names) if INVERTED_QUESTION in Tag.parse(name).prepend]


def sentence_mark_columns(punct_names: list[str]) -> dict[str, list[int]]:
    """Per sentence mark (. ? !), the punctuation labels whose appended marks end with it."""
    appended = [narrow_marks(Tag.parse(name).append) for name in punct_names]
    return {m: [j for j, a in enumerate(appended) if [c for c in a if c in SENTENCE_MARKS][-1:] == [m]]
            for m in SENTENCE_MARKS}


def end_mark(punct_p: torch.Tensor, columns: dict[str, list[int]]) -> str:
    """The likeliest sentence mark of a word from its punctuation probabilities: each mark's probability is
    the sum over its labels (``sentence_mark_columns``)."""
    return max(columns, key=lambda mark: float(punct_p[columns[mark]].sum()))


def _summed(p: torch.Tensor, columns: list[int]) -> list[float]:
    return (p[:, columns].sum(-1) if columns else torch.zeros(len(p))).tolist()


def _likeliest(scores: torch.Tensor, threshold: float, keep: int) -> list:
    """Per row (per word, per context), the index of the likeliest label, ``keep`` where its score is below
    ``threshold`` (compared in double precision, as Python floats compare)."""
    best, index = scores.max(-1)
    return torch.where(best.double() >= threshold, index, keep).tolist()


def line_evidence(word_lines: list[list[str]], probabilities: Probabilities, names: dict[str, list[str]],
                  tasks: frozenset[str], config: DecodeConfig) -> list[Evidence]:
    """Per line, what the probabilities say of its words (``line_rules.Evidence``)."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    punct_p = probabilities[PUNCT_HEAD.name]
    punct, case = decision_scores(probabilities, names, tasks, config)
    threshold = config.min_error_probability
    labels = [punct_names[j] for j in _likeliest(punct, threshold, punct_names.index(KEEP))]
    case_labels = [[case_names[j] for j in row] for row in _likeliest(case, threshold, case_names.index(KEEP))]
    error = probabilities[DETECT_HEAD.name][:, names[DETECT_HEAD.name].index("INCORRECT")].tolist()
    delete = punct_p[:, punct_names.index(DELETE)].tolist() if DELETE in punct_names else None
    ends = sentence_mark_columns(punct_names)
    sentence_end = _summed(punct_p, sorted(j for columns in ends.values() for j in columns))
    exclaim, opening = _summed(punct_p, ends["!"]), _summed(punct_p, question_opening_columns(punct_names))
    out, start = [], 0
    for words in word_lines:
        end = start + len(words)
        out.append(Evidence(labels[start:end], case_labels[start:end], error[start:end],
                            delete[start:end] if delete is not None else None, sentence_end[start:end],
                            exclaim[start:end], opening[start:end],
                            end_mark(punct_p[end - 1], ends) if words else "."))
        start = end
    return out


def decode_lines(word_lines: list[list[str]], probabilities: Probabilities, names: dict[str, list[str]],
                 tasks: frozenset[str], config: DecodeConfig, case_forms: CaseForms | None = None,
                 whole: bool = False, deletions: list[list[bool]] | None = None,
                 given: list[list[Tag]] | None = None, opens: bool = False) -> list[list[Tag]]:
    """Each line's tags: its ``line_evidence`` through ``line_rules.LINE_RULES`` (``WORD_RULES`` alone
    without ``punc``). ``whole``: each line is a whole utterance (``close_utterance``); ``opens``: each line
    begins one (``open_utterance``: a stream's window at an utterance's start); ``deletions`` (per line, per
    word): which words go, whatever the tasks; ``given`` (per line): the tags of its first words, kept."""
    reading = Reading(tasks, config, case_forms, whole, opens)
    rules = LINE_RULES if "punc" in tasks else WORD_RULES
    evidence = line_evidence(word_lines, probabilities, names, tasks, config)
    return [decide(Line.start(words, evidence[n], reading, given[n] if given else None,
                              deletions[n] if deletions is not None else None), rules).tags
            for n, words in enumerate(word_lines)]
