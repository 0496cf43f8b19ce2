"""What an input line already carries, and how prediction treats it (``predict.py --existing``).

``keep``: marks and case already in the input are given, and the model reads them as context.
A word's edge marks are never removed and never doubled (nothing is added on a side that has marks); a
word with an upper-case letter keeps its case. A line whose case says nothing, ALL CAPS or Title Case over
three or more words, is lower-cased first and cased by the model (its marks stay).

``weigh`` (the default): a recogniser's marks as evidence, not truth. Each line (each stretch of a stream)
is read as ``keep`` or as ``strip``, as the model's agreement with its marks says
(``prediction.given_marks``: it asks the model, so the text layer alone reads ``weigh`` as ``keep``). A line
without marks is read as under ``keep``.

``strip``: edge marks and case are removed first (Whisper-style output whose punctuation is to be redone),
then everything is restored afresh; a token of marks only vanishes. ``read_units`` is where either mode
reads a unit, for lines, word lists and streams alike; a byte-order mark opening a line or a stream is no
word (``files.without_bom``).

In both modes some words are never changed inside or in case (``word_kind``): numbers, decimals, times
(``3.5``, ``10:30``, ``1,000``, ``1990s``), URLs and e-mail addresses; the lower-case abbreviations of
``LOWER_ABBREVIATIONS`` (``e.g.``) take at most a capital, and other dotted ones (``u.s.``) keep their dots
and are written upper-case (``U.S.``); a
word with no letter or digit (an emoji, ``&``) takes no edit at all. Double quotes the model adds come in
pairs within a line: one it opens without closing (or closes without opening) is dropped; quotes already
in the input count for the pairing and are never dropped. ``prepare`` / ``prepare_spaced`` (a line) and
``read_words`` + ``read_case`` (a stream's words) apply the mode before tagging; ``constrain_line`` limits
the predicted tags to what the words allow.
"""
from __future__ import annotations

import re
from dataclasses import replace

from gector_punct.text.files import without_bom
from gector_punct.text.sentences import LOWER_ABBREVIATIONS, is_dotted_acronym
from gector_punct.text.tags import CAPITAL, KEEP, UPPER, Tag
from gector_punct.text.units import split_edges
from gector_punct.text.typography import attach_spaced_marks
from gector_punct.text.units import split_units, unit_spacing

