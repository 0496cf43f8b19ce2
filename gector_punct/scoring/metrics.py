"""Precision / recall / F1 as punctuation papers report them. Used by ``utils/evaluate.py`` and ``train.py``.

Input: two aligned lists of ``WordLabel`` (reference, prediction), one per word of the same source words.
A ``WordLabel`` says which punctuation class follows the word (``O`` for none), the word's case class
(``LOWER``, ``CAPITAL``, ``UPPER``, ``MIXED``; None when the reference has no case) and whether a sentence
ends after it. Output of ``score``: a dict with, per group (``punct``, ``case``, ``boundary``), per-class
precision / recall / F1 / support and their micro-average; ``punct`` averages only the classes asked for
(IWSLT: COMMA, PERIOD, QUESTION), ``case`` the non-lower classes. ``format_report`` prints it as a table in
the style of scikit-learn's ``classification_report``.
"""
from __future__ import annotations

from dataclasses import dataclass

from sklearn.metrics import precision_recall_fscore_support

from gector_punct.scoring.iwslt import IWSLT_CLASSES, IWSLT_MAP, label_class, label_ends_sentence, read_tsv  # noqa: F401
from gector_punct.text.files import InputError, read_all_lines
from gector_punct.text.sentences import ends_sentence, undotted
from gector_punct.text.tags import CAPITAL, KEEP, LOWER, UPPER, case_tag, looks_cased
from gector_punct.text.typography import attach_spaced_marks
from gector_punct.text.units import split_edges
from gector_punct.text.units import split_units


def case_class(word: str) -> str:
    """Word-level case class of a written word: LOWER, CAPITAL, UPPER or MIXED."""
    core = split_edges(word)[1]
    tag = case_tag(core.lower(), core)
    if tag in (KEEP, LOWER):
        return "LOWER"
    return {CAPITAL: "CAPITAL", UPPER: "UPPER"}.get(tag, "MIXED")


@dataclass(frozen=True)
class WordLabel:
    punct: str
    case: str | None
    boundary: bool


def punct_class(marks: str, mapping: dict[str, str]) -> str:
    """The class of the marks after a word: the first mark the mapping knows (quotes, brackets pass)."""
    for ch in marks:
        if ch in mapping:
            return mapping[ch]
    return "O"


def labels_from_words(words: list[str], cased: bool, mapping: dict[str, str] = IWSLT_MAP) -> list[WordLabel]:
    """Per written word, its label. Marks are scored as written (``Mr.`` has a PERIOD and a boundary after
    it), not by ``sentences.ends_sentence_after``, whose rule asks the next word's case: a reference and a
    restoration need not share it (an uncased reference), and they must be read alike."""
    out = []
    for word in words:
        trail = split_edges(word)[2]
        out.append(WordLabel(punct_class(trail, mapping), case_class(word) if cased else None,
                             ends_sentence(trail)))
    return out


def _core(word: str) -> str:
    """What a reference word and its restored form share: the core, lower-case, a dotted acronym undotted
    (``U.S.`` and ``US`` are one word: ``$ACRONYM`` writes the dots)."""
    return undotted(split_edges(word)[1]).lower()


def labels_from_files(reference: str, prediction: str, mapping: dict[str, str] = IWSLT_MAP,
                      cased: bool | None = None) -> tuple[list[WordLabel], list[WordLabel]]:
    """Read a reference (punctuated text, or ``token<TAB>LABEL``) and a prediction (text) over the same
    words; raise ``InputError`` naming the line (or token) where their words part."""
    pred_lines = read_all_lines(prediction)
    first = read_all_lines(reference)[:50]
    if first and all("\t" in line for line in first if line.strip()):
        pairs = read_tsv(reference)
        pred_words = [w for line in pred_lines for w in scored_words(line)]
        for k, ((token, _), word) in enumerate(zip(pairs, pred_words)):
            if _core(token) != _core(word):
                raise InputError(f"{prediction}: word {k + 1} is {word!r} but {reference} has {token!r}")
        if len(pairs) != len(pred_words):
            raise InputError(f"{reference} has {len(pairs)} tokens, {prediction} {len(pred_words)} words")
        ref = [WordLabel(label_class(label, mapping), None, label_ends_sentence(label)) for _, label in pairs]
        return ref, labels_from_words(pred_words, False, mapping)
    ref_lines = read_all_lines(reference)
    if len(ref_lines) != len(pred_lines):
        raise InputError(f"{reference} has {len(ref_lines)} lines, {prediction} {len(pred_lines)}")
    cased = looks_cased(ref_lines) if cased is None else cased
    ref, pred = [], []
    for number, (r, p) in enumerate(zip(ref_lines, pred_lines), start=1):
        r_words, p_words = scored_words(r), scored_words(p)
        if [_core(w) for w in r_words] != [_core(w) for w in p_words]:
            raise InputError(f"{reference}:{number} and {prediction}:{number} have different words")
        ref.extend(labels_from_words(r_words, cased, mapping))
        pred.extend(labels_from_words(p_words, cased, mapping))
    return ref, pred


