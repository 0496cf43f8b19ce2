"""Per-word confidence: the probability that a word's restored form (the marks before and after it, its
case, whether it stays) is what an editor would write, and which words an editor should look at.

In: lines of units as the tagger read them, the heads' probabilities of those units
(``decoding.Probabilities``, rows one line after the other), the label names per head and each unit's
decided ``Tag``. ``unit_features`` -> per unit, the ``FEATURES`` (log-odds of what the heads said of the
decision taken; for an ensemble, also what its least and surest members said and whether they disagree,
``decoding.member_tables``; and how near the unit is to its line's edge); ``Calibration.confidence(features)`` -> per unit, a probability, from a logistic model
fitted on dev data (``utils/report/fit_confidence.py``: fitted on one dev part, measured on another) and
kept in the model folder's ``confidence.json`` (``read_calibration`` / ``write_calibration``, its only
reader and writer). A folder without one gets ``Calibration.uncalibrated()``: the product of the
punctuation and case probabilities, said to be uncalibrated.

A written word of several units (a Chinese word's characters) is right when all of them are: its confidence
is the product of theirs (``restored.restored_word``). ``Calibration.review_threshold(share)``: the confidence
below which the least confident ``share`` of the dev words fell, so that the words flagged for review are
decided word by word (a stream's and a batch's alike), about ``share`` of them on text like the dev's.
Nothing here imports torch.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.prediction.decoding import label_columns, member_tables
from gector_punct.text.files import atomic_write
from gector_punct.text.sentences import ends_sentence, trails_off
from gector_punct.text.tags import START_CONTEXT, Tag, mark_context
from gector_punct.text.units import narrow_marks, split_edges

CALIBRATION_FILE = "confidence.json"
FORMAT = "gector-punct-confidence/4"
# Per unit, log-odds of probabilities the heads gave (clipped to [EPS, 1 - EPS]).
FEATURES = (
    "punct",  # the punctuation head's probability of the label decided (a rule's choice included)
    "case",  # the case head's probability of the case label decided, after the mark the word before got
    "correct",  # the detection head's probability that the word needs no edit
    "boundary_before",  # how sure the word before is of ending a sentence or not, as decided (its capital)
    "boundary",  # how sure this word is of ending a sentence or not, as decided
    "top",  # the punctuation head's largest probability
    "second",  # and its second largest
    "comma",  # its labels that end with a comma, together
    "period",  # its labels that end with a period, together
    "last",  # 1 for a line's last unit (a whole utterance's gets a closing mark), else 0: not a log-odds
    # An ensemble's members (decoding.member_tables; one model: its own heads, so these repeat the above):
    "punct_low",  # the least sure member's probability of the punctuation label decided
    "punct_high",  # the surest member's
    "case_low",  # the least sure member's probability of the case label decided
    "members_split",  # 1 where the members' likeliest punctuation labels differ, else 0: not a log-odds
    "boundary_spread",  # how far apart the members' sentence-end probabilities are (max - min): not a log-odds
    "edge",  # log(1 + the words between the unit and its line's nearer end): its context on the thin side
)
PLAIN = ("last", "members_split", "boundary_spread", "edge")  # the features that are not log-odds
# The kind of decision taken on a unit: each has its own logistic model over the features (a comma the
# model is 80% sure of is wrong more often than a bare word it is 80% sure of).
KINDS = ("keep", "comma", "period", "question", "other", "delete")
EPS = 1e-4


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), EPS, 1 - EPS)
    return np.log(p) - np.log1p(-p)


@lru_cache(maxsize=4096)  # few distinct tags
def decision_kind(tag: Tag) -> int:
    """The index in ``KINDS`` of a unit's decided tag."""
    marks = narrow_marks(tag.append)
    if tag.deletes:
        return KINDS.index("delete")
    if not marks and not tag.prepend and not tag.acronym:
        return KINDS.index("keep")
    last = marks[-1:]
    return KINDS.index({",": "comma", ".": "period", "?": "question"}.get(last, "other"))


