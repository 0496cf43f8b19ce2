"""The IWSLT token<TAB>LABEL format and its classes, read at scoring time (``metrics``) and by the data builders.

``read_tsv(path) -> list[(token, label)]``: IWSLT-style ``token<TAB>LABEL`` files (LABEL: the class of the
mark after the token: O, COMMA, PERIOD, QUESTION, ...). Lines with an empty token (dev2012 has ten) are
dropped, their label moving to the token before when it is stronger than O; so are tokens made only of
marks (``--``); known mojibake (``â€™`` for ', ``â™?`` for ♫) is mended. Errors name file and line.

One table, ``LABELS`` (each label a file may carry and the mark it stands for), gives both directions:
``LABEL_MARKS`` (label -> mark, '' for O: how the data builders write a label) and ``IWSLT_MAP`` (mark ->
scored class: how a written mark is scored). Scoring follows the IWSLT convention of Che et al. (2016), as
punctuator2's ``PUNCTUATION_MAPPING`` applies it: three classes (``IWSLT_CLASSES``), ``!`` and ``;`` scored as
PERIOD, ``:`` and dashes as COMMA (``SCORED_AS``); an ellipsis counts as PERIOD, and a full-width mark as its
ASCII form (``units.TO_ASCII``: ``，`` and ``、`` are commas). ``label_class(label)`` is a file label's scored
class, the class of the mark it stands for, so a reference read from a file and a restored text are scored
alike; ``label_ends_sentence(label)`` says whether its mark ends a sentence (``sentences.ends_sentence``).
"""
from __future__ import annotations

from gector_punct.text.files import InputError, read_lines
from gector_punct.text.sentences import ends_sentence
from gector_punct.text.units import TO_ASCII, WIDE, split_edges

LABELS = (("O", ""), ("COMMA", ","), ("PERIOD", "."), ("QUESTION", "?"), ("EXCLAMATION", "!"), ("COLON", ":"),
          ("SEMICOLON", ";"))
IWSLT_CLASSES = ("COMMA", "PERIOD", "QUESTION")
SCORED_AS = {"EXCLAMATION": "PERIOD", "SEMICOLON": "PERIOD", "COLON": "COMMA"}  # the other labels: themselves
UNLABELLED_MARKS = {"-": "COMMA", "–": "COMMA", "—": "COMMA", "…": "PERIOD"}  # marks no file label stands for

LABEL_MARKS = dict(LABELS)
IWSLT_MAP = {mark: SCORED_AS.get(label, label) for label, mark in LABELS if mark} | UNLABELLED_MARKS
IWSLT_MAP |= {wide: IWSLT_MAP[wide.translate(TO_ASCII)] for wide in WIDE + "、" if wide.translate(TO_ASCII) in IWSLT_MAP}


def label_class(label: str, mapping: dict[str, str] = IWSLT_MAP) -> str:
    """The scored class of a file's label: that of the mark it stands for under ``mapping`` (O for none)."""
    return mapping.get(LABEL_MARKS[label], "O")


def label_ends_sentence(label: str) -> bool:
    return ends_sentence(LABEL_MARKS[label])


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
