"""Disfluency deletion and punctuation, each alone, one after the other, or at once (seed 001's Table 2).

``convert(mode, first, second, word_lines) -> (forms, seconds)``: per line, per source word its written form
or None (deleted), and the seconds the taggers took (loading aside). ``first`` / ``second`` are
``Punctuator`` objects, whose tasks the mode sets:

* ``joint``       ``first`` with ``disf,punc``: one pass (zero-shot for a switching model)
* ``disf>punc``   ``first`` deletes (``disf``), ``second`` punctuates what is left (``punc``)
* ``punc>disf``   ``first`` punctuates, ``second`` deletes from the punctuated words
* ``rule>punc``   ``uh`` / ``um`` deleted by rule, then ``first`` punctuates; ``rule``: the rule alone
* ``disf`` / ``punc``  ``first`` with that task alone

Oracle modes (analysis: where a system's punctuation is lost), with ``gold`` deletions (per line, per word):

* ``gold>punc``   the gold deletions, then ``first`` punctuates what is left
* ``joint@gold``  ``first`` with ``disf,punc`` in one pass, its deletions replaced by the gold ones
* ``punc@gold``   ``first`` with ``punc`` over the disfluent words, then the gold deletions (a deleted word's
  marks move as ``alignment.resolve_deletions`` says, as in the joint mode)

``text_scores(hypotheses, references)``: corpus BLEU (sacrebleu) and GLEU (nltk's corpus_gleu, the
sentence-level BLEU variant of Wu et al. 2016) of output lines against target lines, in percent.
"""
from __future__ import annotations

import time

from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import make_source, written_forms
from gector_punct.text.tasks import parse_tasks

from .corpora.switchboard import drop_uh_um

MODES = ("joint", "disf>punc", "punc>disf", "rule>punc", "rule", "disf", "punc")
ORACLE_MODES = ("gold>punc", "joint@gold", "punc@gold")


def convert(mode: str, first: Punctuator | None, second: Punctuator | None, word_lines: list[list[str]],
            gold: list[list[bool]] | None = None) -> tuple[list[list[str | None]], float]:
    if mode not in MODES + ORACLE_MODES or (mode in ORACLE_MODES) != (gold is not None):
        raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)}; with gold deletions, one of "
                         f"{', '.join(ORACLE_MODES)})")
    started = time.perf_counter()
    if mode == "gold>punc":
        forms = _then(first, "punc", [[None if gone else w for w, gone in zip(words, deleted)]
                                      for words, deleted in zip(word_lines, gold)])
    elif mode in ("joint@gold", "punc@gold"):
        forms = _pass(first, "disf,punc" if mode == "joint@gold" else "punc", word_lines, gold)
    elif mode in ("joint", "disf", "punc"):
        forms = _pass(first, "disf,punc" if mode == "joint" else mode, word_lines)
    elif mode.startswith("rule"):
        forms = [[None if gone else w for w, gone in zip(words, drop_uh_um([make_source(w) for w in words]))]
                 for words in word_lines]
        forms = _then(first, "punc", forms) if mode == "rule>punc" else forms
    elif mode == "disf>punc":
        forms = _then(second, "punc", _pass(first, "disf", word_lines))
    else:  # punc>disf: the deleting tagger reads the punctuated words
        forms = _then(second, "disf", _pass(first, "punc", word_lines))
    return forms, time.perf_counter() - started


def _pass(punctuator: Punctuator, tasks: str, word_lines: list[list[str]],
          deletions: list[list[bool]] | None = None) -> list[list[str | None]]:
    punctuator.tasks = parse_tasks(tasks)
    tags = punctuator.predict_tags(word_lines, deletions=deletions)
    return [written_forms(words, line) for words, line in zip(word_lines, tags)]


def _then(punctuator: Punctuator, tasks: str, forms: list[list[str | None]]) -> list[list[str | None]]:
    """A second pass over the words a first pass left (``forms``), mapped back onto the source words."""
    present = [[k for k, f in enumerate(line) if f is not None] for line in forms]
    again = _pass(punctuator, tasks, [[line[k] for k in ks] for line, ks in zip(forms, present)])
    out = []
    for line, ks, new in zip(forms, present, again):
        merged: list[str | None] = [None] * len(line)
        for k, form in zip(ks, new):
            merged[k] = form
        out.append(merged)
    return out


def text_scores(hypotheses: list[str], references: list[str]) -> dict:
    try:
        import sacrebleu
        from nltk.translate.gleu_score import corpus_gleu
    except ImportError as err:
        raise ImportError(f"{err.name} is needed for BLEU / GLEU: pip install -r requirements-test.txt") from None
    bleu = sacrebleu.corpus_bleu(hypotheses, [references]).score
    gleu = 100.0 * corpus_gleu([[r.split()] for r in references], [h.split() for h in hypotheses])
    return {"bleu": bleu, "gleu": gleu}
