"""Written numbers in the words a recogniser writes for them: the spoken-form side of the training data.

``speak_line(target_line)`` -> the same restored line with numbers, years, decades, ordinals, decimals,
percentages, money, times, ranges and phone numbers in words (``$2.5 million.`` -> ``two point five million
dollars.``, ``3rd`` -> ``third``, ``1990s`` -> ``nineteen nineties``, ``2:30`` -> ``two thirty``,
``555-1234`` -> ``five five five one two three four``). ``spoken_words(core)`` does one word.

Invariants: no mark ever lands inside a spoken number (num2words' commas and hyphens go; the written
number's own ``,`` ``.`` ``-`` ``:`` are read, not kept); the marks around the written word go around its
spoken words (leading marks before the first, trailing marks after the last); the first spoken word takes
a capital where the written number began a sentence; a word that is no number form read here (``3D``,
``mp3``, ``COVID-19``) is returned unchanged. The output depends only on the input.
"""
from __future__ import annotations

import re

from num2words import num2words

from gector_punct.text.sentences import ends_sentence
from gector_punct.text.units import join_units, split_edges, split_units

DIGITS = "zero one two three four five six seven eight nine".split()
SCALES = {"thousand", "million", "billion", "trillion"}
CURRENCY = {"$": ("dollar", "dollars", "cent", "cents"), "£": ("pound", "pounds", "penny", "pence"),
            "€": ("euro", "euros", "cent", "cents")}
_INT = r"\d{1,3}(?:,\d{3})+|\d+"
_PATTERNS = [  # (name, pattern over the whole core); the first that matches reads the word
    ("phone", re.compile(r"(?:\d{3}-)?\d{3}-\d{4}")),
    ("time", re.compile(r"(\d{1,2}):(\d{2})")),
    ("money", re.compile(rf"([$£€])({_INT})(?:\.(\d+))?")),
    ("percent", re.compile(rf"({_INT})(?:\.(\d+))?%")),
    ("ordinal", re.compile(r"(\d+)(?:st|nd|rd|th)")),
    ("decade", re.compile(r"'?(\d{2}|1\d{3}|20\d{2})'?s")),
    ("range", re.compile(rf"({_INT})-({_INT})")),
    ("decimal", re.compile(rf"({_INT})?\.(\d+)")),
    ("integer", re.compile(_INT)),
]


def _clean(words: str) -> list[str]:
    """num2words' text without its marks: ``one thousand, two hundred and thirty-four`` -> words."""
    return words.replace(",", " ").replace("-", " ").split()


def cardinal(digits: str) -> list[str]:
    """``1,234`` -> one thousand two hundred and thirty four; a run of more than nine digits digit by digit."""
    plain = digits.replace(",", "")
    if len(plain) > 9 or (len(plain) > 1 and plain.startswith("0")):
        return [DIGITS[int(d)] for d in plain]
    return _clean(num2words(int(plain)))


def year(number: int) -> list[str]:
    """A year as it is said: 1999 -> nineteen ninety nine, 2005 -> two thousand and five."""
    return _clean(num2words(number, to="year"))


def _plural(words: list[str]) -> list[str]:
    last = words[-1]
    return words[:-1] + [last[:-1] + "ies" if last.endswith("y") else last + "s"]


def _fraction(digits: str) -> list[str]:
    return ["point"] + [DIGITS[int(d)] for d in digits]


def _read(name: str, m: re.Match) -> list[str]:
    """The spoken words of one matched number form."""
    if name == "phone":
        return [DIGITS[int(d)] for d in m.group(0) if d.isdigit()]
    if name == "time":
        hour, minute = int(m.group(1)), int(m.group(2))
        tail = [] if minute == 0 else (["oh", DIGITS[minute]] if minute < 10 else cardinal(m.group(2)))
        return cardinal(str(hour)) + (tail or ["o'clock"])
    if name == "money":
        one, many, cent, cents = CURRENCY[m.group(1)]
        whole = cardinal(m.group(2))
        words = whole + [one if whole == ["one"] else many]
        if m.group(3) and int(m.group(3)):
            part = cardinal(m.group(3))
            words += ["and"] + part + [cent if part == ["one"] else cents]
        return words
    if name == "percent":
        return cardinal(m.group(1)) + (_fraction(m.group(2)) if m.group(2) else []) + ["percent"]
    if name == "ordinal":
        return _clean(num2words(int(m.group(1)), to="ordinal"))
    if name == "decade":
        digits = m.group(1)
        return _plural(cardinal(digits) if len(digits) == 2 else year(int(digits)))
    if name == "range":
        return cardinal(m.group(1)) + ["to"] + cardinal(m.group(2))
    if name == "decimal":
        return (cardinal(m.group(1)) if m.group(1) else ["zero"]) + _fraction(m.group(2))
    plain = m.group(0).replace(",", "")
    if len(plain) == 4 and "," not in m.group(0) and 1100 <= int(plain) <= 2099:
        return year(int(plain))
    return cardinal(m.group(0))


def spoken_words(core: str) -> list[str] | None:
    """The spoken words of one written word's core (marks around it removed), or None if it is no number form."""
    if not any(ch.isdigit() for ch in core):
        return None
    for name, pattern in _PATTERNS:
        m = pattern.fullmatch(core)
        if m:
            return _read(name, m)
    return None


def speak_line(target_line: str) -> str:
    """A restored line with its number forms in words (module docstring); ``$5 million`` reads as ``five
    million dollars``, the currency word after the scale word."""
    units, out = split_units(target_line), []
    i = 0
    while i < len(units):
        lead, core, trail = split_edges(units[i])
        if lead.endswith(".") and core.isdigit():  # .5
            lead, core = lead[:-1], "." + core
        if trail.startswith("%") and core.replace(",", "").replace(".", "").isdigit():
            core, trail = core + "%", trail[1:]
        words = spoken_words(core)
        if words is None:
            out.append(units[i])
            i += 1
            continue
        nxt = split_edges(units[i + 1]) if i + 1 < len(units) else None
        if core[0] in CURRENCY and nxt and not trail and not nxt[0] and nxt[1].lower() in SCALES:
            words = (spoken_words(core[1:]) or words) + [nxt[1], CURRENCY[core[0]][1]]
            trail = nxt[2]
            i += 1
        sentence_start = not out or ends_sentence(split_edges(out[-1])[2])
        if sentence_start:
            words[0] = words[0][:1].upper() + words[0][1:]
        out.extend(_around(lead, words, trail))
        i += 1
    return join_units(out)


def _around(lead: str, words: list[str], trail: str) -> list[str]:
    words = list(words)
    words[0], words[-1] = lead + words[0], words[-1] + trail
    return words
