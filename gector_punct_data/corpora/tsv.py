"""IWSLT token<TAB>LABEL pairs (as ``gector_punct.scoring.iwslt.read_tsv`` reads them) -> training text lines.

``join_contractions(pairs)``: ``it 's`` -> ``it's``, ``do n't`` -> ``don't``, as ASR writes them
(``CLITICS``: the split-off endings joined back).
``tsv_to_text(pairs, rng, min_words, max_words) -> list[(target, source)]``: the tokens as punctuated,
still lower-case text lines (and the tokens alone) cut at arbitrary points (not at sentence ends), so that a model cannot learn "end of line =
period".
"""
from __future__ import annotations

import random

from gector_punct.scoring.iwslt import LABEL_MARKS, label_ends_sentence

from .clean import line_spans

CLITICS = {"'s", "n't", "'re", "'m", "'ll", "'ve", "'d"}


def join_contractions(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for token, label in pairs:
        if token in CLITICS and out and out[-1][1] == "O":
            out[-1] = (out[-1][0] + token, label)
        else:
            out.append((token, label))
    return out


def tsv_to_text(pairs: list[tuple[str, str]], rng: random.Random, min_words: int = 10,
                max_words: int = 60, whole: float = 0.0) -> list[tuple[str, str]]:
    """(target, source) lines: the source is the tokens as they are, the target adds the marks. Lines are
    cut as ``clean.line_spans`` cuts them (``whole``: the share cut at a sentence end)."""
    ends = [label_ends_sentence(label) for _, label in pairs]
    lines = []
    for a, b in line_spans(ends, rng, min_words, max_words, whole):
        chunk = pairs[a:b]
        lines.append((" ".join(tok + LABEL_MARKS[label] for tok, label in chunk), " ".join(tok for tok, _ in chunk)))
    return lines
