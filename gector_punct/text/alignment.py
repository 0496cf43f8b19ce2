"""How the words of a target line stand to the source words: the string side of ``tags.tags_from_pair``.

* ``target_words(target_line) -> [(prepend, core, append)]``: the target's words, a token of marks only
  joined to its neighbour (``York , USA`` -> ``York,`` ``USA``).
* ``word_edit(word, target) -> WordEdit | None``: what turns one source word (with any marks it carries
  already) into one target word, or None where nothing does.
* ``resolve_deletions(words, deleted)``: the words once the deleted ones are gone, their marks and capital
  moved where a reader expects them (``Uh, so we`` -> ``So we``).
* ``left_out(source_words, targets) -> [bool]``: which source words a shorter target leaves out.
They raise ``AlignmentError`` where the words do not correspond.
"""
from __future__ import annotations

from typing import NamedTuple

from gector_punct.text.sentences import SENTENCE_END, ends_sentence, ends_sentence_after, undotted
from gector_punct.text.units import OPENING, narrow_marks, split_edges, split_units, starts_lower

STRAIGHT_QUOTES = set("\"'")
Target = tuple[str, str, str]  # a target word: (prepend, core, append)


class AlignmentError(ValueError):
    """A source line and its target do not correspond word by word."""


class WordEdit(NamedTuple):
    """What turns a source word into its target word: the marks to write before and after it, whether to dot
    it as an acronym, and the spelling (``case_from``) whose case becomes that of ``case_to``."""

    prepend: str
    append: str
    acronym: bool
    case_from: str
    case_to: str


def word_edit(word: str, target: Target) -> WordEdit | None:
    """The edit that turns ``word`` into the ``target`` word, or None where none does: the letters differ, or
    the word carries marks (already-punctuated input) that the target lacks at that edge. A bare word whose
    letters the target dots (``us`` -> ``U.S.``) is an acronym."""
    lead, core, trail = target
    lead, trail = narrow_marks(lead), narrow_marks(trail)
    letters = undotted(core)
    if letters != core and letters.lower() == word.lower():  # a dotted acronym: its letters, dotted
        return WordEdit(lead, trail.removeprefix("."), True, word, letters)
    src_lead, src_core, src_trail = split_edges(word)
    src_lead, src_trail = narrow_marks(src_lead), narrow_marks(src_trail)
    if src_core.lower() != core.lower() or len(src_core) != len(core):
        return None
    if not (lead.endswith(src_lead) and trail.startswith(src_trail)):
        return None
    return WordEdit(lead[: len(lead) - len(src_lead)], trail[len(src_trail):], False, src_core, core)


def fits(word: str, target: Target) -> bool:
    """Whether some edit turns ``word`` into the ``target`` word (``word_edit``)."""
    return word_edit(word, target) is not None


def target_words(target_line: str) -> list[Target]:
    """Target tokens as (prepend, core, append) words: stand-alone marks join their neighbour."""
    words: list[list[str]] = []
    pending = ""  # opening marks waiting for the next word
    quotes_open = False
    for token in split_units(target_line):
        lead, core, trail = split_edges(token)
        if core:
            words.append([pending + lead, core, trail])
            pending = ""
            continue
        # A token of marks only, as in GECToR-style "New York , USA" data.
        if token in STRAIGHT_QUOTES or token == "''" or token == "``":
            opening = not quotes_open if token in STRAIGHT_QUOTES else token == "``"
            quotes_open = opening
        else:
            opening = all(ch in OPENING for ch in token)
        if opening or not words:
            pending += token
        else:
            words[-1][2] += token
    if pending:
        if not words:
            raise AlignmentError(f"target has marks but no words: {target_line!r}")
        words[-1][2] += pending  # a dangling opening mark: keep it rather than lose it
    return [tuple(w) for w in words]  # type: ignore[misc]


PAUSE_MARKS = set(",;:-\u2013\u2014")  # marks that only join a deleted word to its neighbours: they go with it


def resolve_deletions(words: list[str], deleted: list[bool]) -> list[str]:
    """The words once the ``deleted`` ones are gone, as a reader expects them (deleted positions keep their
    word): a deleted word's leading marks go to the next kept word; its trailing marks, pause marks aside, to
    the kept word before (a sentence end replaces that word's pause marks; it never doubles one); and a
    deleted word that starts a sentence with a capital hands the capital to the next kept word
    (``Uh, so we`` -> ``So we``). Marks with no kept word to go to are dropped."""
    out, lead, capital, prev, at_start = list(words), "", False, None, True
    for i, (word, gone) in enumerate(zip(words, deleted)):
        w_lead, core, trail = split_edges(word)
        if gone:
            lead += w_lead
            capital = capital or (at_start and any(ch.isalpha() for ch in core) and not starts_lower(core))
            if prev is not None:
                out[prev] = _handed_back(out[prev], trail)
            at_start = at_start or ends_sentence_after(word)
            continue
        word = lead + word
        if capital and starts_lower(word):
            k = next(j for j, ch in enumerate(word) if ch.isalpha())
            word = word[:k] + word[k].upper() + word[k + 1:]
        out[i], lead, capital, prev = word, "", False, i
        at_start = ends_sentence_after(word)
    return out