WEIGH = "weigh"  # decided per line by the model (prediction.given_marks); read here as keep
MODES = (WEIGH, "keep", "strip")
_URL = re.compile(r"(?i)^(?:[a-z][a-z0-9+.-]*://\S+|www\.[^\s.]+\.\S+|[\w-]+(?:\.[\w-]+)*"
                  r"\.(?:com|org|net|edu|gov|io|co|uk|de|fr|info|biz|ai|dev|app)(?:/\S*)?)$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_NUMBER = re.compile(r"(?i)^[+-]?\d+(?:[.,:/]\d+)*(?:%|s|st|nd|rd|th)?$")
QUOTE_PAIRS = {'"': '"', "“": "”", "«": "»", "„": "“"}
_QUOTE_MARKS = set(QUOTE_PAIRS) | set(QUOTE_PAIRS.values())
_OPENING_EDGE, _CLOSING_EDGE = "([{\"'«“‘¿¡", ")]}\"'»”’.,;:!?…"


def word_kind(word: str) -> str:
    """``url``, ``email``, ``number``, ``abbreviation`` (dotted or listed), ``symbols`` (no letter or digit)
    or ``word``. Edge marks around a URL, address or number do not count."""
    if not any(ch.isalnum() for ch in word):
        return "symbols"
    abbreviation = _abbreviation_form(word)
    if abbreviation in LOWER_ABBREVIATIONS or is_dotted_acronym(abbreviation):
        return "abbreviation"
    bare = word.lstrip(_OPENING_EDGE).rstrip(_CLOSING_EDGE)
    if _EMAIL.match(bare):
        return "email"
    if _URL.match(bare):
        return "url"
    if _NUMBER.match(bare):
        return "number"
    return "word"


def _abbreviation_form(word: str) -> str:
    """``(U.S.),`` -> ``u.s.``: lower case, without the marks around it but with its own periods."""
    return word.lower().lstrip(_OPENING_EDGE).rstrip(_CLOSING_EDGE.replace(".", "").replace("…", ""))


def caseless_line(words: list[str]) -> bool:
    """ALL CAPS over two or more words, or Title Case over three or more: case that says nothing about the
    words (a lone ``NASA`` or ``New York`` is left as it is)."""
    cores = [c for c in (split_edges(w)[1] for w in words) if any(ch.isalpha() for ch in c)]
    if len(cores) < 2:
        return False
    if all(c == c.upper() for c in cores):
        return True
    initials = [next(ch for ch in c if ch.isalpha()) for c in cores]
    return len(cores) >= 3 and all(ch.isupper() for ch in initials)


def strip_word(word: str) -> str:
    """The word without its edge marks and case; URLs, addresses and numbers keep their own characters."""
    kind = word_kind(word)
    if kind in ("url", "email", "number"):
        return word.lstrip(_OPENING_EDGE).rstrip(_CLOSING_EDGE)
    if kind == "abbreviation":  # its own periods stay
        return _abbreviation_form(word)
    return split_edges(word)[1].lower()


def read_units(units: list[str], mode: str) -> list[str]:
    """Each unit as the tagger reads it under ``mode``: as it is (``keep``; ``weigh`` undecided), or without
    its edge marks and case (``strip``, ``strip_word``), ``""`` where it vanishes (a unit of marks only).
    The one home of ``strip``: lines (``prepare_spaced``), word lists (``prepare``) and streams
    (``read_words``) all read their units here."""
    if mode == "strip":
        return [strip_word(unit) for unit in units]
    if mode not in ("keep", WEIGH):
        raise ValueError(f"unknown --existing mode {mode!r} (one of {', '.join(MODES)})")
    return list(units)


def read_case(words: list[str], mode: str) -> list[str]:
    """Words already read (``read_units``) as the tagger takes them: under ``keep`` a line whose case says
    nothing (``caseless_line``) is lower-cased, URLs and addresses apart (``weigh`` reads as ``keep``: words
    it strips are lower-case); under ``strip`` they are so already."""
    if mode in ("keep", WEIGH) and caseless_line(words):
        return [w if word_kind(w) in ("url", "email") else w.lower() for w in words]
    return list(words)


def prepare(words: list[str], mode: str) -> list[str]:
    """A line's words as the tagger should read them under ``mode``."""
    return read_case([w for w in read_units(words, mode) if w], mode)


def prepare_spaced(line: str, mode: str) -> tuple[list[str], list[bool]]:
    """A line's units (``units.split_units``) as the tagger should read them under ``mode``, and whether
    a space precedes each in the line (``units.unit_spacing``); marks set apart by a space are their word's
    (``typography.attach_spaced_marks``: ``viens ?``). A byte-order mark opening the line is no word
    (``files.without_bom``; the first word still takes its capital)."""
    line = without_bom(line)
    units, spacing = attach_spaced_marks(split_units(line), unit_spacing(line))
    read = read_units(units, mode)
    kept = [i for i, unit in enumerate(read) if unit]
    return read_case([read[i] for i in kept], mode), [spacing[i] for i in kept]


def read_words(words: list[str], mode: str) -> list[list[str]]:
    """One stream's words (a transcript's, a subtitle file's, a live stream's chunk) -> each word's units
    (a Chinese word's characters) as ``read_units`` reads them, a vanishing unit left out; a byte-order mark
    opening the first word is dropped, as a line's is. ``read_case`` then applies to a line of such units."""
    words = [without_bom(words[0]), *words[1:]] if words else []
    return [[unit for unit in read_units(split_units(word), mode) if unit] for word in words]


def constrain(word: str, tag: Tag) -> Tag:
    """The predicted tag, limited to what ``word`` allows: no marks on a side that has some, no case change
    to a word that has capitals or to a URL, address or number, at most a capital for a listed
    abbreviation, nothing at all for a word of symbols. A dotted acronym that is not a listed abbreviation is
    cased per letter whatever the tag says (``u.k.`` -> ``U.K.``)."""
    if tag.deletes or (tag == Tag() and "." not in word):
        return tag  # nothing to limit (most words)
    kind = word_kind(word)
    if kind == "symbols":
        return Tag()
    lead, core, trail = split_edges(word)
    prepend, append = ("" if lead else tag.prepend), ("" if trail else tag.append)
    case = tag.case
    if kind in ("url", "email", "number") or any(ch.isupper() for ch in core):
        case = KEEP
    elif kind == "abbreviation" and _abbreviation_form(word) in LOWER_ABBREVIATIONS:
        case = case if case == CAPITAL else KEEP
    elif kind == "abbreviation":
        case = UPPER
    acronym = tag.acronym and not trail and core.isalpha()  # an acronym already dotted stays as it is
    return replace(tag, prepend=prepend, append=append, acronym=acronym, case=case)


def constrain_line(words: list[str], tags: list[Tag]) -> list[Tag]:
    """``constrain`` for every word, then the line's added double quotes paired."""
    return pair_added_quotes(words, [constrain(w, t) for w, t in zip(words, tags)])


def pair_added_quotes(words: list[str], tags: list[Tag]) -> list[Tag]:
    """The tags (each ``constrain``-ed) with a double quote they add and do not pair within the line dropped."""
    if _QUOTE_MARKS.isdisjoint("".join(t.prepend + t.append for t in tags)):
        return tags
    opened: list[tuple[int, str, bool]] = []  # (word, closing mark expected, added by the model)
    drop_prepend, drop_append = set(), set()
    for i, (word, tag) in enumerate(zip(words, tags)):
        lead, _, trail = split_edges(word)
        for marks, added in ((lead, False), (tag.prepend, True)):
            opened.extend((i, QUOTE_PAIRS[ch], added) for ch in marks if ch in QUOTE_PAIRS)
        for marks, added in ((trail, False), (tag.append, True)):
            for ch in marks:
                if ch not in QUOTE_PAIRS.values():
                    continue
                if opened and opened[-1][1] == ch:
                    opened.pop()
                elif added:
                    drop_append.add(i)
    drop_prepend.update(i for i, _, added in opened if added)
    out = []
    for i, tag in enumerate(tags):
        if i in drop_prepend:
            tag = replace(tag, prepend=_without_quotes(tag.prepend))
        if i in drop_append:
            tag = replace(tag, append=_without_quotes(tag.append))
        out.append(tag)
    return out


def _without_quotes(marks: str) -> str:
    return "".join(ch for ch in marks if ch not in QUOTE_PAIRS and ch not in QUOTE_PAIRS.values())
