"""Disfluencies measured on Switchboard and inserted into fluent text.

``statistics(sides)``: Switchboard sides ({side id: [switchboard.Word]}) -> a JSON-ready dict of rates and
distributions (the schema is ``statistics``'s docstring). ``insert_disfluencies(words, stats, rng)``: fluent,
punctuated and cased words -> (disfluent words, per word: inserted?), with the rates and distributions of that
dict; deleting the inserted words gives back exactly the input words. ``fluent(words, inserted)`` does that.
"""
from __future__ import annotations

import random
from collections import Counter

from gector_punct.text.units import split_edges
from .switchboard import REPAIR_TYPES

# Edit terms of more than one word, kept together when an edit-term run is split into phrases.
MULTIWORD = ("you know", "i mean", "excuse me", "lets see")
TYPES = tuple(REPAIR_TYPES.values())  # repetition, substitution, deletion


def shares(counter: Counter) -> dict:
    """Counts -> shares (summing to 1), most frequent first, keys as strings."""
    total = sum(counter.values())
    return {str(k): v / total for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))} if total else {}


def phrases(run: list) -> list:
    """An edit-term run (words) -> its phrases: a MULTIWORD pair joined, every other word alone."""
    out, k = [], 0
    while k < len(run):
        two = " ".join(run[k: k + 2])
        out.append(two if two in MULTIWORD else run[k])
        k += 2 if two in MULTIWORD else 1
    return out


def edit_runs(words: list) -> list:
    """A side -> its maximal runs of consecutive edit-term words, as (words, is an interregnum: any word of the
    run is tagged ``<i/>``)."""
    runs, current = [], []
    for w in words + [None]:
        if w is not None and w.kind == "edit":
            current.append(w)
        elif current:
            runs.append(([x.word for x in current], any(x.interregnum for x in current)))
            current = []
    return runs


def statistics(sides: dict) -> dict:
    """Sides -> {"words", "fluent_words", "disfluent_words", "disfluent_share", "edit_words", "edit_word_share",
    "reparandum_words", "reparandum_word_share",
      "fillers": edit-term runs outside disfluencies: {"count", "rate" (per fluent word), "runs" (run text ->
                 share), "phrases" (phrase -> share of the phrases of all runs: uh, you know, ...)},
      "interregnum": {"count", "share" (of disfluencies with one), "runs", "phrases"},
      "repairs": {"count", "rate", "reparandum_length" (words -> share), "mean_reparandum_length",
                  "types": {repetition|substitution|deletion: {"count", "rate", "share", "interregnum" (share
                  with one), "partial" (share whose reparandum ends in a partial word), "reparandum_length"}}},
      "partial_words": {"count", "rate" (per word), "in_reparandum" (share), "letters" (letters before the
                  dash -> share)}}. Rates are per fluent word: the generator's input is fluent text."""
    from .switchboard import repairs
    words = [w for side in sides.values() for w in side]
    n, disfluent = len(words), sum(w.disfluent for w in words)
    edit, reparandum = sum(w.kind == "edit" for w in words), sum(w.kind == "reparandum" for w in words)
    fluent_n = max(n - disfluent, 1)
    fillers, interregna = [], []
    for side in sides.values():
        for run, inner in edit_runs(side):
            (interregna if inner else fillers).append(run)
    found = [(r, side) for side in sides.values() for r in repairs(side) if r.type]
    stats = {"words": n, "fluent_words": n - disfluent, "disfluent_words": disfluent,
             "disfluent_share": disfluent / max(n, 1), "edit_words": edit, "edit_word_share": edit / max(n, 1),
             "reparandum_words": reparandum, "reparandum_word_share": reparandum / max(n, 1),
             "fillers": _runs(fillers, fluent_n),
             "interregnum": dict(_runs(interregna, fluent_n), share=sum(bool(r.interregnum) for r, _ in found)
                                 / max(len(found), 1)),
             "repairs": _repairs(found, fluent_n),
             "partial_words": _partials(words)}
    del stats["interregnum"]["rate"]
    return stats


def _runs(runs: list, fluent_n: int) -> dict:
    return {"count": len(runs), "rate": len(runs) / fluent_n, "runs": shares(Counter(" ".join(r) for r in runs)),
            "phrases": shares(Counter(p for r in runs for p in phrases(r)))}


