"""Label vocabularies, stored in AllenNLP's directory format.

A ``Vocabulary`` maps labels to indices per *namespace*: ``labels`` (punctuation / deletion edits),
``case_tags`` (case edits) and ``d_tags`` (detection: CORRECT / INCORRECT). ``save(dir)`` writes
``<namespace>.txt`` (one label per line, in index order) and ``non_padded_namespaces.txt``; ``load(dir)``
reads them back. All namespaces here are non-padded, as in GECToR (``*tags``, ``*labels``), so index 0 is a
real label. A label that is not in the vocabulary has no index: ``index()`` returns ``IGNORE`` (-100), which
the losses skip.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable

from .io import atomic_write, read_all_lines
from .tags import CASE_UNKNOWN, KEEP, Tag

IGNORE = -100
NAMESPACES = ("labels", "case_tags", "d_tags")
D_TAGS = ["CORRECT", "INCORRECT"]


class Vocabulary:
    def __init__(self, namespaces: dict[str, list[str]]):
        self._tokens = {ns: list(tokens) for ns, tokens in namespaces.items()}
        self._index = {ns: {t: i for i, t in enumerate(tokens)} for ns, tokens in self._tokens.items()}

    @classmethod
    def from_tags(cls, tag_lists: Iterable[list[Tag]], min_count: int = 1) -> "Vocabulary":
        """Build from the data: every label seen ``min_count`` times or more; ``$KEEP`` always first."""
        punct, case = Counter(), Counter()
        for tags in tag_lists:
            for tag in tags:
                punct[tag.punct] += 1
                if tag.case != CASE_UNKNOWN:
                    case[tag.case] += 1

        def ordered(counter: Counter) -> list[str]:
            kept = [t for t, n in counter.most_common() if n >= min_count and t != KEEP]
            return [KEEP] + kept

        return cls({"labels": ordered(punct), "case_tags": ordered(case), "d_tags": list(D_TAGS)})

    def tokens(self, namespace: str) -> list[str]:
        return self._tokens[namespace]

    def size(self, namespace: str) -> int:
        return len(self._tokens[namespace])

    def index(self, namespace: str, token: str) -> int:
        return self._index[namespace].get(token, IGNORE)

    def token(self, namespace: str, index: int) -> str:
        return self._tokens[namespace][index]

    def encode_tag(self, tag: Tag) -> tuple[int, int, int]:
        """(label, case, detection) indices of one word's tag; IGNORE where unknown."""
        label = self.index("labels", tag.punct)
        case = IGNORE if tag.case == CASE_UNKNOWN else self.index("case_tags", tag.case)
        if tag.punct != KEEP or tag.case not in (KEEP, CASE_UNKNOWN):
            detect = 1
        elif tag.case == CASE_UNKNOWN:
            detect = IGNORE  # the word may still need a case change we were not told about
        else:
            detect = 0
        return label, case, detect

    def save(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        for namespace, tokens in self._tokens.items():
            with atomic_write(os.path.join(directory, f"{namespace}.txt")) as out:
                out.writelines(t + "\n" for t in tokens)
        with atomic_write(os.path.join(directory, "non_padded_namespaces.txt")) as out:
            out.write("*tags\n*labels\n")

    @classmethod
    def load(cls, directory: str) -> "Vocabulary":
        namespaces = {}
        for namespace in NAMESPACES:
            path = os.path.join(directory, f"{namespace}.txt")
            if os.path.exists(path):
                namespaces[namespace] = read_all_lines(path)
        if "labels" not in namespaces:
            raise FileNotFoundError(f"{directory}: no labels.txt (not a vocabulary folder)")
        namespaces.setdefault("case_tags", [KEEP])
        namespaces.setdefault("d_tags", list(D_TAGS))
        return cls(namespaces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self._tokens == other._tokens
