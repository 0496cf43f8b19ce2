"""What is said twice in a row: a line's words and which of them go already in, which go as repeats out.

``repeated_words(words, gone)`` -> per word, whether it goes: the words already going (``gone``: the
model's deletions, fillers) and the earlier copies of a word or phrase (up to ``LONGEST_COPY`` words) said
again right after it. One copy always stays: of copies said word for word, the last one stays, its
``FILLERS`` aside, whatever the model said of its words (``can you can you`` keeps ``can you`` where the
model would take ``can`` from both), unless every word of it but fillers was going already (``you know you
know``: the model takes the whole run as edit terms); the words going are then passed over when copies are
compared (``the uh the``). Words of ``KEPT_DOUBLES`` said twice are no disfluency and stay.
"""
from __future__ import annotations

from functools import lru_cache

from gector_punct.text.units import split_edges

LONGEST_COPY = 4  # words of a repeated phrase, at most
# Said twice on purpose ("had had", "very very", "no no"), or answers and backchannels that a listener says
# again and again ("uh-huh uh-huh", "right right", "yeah yeah", "oh oh"): Switchboard's annotators keep them.
KEPT_DOUBLES = frozenset({"had", "that", "bye", "no", "very", "so", "really", "yeah", "yes", "yep", "okay", "oh",
                          "right", "exactly", "sure", "true", "wow", "great", "uh-huh", "um-hum", "mm-hmm", "mhm",
                          "huh-uh", "hm-mm"})
# Filled pauses: never part of what a copy keeps ("uh i uh i had": the later "uh" goes as the model says).
FILLERS = frozenset({"uh", "um", "er", "erm", "ah", "eh", "uhm", "hm", "hmm", "mm"})


@lru_cache(maxsize=1 << 16)
def core(word: str) -> str:
    """The word's core (``units.split_edges``), lower-case: the form copies are compared in."""
    return split_edges(word)[1].lower()


def copies(cores: list[str]) -> list[tuple[int, int]]:
    """(start, length) of each earlier copy in ``cores``, left to right: a run of words said again right
    after it (the longest first), never one word of ``KEPT_DOUBLES`` said twice nor a run of them only.
    ``i i i``: two earlier copies, (0, 1) and (1, 1)."""
    found, i = [], 0
    while i < len(cores):
        for n in range(LONGEST_COPY, 0, -1):
            copy = cores[i:i + n]
            if len(copy) == n and all(copy) and copy == cores[i + n:i + 2 * n] \
                    and not all(c in KEPT_DOUBLES for c in copy):
                found.append((i, n))
                i += n
                break
        else:
            i += 1
    return found


def repeated_words(words: list[str], gone: list[bool]) -> list[bool]:
    """Per word, whether it goes: ``gone`` (the words going already), the earlier copies of what is said
    twice, and never the last copy of words said word for word, its fillers aside, unless all of it was
    going (module docstring). The later copy is kept: it is the one the speaker carried on from."""
    cores, out = [core(w) for w in words], list(gone)
    for i, n in copies(cores):  # word for word, whatever the model said of them
        out[i:i + n] = [True] * n
        later = [k for k in range(i + n, i + 2 * n) if cores[k] not in FILLERS]
        if not all(gone[k] for k in later):
            for k in later:
                out[k] = False
    kept = [k for k, g in enumerate(out) if not g]  # then with the words going passed over: "the uh the"
    for i, n in copies([cores[k] for k in kept]):
        for k in kept[i:i + n]:
            out[k] = True
    return out
