"""How a restored line's marks are spaced in its language: ``typeset(forms, mode) -> forms``.

In: a line's written units (``tags.written_forms``: a unit's text, or None where it is deleted) and a mode of
``TYPOGRAPHY``. Out: the same units, French ones with a no-break space (U+00A0, ``NO_BREAK_SPACE``) between a
word and a ``? ! : ;`` or closing ``»`` after it, and between an opening ``«`` and its word, as the French
references write them (``docs/experiments/multilingual.md``); every other unit as it was. The space is inside
the unit: a word and its marks stay one word (``Vraiment\u00a0?``), and a line's words are still the text split
at its plain spaces.

Modes: ``auto``: a line is French when its words say so (``language.language_of``), so a French text is set in
French and an English or Italian one is not; ``french``: every line (a text known to be French, whatever
its lines say); ``plain``: no line (marks against their word, as the training text writes them). Only the
writers of ``predict``'s output typeset; the tags, their scores and the training text stay plain.
"""
from __future__ import annotations

from gector_punct.text.language import language_of
from gector_punct.text.units import split_edges

TYPOGRAPHY = ("auto", "french", "plain")
NO_BREAK_SPACE = "\u00a0"
SPACED_BEFORE = "?!:;»"  # French: a no-break space before these after a word
SPACED_AFTER = "«"  # and after this before one
RUNS = "?!"  # "?!" takes one space, before its first mark


def checked(mode: str) -> str:
    """``mode`` if it is one of ``TYPOGRAPHY``; else ValueError naming them."""
    if mode not in TYPOGRAPHY:
        raise ValueError(f"unknown typography {mode!r} (one of {', '.join(TYPOGRAPHY)})")
    return mode


def typeset(forms: list[str | None], mode: str) -> list[str | None]:
    """A line's written units spaced as ``mode`` says (module docstring)."""
    if checked(mode) == "plain" or not forms:
        return forms
    if mode == "auto" and language_of([f for f in forms if f]) != "fr":
        return forms
    return [None if form is None else french_unit(form) for form in forms]


def french_unit(unit: str) -> str:
    """One unit with the no-break spaces French writes around its edge marks (``« Bon``, ``vrai ?``)."""
    lead, core, trail = split_edges(unit)
    if not core:
        return unit
    spaced_lead = "".join(ch + NO_BREAK_SPACE if ch in SPACED_AFTER else ch for ch in lead)
    spaced_trail, before = [], core[-1]
    for ch in trail:
        if ch in SPACED_BEFORE and not (before in RUNS and ch in RUNS):
            spaced_trail.append(NO_BREAK_SPACE)
        spaced_trail.append(ch)
        before = ch
    return spaced_lead + core + "".join(spaced_trail)


ATTACH_BACK = set(SPACED_BEFORE + ",.…")  # a unit of these alone is its previous word's marks
ATTACH_FORWARD = set(SPACED_AFTER + "¿¡")  # and of these, its next word's


def attach_spaced_marks(units: list[str], spacing: list[bool] | None = None) -> tuple[list[str], list[bool]]:
    """A line's units (``units.split_units``) and spaces before them, with each unit of marks set apart by a
    space (``Tu viens ? Oui , je``, ``« Bonjour »``: French as it is typed, or as ``typeset`` wrote it) made
    part of its word: ``? , . : ; ! » …`` of the word before, ``« ¿ ¡`` of the word after. The words then
    keep their marks as the tagger reads them (none added beside them) and the writer spaces them anew.
    ``spacing`` None: a space before every unit but the first."""
    spacing = [k > 0 for k in range(len(units))] if spacing is None else spacing
    out, gaps, carry = [], [], ""
    for unit, space in zip(units, spacing):
        marks_only = not split_edges(unit)[1]  # most units are words: no set is built for them
        if marks_only and out and not carry and set(unit) <= ATTACH_BACK:
            out[-1] += unit
        elif marks_only and set(unit) <= ATTACH_FORWARD:
            carry += unit
            if len(carry) == len(unit):
                gaps.append(space)
        else:
            if not carry:
                gaps.append(space)
            out.append(carry + unit)
            carry = ""
    if carry:
        out.append(carry)
    return out, gaps