def given_marks(source: str, mapping: dict[str, str] = IWSLT_MAP) -> list[tuple[bool, bool]]:
    """Per word of a partly punctuated input file: (it already has a scored mark after it, it already has an
    upper-case letter). Words of a marks-only token count with the word before them."""
    out = []
    for line in read_all_lines(source):
        for word in scored_words(line):
            core = split_edges(word)[1]
            out.append((punct_class(split_edges(word)[2], mapping) != "O", core != core.lower()))
    return out


def added_only(reference: list[WordLabel], prediction: list[WordLabel],
               given: list[tuple[bool, bool]]) -> tuple[list[WordLabel], list[WordLabel]]:
    """The labels that restoration had to add: punctuation of the words whose input had no scored mark,
    case of the words whose input had no capital (a given one is the reference's own, scored as None)."""
    if len(given) != len(reference):
        raise InputError(f"the given input has {len(given)} words, the reference {len(reference)}")
    ref, pred = [], []
    for r, p, (has_mark, has_case) in zip(reference, prediction, given):
        if has_mark:
            continue
        ref.append(WordLabel(r.punct, None if has_case else r.case, r.boundary))
        pred.append(WordLabel(p.punct, None if has_case else p.case, p.boundary))
    return ref, pred


def scored_words(line: str) -> list[str]:
    """A reference's or a prediction's line as the words scored: marks standing alone belong to a word, as
    they are typed (``York , USA``) and as French is set (``viens\u00a0?``, ``«\u00a0Bonjour``:
    ``typography.attach_spaced_marks``); any other unit of marks alone to the word before it."""
    out: list[str] = []
    for word in attach_spaced_marks(split_units(line))[0]:
        if not split_edges(word)[1] and out:
            out[-1] += word
        else:
            out.append(word)
    return out


def _group(ref: list[str], pred: list[str], classes: list[str]) -> dict:
    result: dict = {}
    if not ref:
        return result
    p, r, f, s = precision_recall_fscore_support(ref, pred, labels=classes, average=None, zero_division=0)
    for i, name in enumerate(classes):
        result[name] = {"precision": 100 * p[i], "recall": 100 * r[i], "f1": 100 * f[i], "support": int(s[i])}
    p, r, f, _ = precision_recall_fscore_support(ref, pred, labels=classes, average="micro", zero_division=0)
    result["overall"] = {"precision": 100 * p, "recall": 100 * r, "f1": 100 * f,
                         "support": sum(result[c]["support"] for c in classes)}
    return result


def score(reference: list[WordLabel], prediction: list[WordLabel], classes: tuple[str, ...] = IWSLT_CLASSES) -> dict:
    if len(reference) != len(prediction):
        raise ValueError(f"reference has {len(reference)} words, prediction {len(prediction)}")
    result = {"words": len(reference),
              "punct": _group([w.punct for w in reference], [w.punct for w in prediction], list(classes))}
    known = [(r.case, p.case) for r, p in zip(reference, prediction) if r.case is not None]
    if known:
        result["case"] = _group([r for r, _ in known], [p or "LOWER" for _, p in known], ["CAPITAL", "UPPER", "MIXED"])
    result["boundary"] = _group([str(w.boundary) for w in reference], [str(w.boundary) for w in prediction], ["True"])
    result["boundary"]["BOUNDARY"] = result["boundary"].pop("True")
    return result


def deletion_prf(gold: list[bool], pred: list[bool]) -> dict:
    """Per-word deletion flags (True: delete) -> precision, recall, F1 of the deleted words in percent (0.0
    where a ratio has no denominator), and the counts tp, fp, fn."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold flags, {len(pred)} predicted")
    tp = sum(g and p for g, p in zip(gold, pred))
    fp = sum(p and not g for g, p in zip(gold, pred))
    fn = sum(g and not p for g, p in zip(gold, pred))
    precision = 100.0 * tp / (tp + fp) if tp + fp else 0.0
    recall = 100.0 * tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def selection_f1(result: dict) -> float:
    """The one number training selects checkpoints by: punctuation F1, averaged with case F1 when known and
    with deletion F1 when scored (a dev set of the disf task; one without marks scores deletion alone); of
    several dev sets (``sets``), the mean of theirs."""
    if "sets" in result:
        return sum(map(selection_f1, result["sets"].values())) / len(result["sets"])
    values = []
    if result["punct"]["overall"]["support"] or "deletion" not in result:
        values.append(result["punct"]["overall"]["f1"])
    if "case" in result and result["case"]["overall"]["support"]:
        values.append(result["case"]["overall"]["f1"])
    if "deletion" in result:
        values.append(result["deletion"]["f1"])
    return sum(values) / len(values)


def format_report(result: dict) -> str:
    lines = [f"{'':>14} {'precision':>9} {'recall':>9} {'f1':>9} {'support':>9}"]
    for group in ("punct", "case", "boundary"):
        if group not in result:
            continue
        lines.append(f"[{group}]")
        for name, row in result[group].items():
            if name == "overall" and len(result[group]) == 2:
                continue  # one class: its average is itself
            label = "micro avg" if name == "overall" else name
            lines.append(f"{label:>14} {row['precision']:9.1f} {row['recall']:9.1f} {row['f1']:9.1f} {row['support']:9d}")
    lines.append(f"words: {result['words']}")
    return "\n".join(lines)
