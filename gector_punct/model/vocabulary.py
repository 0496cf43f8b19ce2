"""The tagger's heads and their label vocabularies, stored in AllenNLP's directory format.

``HEADS`` names each output head once, for every layer: its module, its vocabulary namespace, its gold
tensor in a batch and its outputs (see ``Head``). A ``Vocabulary`` maps labels to indices per namespace:
``labels`` (punctuation / deletion edits), ``case_tags`` (case edits) and ``d_tags`` (detection: CORRECT /
INCORRECT); ``encode_tag`` gives one index per head, in ``HEADS`` order. ``save(dir)`` writes
``<namespace>.txt`` (one label per line, in index order) and ``non_padded_namespaces.txt``; ``load(dir)``
reads them back. All namespaces here are non-padded, as in GECToR (``*tags``, ``*labels``), so index 0 is a
real label. A label that is not in the vocabulary has no index: ``index()`` returns ``IGNORE`` (-100), which
the losses skip.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from gector_punct.text.files import atomic_write, read_all_lines
from gector_punct.text.tags import CASE_UNKNOWN, DELETE, KEEP, Tag

IGNORE = -100
NOT_DELETED = -2  # punctuation target of a word that stays while the punc task is off: any label but $DELETE
D_TAGS = ["CORRECT", "INCORRECT"]


@dataclass(frozen=True)
class Head:
    """One output head. ``name``: its module in ``Seq2Labels.heads`` (state-dict keys ``heads.<name>.*``,
    fixed by the model folders); ``namespace``: its vocabulary; the batch carries its gold indices under
    ``target_key`` and the model returns ``logits_key`` / ``probs_key`` (batch x words x labels)."""

    name: str
    namespace: str

    @property
    def target_key(self) -> str:
        return f"target_{self.name}"

    @property
    def logits_key(self) -> str:
        return f"logits_{self.name}"

    @property
    def probs_key(self) -> str:
        return f"probs_{self.name}"


# GECToR's punctuation/deletion edit ("labels") and detection ("d_tags") heads, plus the case edit.
PUNCT_HEAD, CASE_HEAD, DETECT_HEAD = HEADS = (Head("labels", "labels"), Head("case", "case_tags"), Head("d", "d_tags"))


class Vocabulary:
    def __init__(self, namespaces: dict[str, list[str]]):
        self._tokens = {ns: list(tokens) for ns, tokens in namespaces.items()}
        self._index = {ns: {t: i for i, t in enumerate(tokens)} for ns, tokens in self._tokens.items()}

    @classmethod
    def from_tags(cls, tag_lists: Iterable[list[Tag]], min_count: int = 1) -> Vocabulary:
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

        return cls({PUNCT_HEAD.namespace: ordered(punct), CASE_HEAD.namespace: ordered(case),
                    DETECT_HEAD.namespace: list(D_TAGS)})

    def with_labels(self, namespace: str, labels: list[str]) -> Vocabulary:
        """This vocabulary with ``labels`` appended to ``namespace`` (existing indices unchanged)."""
        grown = {ns: list(tokens) for ns, tokens in self._tokens.items()}
        grown[namespace] += [t for t in labels if t not in self._index[namespace]]
        return Vocabulary(grown)

    def tokens(self, namespace: str) -> list[str]:
        return self._tokens[namespace]

    def size(self, namespace: str) -> int:
        return len(self._tokens[namespace])

    def index(self, namespace: str, token: str) -> int:
        return self._index[namespace].get(token, IGNORE)

    def encode_tag(self, tag: Tag) -> tuple[int, int, int]:
        """One index per head, in ``HEADS`` order (punctuation, case, detection); IGNORE where unknown."""
        label = self.index(PUNCT_HEAD.namespace, tag.punct)
        case = IGNORE if tag.case == CASE_UNKNOWN else self.index(CASE_HEAD.namespace, tag.case)
        if tag.is_edit:
            detect = self.index(DETECT_HEAD.namespace, "INCORRECT")
        elif tag.case == CASE_UNKNOWN:
            detect = IGNORE  # the word may still need a case change we were not told about
        else:
            detect = self.index(DETECT_HEAD.namespace, "CORRECT")
        return label, case, detect

    @property
    def tasks(self) -> frozenset[str]:
        """The tasks a tagger with these labels can be asked for: ``punc``, and ``disf`` when the punctuation
        head has ``$DELETE``."""
        return frozenset({"punc", "disf"} if DELETE in self.tokens(PUNCT_HEAD.namespace) else {"punc"})

    def save(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        for namespace, tokens in self._tokens.items():
            with atomic_write(os.path.join(directory, f"{namespace}.txt")) as out:
                out.writelines(t + "\n" for t in tokens)
        with atomic_write(os.path.join(directory, "non_padded_namespaces.txt")) as out:
            out.write("*tags\n*labels\n")

    @classmethod
    def load(cls, directory: str) -> Vocabulary:
        namespaces = {}
        for head in HEADS:
            path = os.path.join(directory, f"{head.namespace}.txt")
            if os.path.exists(path):
                namespaces[head.namespace] = read_all_lines(path)
        if PUNCT_HEAD.namespace not in namespaces:
            raise FileNotFoundError(f"{directory}: no {PUNCT_HEAD.namespace}.txt (not a vocabulary folder)")
        namespaces.setdefault(CASE_HEAD.namespace, [KEEP])
        namespaces.setdefault(DETECT_HEAD.namespace, list(D_TAGS))
        return cls(namespaces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self._tokens == other._tokens


class WordLabels(NamedTuple):
    """One word's training targets: a label index per head (``vocabulary.IGNORE``: not taught) and
    ``next_context``, the ``tags.mark_context`` the word gives the word after it."""

    punct: int
    case: int
    detect: int
    next_context: int

    @property
    def heads(self) -> tuple[int, int, int]:
        """The label indices in ``vocabulary.HEADS`` order, as ``Vocabulary.encode_tag`` gives them."""
        return self.punct, self.case, self.detect