@lru_cache(maxsize=64)
def _comma_columns(punct_names: tuple[str, ...]) -> list[int]:
    """The punctuation labels whose appended marks end with a comma, worked out once per label set."""
    return [j for j, name in enumerate(punct_names) if narrow_marks(Tag.parse(name).append).endswith(",")]


def _decisions(word_lines: list[list[str]], tags: list[list[Tag]]) -> tuple[list[Tag], list[int], list[bool]]:
    """Per unit, one line after the other: its tag, the mark context its word before gives it (as written),
    whether it closes a sentence (its own marks or the appended ones; an ellipsis trails off, as
    ``decoding.closing_columns`` reads the labels)."""
    flat, contexts, ends = [], [], []
    for words, line_tags in zip(word_lines, tags):
        context = START_CONTEXT
        for word, tag in zip(words, line_tags):
            flat.append(tag)
            contexts.append(context)
            marks = narrow_marks(split_edges(word)[2] + tag.append)
            ends.append(not tag.deletes and ends_sentence(marks) and not trails_off(marks))
            if not tag.deletes:
                context = mark_context(tag.apply(word))
    return flat, contexts, ends


AT = {name: k for k, name in enumerate(FEATURES)}  # a feature's column


def unit_features(word_lines: list[list[str]], probabilities: dict[str, np.ndarray], names: dict[str, list[str]],
                  tags: list[list[Tag]]) -> list[np.ndarray]:
    """Per line, a units x (``FEATURES`` + 1) array: the features of each unit's decided tag, then its
    ``decision_kind``. A label the model does not have (a rule's combination) counts as improbable. The label
    columns are decoding's (``decoding.label_columns``: what closes a sentence, what ends with a period)."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    at = label_columns(tuple(punct_names), tuple(case_names), tuple(names[DETECT_HEAD.name]))
    punct_at = {name: j for j, name in enumerate(punct_names)}
    case_at = {name: j for j, name in enumerate(case_names)}
    punct_m, case_m = member_tables(probabilities, PUNCT_HEAD.name), member_tables(probabilities, CASE_HEAD.name)
    punct_p = probabilities[PUNCT_HEAD.name]
    flat, contexts, ends = _decisions(word_lines, tags)
    n = len(flat)
    rows = np.arange(n)
    punct_cols = np.array([punct_at.get(tag.punct, -1) for tag in flat], dtype=np.int64)
    case_cols = np.array([case_at.get(tag.case, at.case_keep) for tag in flat], dtype=np.int64)
    # Per member, then their mean (the probabilities decoded): a label no model has counts as improbable.
    m_punct = np.where(punct_cols >= 0, punct_m[:, rows, np.maximum(punct_cols, 0)], 0.0)
    m_case = case_m[:, rows, np.array(contexts, dtype=np.int64), case_cols]
    m_closing = punct_m[..., at.closing].sum(-1)
    closing = punct_p[:, at.closing].sum(-1)
    boundary = np.where(np.array(ends, dtype=bool), closing, 1 - closing)
    top_two = np.partition(punct_p, -2, axis=-1)[:, -2:] if n else np.zeros((0, 2))
    argmax = punct_m.argmax(-1) if n else np.zeros((len(punct_m), 0), dtype=np.int64)
    columns = {"punct": m_punct.mean(0), "case": m_case.mean(0),
               "correct": 1 - probabilities[DETECT_HEAD.name][:, at.incorrect],
               "boundary": boundary, "top": top_two[:, 1], "second": top_two[:, 0],
               "comma": punct_p[:, _comma_columns(tuple(punct_names))].sum(-1),
               "period": punct_p[:, at.sentence_marks["."]].sum(-1),
               "punct_low": m_punct.min(0), "punct_high": m_punct.max(0), "case_low": m_case.min(0),
               "members_split": (argmax != argmax[:1]).any(0), "boundary_spread": np.ptp(m_closing, axis=0)}
    features = np.zeros((n, len(FEATURES) + 1))
    for name, values in columns.items():
        features[:, AT[name]] = values if name in PLAIN else _logit(values)
    features[:, -1] = [decision_kind(tag) for tag in flat]
    out, start = [], 0
    for words in word_lines:
        part = features[start: start + len(words)]
        if len(words):  # the word before's boundary (a line's first word has none: sure); the line's last unit
            part[:, AT["boundary_before"]] = np.concatenate([[_logit(1.0)], part[:-1, AT["boundary"]]])
            part[-1, AT["last"]] = 1.0
            k = np.arange(len(words))
            part[:, AT["edge"]] = np.log1p(np.minimum(k, len(words) - 1 - k))
        out.append(part)
        start += len(words)
    return out


@dataclass(frozen=True)
class Calibration:
    """Per decision kind (``KINDS``), a logistic model over ``FEATURES`` (``weights[kind]``: one weight per
    feature, then the bias) -> the probability that a unit is right; ``review_thresholds``: the confidence
    at each hundredth of the dev words, least confident first (101 values); ``measured``: what the fit
    measured on its held-out dev part (for the model card); ``calibrated``: False for the fallback of a
    folder without ``confidence.json``."""

    weights: tuple[tuple[float, ...], ...]
    review_thresholds: tuple[float, ...]
    measured: dict
    calibrated: bool = True

    @classmethod
    def uncalibrated(cls) -> Calibration:
        """The punctuation and case probabilities multiplied, flagged as uncalibrated; review below 0.5."""
        return cls((), (0.5,) * 101, {}, calibrated=False)

    def confidence(self, features: np.ndarray) -> np.ndarray:
        """Per unit (a row of ``unit_features``), the probability that it is right."""
        if not self.calibrated:
            return (1 / (1 + np.exp(-features[:, :2]))).prod(-1)
        table = np.asarray(self.weights, dtype=np.float64)[features[:, -1].astype(np.int64)]
        z = (features[:, :-1] * table[:, :-1]).sum(-1) + table[:, -1]
        return 1 / (1 + np.exp(-z))

    def review_threshold(self, share: float) -> float:
        """The confidence below which a word is flagged for review: ``share`` of the dev words fell below it."""
        if share <= 0:
            return 0.0
        if share >= 1:
            return 1.0 + 1e-9
        return float(np.interp(share, np.linspace(0, 1, len(self.review_thresholds)), self.review_thresholds))


def read_calibration(folder: str) -> Calibration:
    """A model folder's ``confidence.json``, or ``Calibration.uncalibrated()`` where it has none."""
    path = os.path.join(folder, CALIBRATION_FILE)
    if not os.path.isfile(path):
        return Calibration.uncalibrated()
    problem = f"{path}: not a {FORMAT} file over features {list(FEATURES)} (utils/report/fit_confidence.py writes one)"
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        if raw.get("format") != FORMAT or list(raw.get("features", [])) != list(FEATURES):
            raise ValueError(problem)
        weights = tuple(tuple(float(w) for w in raw["weights"][kind]) for kind in KINDS)
        thresholds = tuple(float(t) for t in raw["review_thresholds"])
    except (KeyError, TypeError, AttributeError, UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(problem) from None
    if any(len(w) != len(FEATURES) + 1 for w in weights) or len(thresholds) < 2 or list(thresholds) != sorted(thresholds):
        raise ValueError(problem)
    return Calibration(weights, thresholds, raw.get("measured", {}))


def write_calibration(folder: str, calibration: Calibration) -> None:
    values = {"format": FORMAT, "features": list(FEATURES),
              "weights": {kind: list(w) for kind, w in zip(KINDS, calibration.weights)},
              "review_thresholds": list(calibration.review_thresholds), "measured": calibration.measured}
    with atomic_write(os.path.join(folder, CALIBRATION_FILE)) as f:
        f.write(json.dumps(values, indent=2) + "\n")