def _handed_back(word: str, deleted_trail: str) -> str:
    """``word`` with the trailing marks of a deleted word after it, pause marks aside: a sentence end replaces
    the word's pause marks and never doubles its own."""
    marks = "".join(ch for ch in deleted_trail if ch not in PAUSE_MARKS)
    if not marks:
        return word
    lead, core, trail = split_edges(word)
    if ends_sentence(marks):
        if ends_sentence(trail):
            marks = "".join(ch for ch in marks if ch not in SENTENCE_END)
        else:
            trail = trail.rstrip("".join(PAUSE_MARKS))
    return lead + core + trail + marks


def left_out(source_words: list[str], targets: list[Target]) -> list[bool]:
    """Which source words the ``targets`` (``target_words``) leave out: a choice under which every kept word,
    with the marks the left-out words around it hand on (``resolve_deletions``: leading marks to the next
    kept word, trailing ones to the one before), becomes its target word; of several, the one that keeps the
    latest words, compared from the line's end (the reparandum comes before its repair: ``the the car``
    keeps the second ``the``). Dynamic programming: ``reach[j]`` holds the source words that can be target
    word ``j`` with the words before them placed; what a word can be depends only on the left-out runs on
    either side of it, so one step checks a pair of neighbouring kept words. Raises ``AlignmentError``."""
    n, m = len(source_words), len(targets)
    by_letters: dict[str, list[int]] = {}  # source words by their core, lower-cased: a target's candidates
    for i, word in enumerate(source_words):
        by_letters.setdefault(split_edges(word)[1].lower(), []).append(i)
    reach: list[list[int]] = []
    for j, target in enumerate(targets):
        keys = {target[1].lower(), undotted(target[1]).lower()}  # the latter: an acronym's letters
        before = reach[-1] if j else [-1]  # -1: the line's start
        reach.append(sorted(i for key in keys for i in by_letters.get(key, ()) if any(
            p < i and _neighbours_fit(source_words, p, i, targets, j) for p in reversed(before))))
        if not reach[-1]:
            break
    last = [i for i in reach[-1] if _neighbours_fit(source_words, i, n, targets, m)] if len(reach) == m else []
    if not last:
        j = len(reach) - 1
        raise AlignmentError(f"target word {j + 1} ({targets[j][1]!r}) is not among the source words in order "
                             f"with marks that fit: source ...{' '.join(source_words[:8])}... vs target "
                             f"...{' '.join(t[1] for t in targets[:8])}...")
    kept = [max(last)]
    for j in range(m - 1, 0, -1):  # reach[j - 1] holds a fitting neighbour of every word in reach[j]
        i = kept[-1]
        kept.append(max(p for p in reach[j - 1] if p < i and _neighbours_fit(source_words, p, i, targets, j)))
    deleted = [True] * n
    for i in kept:
        deleted[i] = False
    return deleted


def _neighbours_fit(source_words: list[str], p: int, i: int, targets: list[Target], j: int) -> bool:
    """With source words ``p`` and ``i`` kept as target words ``j - 1`` and ``j`` and those between them left
    out: whether ``p``, with the trailing marks they hand on, can be its target word, and whether the start
    of ``i`` (its core and leading marks, theirs before its own) can be the start of its own; the end of
    ``i`` waits for the next pair (a sentence end handed on may replace its pause marks). ``p`` = -1: ``i``
    is the first kept word; ``i`` = ``len(source_words)``: ``p`` is the last."""
    run = [split_edges(source_words[x]) for x in range(p + 1, i)]
    if p >= 0:
        word = source_words[p]
        for _, _, trail in run:
            word = _handed_back(word, trail)
        if not fits(word, targets[j - 1]):
            return False
    if i >= len(source_words):
        return True
    lead, core, _ = split_edges(source_words[i])
    return fits("".join(run_lead for run_lead, _, _ in run) + lead + core, (targets[j][0], targets[j][1], ""))


def mismatch(source: list[str], target: list[str], at: int | None = None) -> str:
    """An ``AlignmentError`` message: the word counts and both lines around word ``at`` (default: the first
    that differs)."""
    if at is None:
        at = next((i for i, (s, t) in enumerate(zip(source, target)) if s.lower() != t.lower()), min(len(source), len(target)))
    src = " ".join(source[max(0, at - 3): at + 4])
    tgt = " ".join(target[max(0, at - 3): at + 4])
    return (f"source has {len(source)} words, target {len(target)}; they differ at word {at + 1}: "
            f"source ...{src}... vs target ...{tgt}...")