def _repairs(found: list, fluent_n: int) -> dict:
    lengths = Counter(len(r.reparandum) for r, _ in found)
    out = {"count": len(found), "rate": len(found) / fluent_n, "reparandum_length": shares(lengths),
           "mean_reparandum_length": sum(k * v for k, v in lengths.items()) / max(len(found), 1), "types": {}}
    for kind in TYPES:
        mine = [(r, side) for r, side in found if r.type == kind]
        m = max(len(mine), 1)
        out["types"][kind] = {
            "count": len(mine), "rate": len(mine) / fluent_n, "share": len(mine) / max(len(found), 1),
            "interregnum": sum(bool(r.interregnum) for r, _ in mine) / m,
            "partial": sum(side[r.reparandum[-1]].partial for r, side in mine) / m,
            "reparandum_length": shares(Counter(len(r.reparandum) for r, _ in mine))}
    return out


def _partials(words: list) -> dict:
    partial = [w for w in words if w.partial]
    return {"count": len(partial), "rate": len(partial) / max(len(words), 1),
            "in_reparandum": sum(w.kind == "reparandum" for w in partial) / max(len(partial), 1),
            "letters": shares(Counter(len(w.word) - 1 for w in partial))}


def bare(word: str) -> str:
    """A word as an inserted word: its core (marks at the edges removed), lower case."""
    return split_edges(word)[1].lower()


def _draw(dist: dict, rng: random.Random) -> str:
    keys = sorted(dist)
    return rng.choices(keys, weights=[dist[k] for k in keys])[0]


def insert_disfluencies(words: list, stats: dict, rng: random.Random) -> tuple:
    """Fluent words (punctuated, cased) -> (words with disfluencies, per word: inserted?). Before each input
    word, at most one event, with the probabilities of ``stats`` (rates per fluent word, scaled down if they
    sum above 1): a filler (an edit-term run drawn from ``fillers.runs``), or a disfluency of a type: its
    reparandum (length drawn from the type's ``reparandum_length``) then, with the type's ``interregnum``
    share, an interregnum run. Reparandum: repetition: the next words again; substitution: the next words,
    the last one replaced by another word of the input; deletion (a restart): words from elsewhere in the
    input. With the type's ``partial`` share its last word is cut to a partial word (its first letters, count
    from ``partial_words.letters``, no dash: an ASR-like fragment). Inserted words are bare and lower case;
    the input words keep their marks and case. Deterministic given rng."""
    cores = [bare(w) for w in words]
    pool = [c for c in cores if c]
    events = [("filler", stats["fillers"]["rate"])] + [(t, stats["repairs"]["types"][t]["rate"]) for t in TYPES]
    total = sum(p for _, p in events)
    scale = 1.0 / total if total > 1 else 1.0
    out, inserted = [], []
    for i, word in enumerate(words):
        u, event = rng.random(), None
        for name, p in events:
            if u < p * scale:
                event = name
                break
            u -= p * scale
        added = _event(event, i, cores, pool, stats, rng) if event else []
        out += added + [word]
        inserted += [True] * len(added) + [False]
    return out, inserted


def _event(event: str, i: int, cores: list, pool: list, stats: dict, rng: random.Random) -> list:
    if event == "filler":
        return _bare_run(_draw(stats["fillers"]["runs"], rng))
    kind = stats["repairs"]["types"][event]
    length = int(_draw(kind["reparandum_length"], rng))
    if event == "deletion":
        start = rng.randrange(len(cores))
        span = [c for c in cores[start: start + length] if c]
    else:
        span = [c for c in cores[i: i + length] if c]
        if event == "substitution" and span:
            others = [c for c in pool if c != span[-1]]
            span[-1] = rng.choice(others) if others else span[-1]
    if span and rng.random() < kind["partial"]:
        letters = int(_draw(stats["partial_words"]["letters"], rng))
        span[-1] = bare(span[-1][:max(1, min(letters, len(span[-1]) - 1))])  # "don'" -> "don"
    if span and rng.random() < kind["interregnum"]:
        span += _bare_run(_draw(stats["interregnum"]["runs"], rng))
    return span


def _bare_run(run: str) -> list:
    return [b for b in map(bare, run.split()) if b]


def fluent(words: list, inserted: list) -> list:
    """The words not inserted: the generator's input again."""
    return [w for w, flag in zip(words, inserted) if not flag]
