"""Tagging units: what one tag is attached to, in every script.

Where a script writes spaces, a unit is a whitespace word (``York,``). Continuous scripts (Chinese, Japanese
kana, Thai, Lao, Khmer, Myanmar) write none, so there every *character* is a unit and a tag can belong to
any of them (the encoder reads a run of them as its subwords: ``windows.character_runs``); a run of other
letters inside such text (``iPhone`` in ``我用iPhone手机``) stays one unit.
Marks stay attached to their unit as they do to a word: trailing marks to the unit before them, opening
marks (``「`` ``¿`` ``(``) to the unit after.

* ``split_units(text) -> [str]``: the units of a text, marks attached (a token of marks only, as in
  ``York , USA``, is passed through for ``tags`` to attach).
* ``unit_spacing(text) -> [bool]``: for each unit of ``split_units(text)``, whether a space precedes it.
* ``join_units(units, spacing=None) -> str``: the units as one line. Two units of a continuous script are
  never separated by a space (written Chinese has none, whatever the transcript had); elsewhere a space is
  written where ``spacing`` says the source had one, or, without ``spacing``, wherever neither side of the
  gap is a continuous-script character (so ``我用iPhone手机`` and ``new york`` both come back as they are);
  ``written_spaces(units, spacing)`` says where it writes a space (the written words of a line).
* Marks: ``split_edges(token)`` (leading marks, core, trailing marks), ``OPENING`` marks (which marks end a
  sentence, and which periods are a word's own, is ``sentences``').
* ``is_wide(units)``: whether a line is mostly continuous-script units, the test that picks full-width
  marks (，。？！；：) over ASCII ones for the whole line; ``narrow_marks`` gives a mark's label form,
  ``TO_WIDE`` / ``TO_ASCII`` the forms a line writes (``tags.render_marks``).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

# Unicode blocks of scripts written without spaces between words.
CONTINUOUS_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x2FA1F),  # CJK extensions B-F, compatibility supplement
)
# Marks that open something and therefore attach to the *next* word when they stand alone in a target.
OPENING = set("¿¡«‹“‘„‚([{<「『（【〈《")


@lru_cache(maxsize=1 << 16)
def is_continuous(ch: str) -> bool:
    """Whether ``ch`` belongs to a script written without spaces between words."""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in CONTINUOUS_RANGES)


def is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "P"


@lru_cache(maxsize=1 << 16)  # the same words come back again and again in a text
def split_edges(token: str) -> tuple[str, str, str]:
    """``'¿Qué?'`` -> (``'¿'``, ``'Qué'``, ``'?'``): leading marks, core, trailing marks.

    A token made only of marks comes back as (``''``, ``''``, token)."""
    start, end = 0, len(token)
    while start < end and is_punct(token[start]):
        start += 1
    while end > start and is_punct(token[end - 1]):
        end -= 1
    return token[:start], token[start:end], token[end:]


def starts_lower(written_word: str) -> bool:
    """Whether the word's first letter is lower-case (a word with no letters does not)."""
    first = next((ch for ch in written_word if ch.isalpha()), "")
    return first.islower()


@lru_cache(maxsize=1 << 16)  # the same tokens come back again and again
def _split_token(token: str) -> tuple[str, ...]:
    """One whitespace token as units. A token with no continuous-script character is one unit."""
    if not any(is_continuous(ch) for ch in token):
        return (token,)
    units: list[str] = []
    pending = ""  # marks read since the last letter
    last_continuous = False
    for ch in token:
        if is_punct(ch):
            pending += ch
            continue
        here = is_continuous(ch)
        if units and not here and not last_continuous:  # a letter continuing a non-continuous run
            units[-1] += pending + ch
        else:
            k = len(pending)
            while k > 0 and pending[k - 1] in OPENING:
                k -= 1
            if units:
                units[-1] += pending[:k]
                units.append(pending[k:] + ch)
            else:
                units.append(pending + ch)
        pending, last_continuous = "", here
    if pending:
        if units:
            units[-1] += pending
        else:
            units.append(pending)
    return tuple(units)


def split_units(text: str) -> list[str]:
    return [unit for token in text.split() for unit in _split_token(token)]


def unit_spacing(text: str) -> list[bool]:
    """Whether a space precedes each unit of ``split_units(text)`` (False for the first)."""
    spacing: list[bool] = []
    for token in text.split():
        pieces = _split_token(token)
        spacing.extend([bool(spacing)] + [False] * (len(pieces) - 1))
    return spacing


def _core_edge(unit: str, last: bool) -> str:
    """The first (or last) character of the unit that is not a mark ('' if none)."""
    chars = reversed(unit) if last else iter(unit)
    return next((ch for ch in chars if not is_punct(ch)), "")


@lru_cache(maxsize=1 << 16)  # the same units come back again and again in a text
def _continuous_edges(unit: str) -> tuple[bool, bool]:
    """Whether the unit's first and last characters that are not marks are continuous-script ones."""
    first, last = _core_edge(unit, last=False), _core_edge(unit, last=True)
    return bool(first) and is_continuous(first), bool(last) and is_continuous(last)


def written_spaces(units: list[str], spacing: list[bool] | None = None) -> list[bool]:
    """Whether ``join_units`` writes a space before each unit (False for the first): where ``spacing`` says
    so, except between two continuous-script characters (none given: wherever neither side is one), and
    never beside a full-width mark."""
    edges = [_continuous_edges(unit) for unit in units]
    spaces = [False] * len(units)
    for i in range(1, len(units)):
        left, right = edges[i - 1][1], edges[i][0]
        if units[i - 1][-1:] in WIDE_MARKS or units[i][:1] in WIDE_MARKS:
            continue  # a full-width mark holds its own space (他说：Hello)
        spaces[i] = not (left or right) if spacing is None else spacing[i] and not (left and right)
    return spaces


def join_units(units: list[str], spacing: list[bool] | None = None) -> str:
    """The units written as one line (``written_spaces`` says where a space goes)."""
    return "".join((" " if space else "") + unit for unit, space in zip(units, written_spaces(units, spacing)))


def is_wide(units: list[str]) -> bool:
    """Whether most units are continuous-script characters (the line takes full-width marks)."""
    wide = sum(1 for u in units if any(is_continuous(ch) for ch in u))
    return wide * 2 > len(units)


# Marks whose form depends on the script: labels use the ASCII form, a wide line is written with the other.
NARROW, WIDE = ",.?!;:()", "，。？！；：（）"
TO_NARROW = str.maketrans(WIDE, NARROW)
TO_WIDE = str.maketrans(NARROW, WIDE)
# Full-width marks: a space beside one is never written.
WIDE_MARKS = WIDE + "、「」『』《》【】"
# The enumeration comma has no ASCII form: a comma outside CJK text.
TO_ASCII = str.maketrans(WIDE + "、", NARROW + ",")
# The marks that separate (brackets left out), as a Latin word writes them beside another in a wide line
# (``tags.render_marks``).
SEPARATORS_TO_ASCII = {k: v for k, v in TO_ASCII.items() if chr(k) not in "（）"}


def narrow_marks(marks: str) -> str:
    """Marks in their label form (``，`` -> ``,``)."""
    return marks.translate(TO_NARROW)
