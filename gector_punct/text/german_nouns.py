"""German nouns: the words German writes with a capital wherever they stand (``Krankenhaus``, ``Abend``).

German capitalises every noun, a convention without exceptions; a tagger reading lower-case ASR words has to
know each noun, and the multilingual model misses the rarer ones (``in einem krankenhaus``). A dictionary knows
them: ``lexicon/german_nouns.txt.gz`` lists, lower-case, each word of the Debian ``wngerman`` word list (the
``igerman98`` dictionary, GPL-2+, in the new orthography, every inflected form) that the list holds only with a
capital. A word it holds both ways (``morgen`` tomorrow / ``Morgen`` morning, ``sie`` / ``Sie``, ``recht`` /
``Recht``) is not listed: its case stays the model's decision. Built by ``utils/data/build_german_nouns.py``.

In: a German line's word cores, lower-case. Out: whether each is a noun (``is_noun``). The decoding's rule
``line_rules.capitalise_german_nouns`` reads it for lines ``language.language_of`` says are German (``Hotel`` is a
German noun and an English word).
"""
from __future__ import annotations

import gzip
import os
from functools import lru_cache

NOUNS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicon", "german_nouns.txt.gz")


@lru_cache(maxsize=1)
def german_nouns() -> frozenset[str]:
    """The listed words, lower-case (read once; lines starting ``#`` are the file's notes)."""
    with gzip.open(NOUNS_FILE, "rt", encoding="utf-8") as f:
        return frozenset(line.strip() for line in f if line.strip() and not line.startswith("#"))


def is_noun(core: str) -> bool:
    """Whether German writes ``core`` (a word without its marks) with a capital wherever it stands."""
    return core.lower() in german_nouns()


def capital_only_words(words) -> list[str]:
    """A word list's words (as written) -> the sorted lower-case forms of those it holds only with a capital:
    letters only, hyphens between them, two letters at least (``Ei`` yes, ``A`` no; ``GmbH`` is a capital form
    too)."""
    words = [w.strip() for w in words if w.strip()]
    lower = {w for w in words if w[:1].islower()}
    out = set()
    for w in words:
        core = w.lower()
        parts = w.split("-")
        if w[:1].isupper() and core not in lower and len(w) > 1 and all(p and p.isalpha() for p in parts):
            out.add(core)
    return sorted(out)
