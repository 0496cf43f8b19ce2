"""Which language a line is in, for the conventions the line rules apply by language (English's question
rules, French spacing, Spanish ``¿``, German nouns).

In: a line's words. Out: ``language_of(words)`` (``language_of_start``: an input's first words) (``guess_language(line_cores(words))``), one of ``LANGUAGES``
or None when the line does not say. The guess is py3langid's (langid.py's naive Bayes model over byte n-grams,
shipped in the package: numpy only, no download; loaded once, on the first guess), not lists of marker words:
a word shared by several languages (Italian and Spanish ``tiene``) or a loan word (``ok``, ``weekend``)
weighs as little as the identifier learnt it does. Only the languages with conventions here compete; the
likeliest is the guess when it is at least ``MARGIN`` times as likely as the next, so a line as Italian as it is
Spanish gets no convention of either (``chi tiene le chiavi``: Italian, though ``tiene`` is Spanish too). ``utils/report/language_guess.py`` measures it against the word lists
on short lines of each language.
"""
from __future__ import annotations

import functools
import lzma
import os
import shutil
from collections.abc import Iterable
from itertools import islice

import numpy as np

from gector_punct.text.files import atomic_write, cache_root
from gector_punct.text.units import split_edges

LANGUAGES = ("en", "fr", "es", "it", "de")
START_WORDS = 200  # the words an input's language is guessed from (``language_of_start``): a file, a transcript
# The likeliest language must be this many times as likely as the next for the line to count as its.
MARGIN = 3.0


def line_cores(words: list[str]) -> tuple[str, ...]:
    """A line's words as the guess reads them: their cores (``units.split_edges``), lower-case, empty ones
    left out."""
    cores = (split_edges(word)[1].lower() for word in words)
    return tuple(core for core in cores if core)


@functools.lru_cache(maxsize=1)
def _identifier():
    """py3langid's identifier over ``LANGUAGES`` alone, its probabilities normalised over them. Its model
    ships LZMA-packed (0.7 s to unpack at every start): it is read from an unpacked copy in the cache
    (``files.cache_root``), made on first use; where the cache cannot be written, from the package."""
    from py3langid import modelio
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    try:
        with np.load(_unpacked_model(os.path.join(MODEL_DIR, MODEL_FILE)), allow_pickle=False) as data:
            # what py3langid's own loader (modelio.load_model) makes of the packed file
            identifier = LanguageIdentifier(data["ptc"], data["pc"], data["classes"].tolist(),
                                            modelio._to_array(data["nextmove"]), data["out_feat"].tolist(),
                                            norm_probs=True, tk_row=modelio._to_array(data["nextmove_row"]))
    except OSError:
        identifier = LanguageIdentifier.from_modelpath(os.path.join(MODEL_DIR, MODEL_FILE), norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


def _unpacked_model(packed: str) -> str:
    """The cache's unpacked copy of py3langid's packed model, made (atomically) when missing."""
    import py3langid

    path = os.path.join(cache_root(), "langid", f"py3langid-{py3langid.__version__}.npz")
    if not os.path.exists(path):
        with lzma.open(packed) as source, atomic_write(path, "wb", durable=False) as out:
            shutil.copyfileobj(source, out)
    return path


@functools.lru_cache(maxsize=4096)
def language_scores(cores: tuple[str, ...]) -> dict[str, float]:
    """Each of ``LANGUAGES``' probability for the line (the identifier's, normalised over them); all 0 for a
    line with no letters."""
    text = " ".join(cores)
    if not any(c.isalpha() for c in text):
        return dict.fromkeys(LANGUAGES, 0.0)
    return {lang: float(p) for lang, p in _identifier().rank(text)}


def guess_language(cores: tuple[str, ...] | list[str]) -> str | None:
    """The line's language among ``LANGUAGES``: the likeliest when at least ``MARGIN`` times as likely as
    the next (None otherwise, and for a line with no letters)."""
    scores = sorted(language_scores(tuple(cores)).items(), key=lambda item: -item[1])
    (best, top), (_, second) = scores[0], scores[1]
    return best if top > 0 and top >= MARGIN * second else None


def language_of(words: list[str]) -> str | None:
    """A line's language from its words as written or tagged (``guess_language`` of ``line_cores``)."""
    return guess_language(line_cores(words))


def language_of_start(words: Iterable[str]) -> str | None:
    """A whole input's language, from its first ``START_WORDS`` words (``language_of``)."""
    return language_of(list(islice(words, START_WORDS)))
