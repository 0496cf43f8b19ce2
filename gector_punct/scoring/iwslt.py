"""The IWSLT token<TAB>LABEL format, read at scoring time (``metrics``) and by the data builders alike.

``read_tsv(path) -> list[(token, label)]``: IWSLT-style ``token<TAB>LABEL`` files (LABEL: the class of the
mark after the token: O, COMMA, PERIOD, QUESTION, ...). Lines with an empty token (dev2012 has ten) are
dropped, their label moving to the token before when it is stronger than O; so are tokens made only of
marks (``--``); known mojibake (``â€™`` for ', ``â™?`` for ♫) is mended. Errors name file and line.
``LABEL_MARKS``: each LABEL -> the mark it stands for ('' for O).
"""
from __future__ import annotations

from gector_punct.text.files import InputError, read_lines
from gector_punct.text.tags import split_edges

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
