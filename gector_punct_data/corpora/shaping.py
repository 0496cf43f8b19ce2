"""Training pairs shaped like real transcripts, made from restored target lines.

``shape_pair(target, rng, spoken, partial)`` -> ``(target, source)``:

- with probability ``spoken`` the line's numbers are in words (``spoken.speak_line``) on both sides: a
  transcript's words never change, so the target keeps what the recogniser wrote;
- with probability ``partial`` the source keeps a share r ~ U(0, 1) of the target's marks and case
  (``partial_source``), as GECToR is taught on partly correct text; otherwise the source is exactly
  ``tags.make_source(target)``.

``partial_source(target, share, rng)``: each word keeps its edge marks with probability ``share`` and its
written case with probability ``share``, independently; what it does not keep is what ``make_source``
writes (lower case, no edge marks, a dotted acronym as one word). A dotted acronym that keeps its case keeps
its own periods (``U.S.``). Invariants: share 0 gives ``make_source(target)``, share 1 gives the target
(marks-only units aside, which a source never has); the source's words are the target's words.
"""
from __future__ import annotations

import random

from gector_punct.text.tags import make_source
from gector_punct.text.sentences import ACRONYM_CORE
from gector_punct.text.units import join_units, split_edges, split_units
from .spoken import speak_line


def _source_word(lead: str, core: str, trail: str, keep_marks: bool, keep_case: bool) -> str:
    if ACRONYM_CORE.match(core):  # U.S. : its last period is its own, not a mark
        trail = trail[1:] if trail.startswith(".") else trail
        core = core + "." if keep_case else core.replace(".", "")
    if not keep_case:
        core = core.lower()
    return (lead + core + trail) if keep_marks else core


def partial_source(target_line: str, share: float, rng: random.Random) -> str:
    """The source of ``target_line`` keeping about ``share`` of its marks and case (module docstring)."""
    if share <= 0:
        return make_source(target_line)
    words = []
    for unit in split_units(target_line):
        lead, core, trail = split_edges(unit)
        keep_marks, keep_case = rng.random() < share, rng.random() < share
        if core:
            words.append(_source_word(lead, core, trail, keep_marks, keep_case))
    return join_units(words)


def shape_pair(target_line: str, rng: random.Random, spoken: float, partial: float,
               share: float | None = None) -> tuple[str, str]:
    """(target, source) of one restored line; ``share`` fixes the kept share of marks and case instead of
    drawing it (dev sets scored at a given share)."""
    if rng.random() < spoken:
        target_line = speak_line(target_line)
    if share is None:
        share = rng.random() if rng.random() < partial else 0.0
    return target_line, partial_source(target_line, share, rng)
