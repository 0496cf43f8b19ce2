#!/usr/bin/env python
"""Why a model writes what it writes: each word of each input line with its likeliest punctuation labels and
their probabilities, and the tags decoding chose (the rules included), one word per row:

    echo "okay let's get started first item on the agenda" | python utils/report/word_labels.py --input_file -

Lines are read as predict.py reads them (--fragments, --existing); --top says how many labels per word.
The case head's labels are shown for the mark context the decided tags give the word (``tags.mark_context``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gector_punct.model.vocabulary import CASE_HEAD, PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import read_all_lines
from gector_punct.text.existing import prepare_spaced
from gector_punct.text.tags import START_CONTEXT, mark_context, written_forms
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class WordLabelsFlags(Settings):
    input_file: str = flag(help="lines to explain (- reads stdin)")
    top: int = flag(3, "labels shown per word and head", min=1)


def likeliest(row: np.ndarray, names: list[str], top: int) -> str:
    order = np.argsort(-row, kind="stable")[:top]
    return "  ".join(f"{names[j]} {row[j]:.3f}" for j in order)


def explain(punctuator, words: list[str], top: int) -> list[str]:
    """One row per word: the word, the tag decided, and each head's likeliest labels."""
    probabilities = punctuator.probabilities([words])
    tags = punctuator.decode([words], probabilities, whole=not punctuator.fragments)[0]
    names, forms = punctuator.names, written_forms(words, tags)
    rows = []
    for k, (word, tag) in enumerate(zip(words, tags)):
        context = mark_context(forms[k - 1] or "") if k else START_CONTEXT
        punct = likeliest(probabilities[PUNCT_HEAD.name][k], names[PUNCT_HEAD.name], top)
        case = likeliest(probabilities[CASE_HEAD.name][k][context], names[CASE_HEAD.name], top)
        rows.append(f"{word:20} {str(tag):36} punct: {punct}  | case: {case}")
    return rows


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, WordLabelsFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "fragments", "existing", "threads"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(WordLabelsFlags, raw), p.settings(PredictionSettings, raw)
    punctuator = load_punctuator(prediction)
    for line in read_all_lines(args.input_file):
        words = prepare_spaced(line, punctuator.existing)[0]
        print(f"# {line}")
        print("\n".join(explain(punctuator, words, args.top)) if words else "(no words)")
    return 0


if __name__ == "__main__":
    run_script(main)
