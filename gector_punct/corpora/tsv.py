"""Corpus formats other than source/target text pairs.

``read_tsv(path) -> list[(token, label)]``: IWSLT-style ``token<TAB>LABEL`` files (LABEL: the class of the
mark after the token: O, COMMA, PERIOD, QUESTION, ...). Lines with an empty token (dev2012 has ten) are
dropped, their label moving to the token before when it is stronger than O; so are tokens made only of
marks (``--``); known mojibake (``â€™`` for ', ``â™?`` for ♫) is mended. Errors name file and line.
``join_contractions(pairs)``: ``it 's`` -> ``it's``, ``do n't`` -> ``don't``, as ASR writes them.
``tsv_to_text(pairs, rng, min_words, max_words) -> list[(target, source)]``: the tokens as punctuated,
still lower-case text lines (and the tokens alone) cut at arbitrary points (not at sentence ends), so that a model cannot learn "end of line =
period".
"""
from __future__ import annotations

import random

from ..io import InputError, read_lines
from ..tags import ends_sentence, split_edges
from .clean import line_spans

LABEL_MARKS = {"O": "", "COMMA": ",", "PERIOD": ".", "QUESTION": "?", "EXCLAMATION": "!", "COLON": ":",
               "SEMICOLON": ";"}


def read_tsv(path: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for number, line in read_lines(path):
        if not line.strip():
            continue
        token, sep, label = line.partition("\t")
        label = label.strip()
        if not sep or label not in LABEL_MARKS:
            raise InputError(f"{path}:{number}: expected 'token<TAB>LABEL' with LABEL in {sorted(LABEL_MARKS)}, got {line!r}")
        token = token.replace("â€™", "'").replace("â™?", "").strip()
        if not split_edges(token)[1]:
            if pairs and label != "O" and pairs[-1][1] == "O":
                pairs[-1] = (pairs[-1][0], label)
            continue
        pairs.append((token, label))
    if not pairs:
        raise InputError(f"{path}: no tokens")
    return pairs


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
    ends = [ends_sentence(LABEL_MARKS[label]) for _, label in pairs]
    lines = []
    for a, b in line_spans(ends, rng, min_words, max_words, whole):
        chunk = pairs[a:b]
        lines.append((" ".join(tok + LABEL_MARKS[label] for tok, label in chunk), " ".join(tok for tok, _ in chunk)))
    return lines
