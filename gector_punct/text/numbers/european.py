"""French, Spanish, German and Italian numbers: text2num (``find_numbers``) finds them and their values, the
house style of each language writes them: digit groups of five digits and more set apart
(``GROUP_SEPARATOR``: a narrow no-break space, Italian a period; ``300 000``, ``300.000``), a euro or dollar
amount with its sign after it (``340 €``), a percentage with ``%`` (``PERCENT_SPACE``: ``12 %`` in French,
Spanish and German, ``12%`` in Italian), French hours (``15 h``, ``18 h 30``), Spanish half and quarter hours
after ``las`` (``las 3:30``), a German date's day (an ordinal before a month: ``am 3. Oktober``).

In: a clause's cores (``read_european``). Out: ``(start, end, text)`` spans. Under ``digits`` a number up to
ten that stands alone stays a word (text2num's ``threshold``) unless its style makes it a sum or a time
(``tres euros``, ``las tres y media``), and a one-word one (``un``, ``ein``) stays a word beside another
number too; a number the library reads as an ordinal stays as said (``premier``, ``segundo``) but a German
date's day.
"""
from __future__ import annotations

from text_to_num import find_numbers

EUROPEAN = ("fr", "es", "de", "it")
GROUP_SEPARATOR = {"fr": "\u202f", "es": "\u202f", "de": "\u202f", "it": "."}
NO_BREAK_SPACE = "\u00a0"  # between a number and what belongs to it: a line never breaks there
CURRENCIES = {"euro": "€", "euros": "€", "dollar": "$", "dollars": "$", "dólar": "$", "dólares": "$",
              "dollaro": "$", "dollari": "$"}
# "per hundred" said after a number (``douze pour cent``), whose hundred text2num would read as a number too
PERCENT_PAIRS = {("pour", "cent"), ("por", "ciento"), ("per", "cento")}
PERCENT_WORDS = {"prozent", "percento"}
# Before %: a no-break space in French, Spanish and German (their typographic rules); none in Italian, as
# Italian editors write it (``il 40%``, the press's usage; ISO 80000 would space it).
PERCENT_SPACE = {"fr": NO_BREAK_SPACE, "es": NO_BREAK_SPACE, "de": NO_BREAK_SPACE, "it": ""}
FRENCH_HOURS = {"heure", "heures"}
# a year follows these: its digits are not grouped
FRENCH_YEAR_BEFORE = {"en", "depuis", "année", "an", "l'an", "l'année", "jusqu'en", "dès"}
GERMAN_MONTHS = frozenset("januar februar märz april mai juni juli august september oktober november dezember "
                          "jänner".split())  # a German ordinal before one is a date's day: ``3. Oktober``
SPANISH_QUARTERS = {("y", "media"): 30, ("y", "cuarto"): 15, ("en", "punto"): 0}
THRESHOLD = {"digits": 10, "all_digits": 2}  # text2num's: a digit alone is written in digits from this value on
SMALL = 10  # under digits, a number up to this alone stays a word


class Word:
    """A word as text2num's ``Token`` protocol reads it."""

    def __init__(self, text: str):
        self._text = text

    def text(self) -> str:
        return self._text

    def nt_separated(self, previous) -> bool:
        return False

    def not_a_number_part(self) -> bool:
        return False


def as_tokens(words: list[str]) -> list[Word]:
    return [Word(word) for word in words]


def read_european(cores: list[str], mode: str, language: str) -> list[tuple[int, int, str]]:
    """A clause's numbers (``readers.reader``'s ``read``)."""
    lower = _percent_masked([core.lower() for core in cores], language)
    tokens = as_tokens(lower)
    counted = {(o.start, o.end) for o in _counted(find_numbers(tokens, language, THRESHOLD[mode]), mode)}
    spans, taken = [], 0
    for occurrence in find_numbers(tokens, language, 0):  # every number, small ones alone included
        start, end, text = occurrence.start, occurrence.end, occurrence.text
        if start < taken:
            continue
        if occurrence.is_ordinal and language == "de" and end < len(lower) and lower[end] in GERMAN_MONTHS:
            spans.append((start, end, text))  # a German date's day: "am 3. Oktober"
            taken = end
            continue
        if not text.isdigit() or occurrence.is_ordinal:
            continue
        styled = _styled(lower, start, end, _grouped(text, lower[:start], language), language)
        # a small number alone stays a word (text2num's threshold) unless its style makes it a sum or a time
        if (start, end) in counted or styled[2] != text:
            spans.append(styled)
            taken = styled[1]
    return spans


def _percent_masked(words: list[str], language: str) -> list[str]:
    """The words with the hundred of "per hundred" after a number (``PERCENT_PAIRS``) written ``%``: no number
    for text2num, the mark for ``_styled``; ``pour cent euros`` (no number before) is a sum, and stays."""
    ends = {o.end for o in find_numbers(as_tokens(words), language, 0)}
    return [("%" if k >= 2 and (words[k - 1], word) in PERCENT_PAIRS and k - 1 in ends else word)
            for k, word in enumerate(words)]


def _counted(found: list, mode: str) -> list:
    """text2num's numbers written in digits under ``mode``: its threshold keeps a digit alone a word; ten alone
    (``dix chiens``), which it writes whatever the threshold, stays one too under ``digits``, and so does a
    one-word one anywhere: an article as often as a number (``un cinco por ciento``, ``ein Mann``), it makes
    no number beside it a count either."""
    if mode != "digits":
        return found
    said = [o for o in found if not (o.end - o.start == 1 and o.value == 1)]
    starts, ends = {o.start for o in said}, {o.end for o in said}
    return [o for o in said if not (o.end - o.start == 1 and o.value <= SMALL
                                    and o.start not in ends and o.end not in starts)]


def _grouped(text: str, before: list[str], language: str) -> str:
    """Digit groups of a number of five digits and more (``300000`` -> ``300 000``), in French of four
    digits and more but a year's (after ``FRENCH_YEAR_BEFORE``)."""
    shortest = 4 if language == "fr" and not (before and before[-1] in FRENCH_YEAR_BEFORE) else 5
    if len(text) < shortest:
        return text
    groups = [text[max(0, k - 3): k] for k in range(len(text), 0, -3)][::-1]
    return GROUP_SEPARATOR[language].join(groups)


def _styled(words: list[str], start: int, end: int, number: str, language: str) -> tuple[int, int, str]:
    """The span grown over what the language writes with the number: per cent, its currency, French hours and
    minutes, Spanish quarters."""
    after = words[end:end + 2]
    if after[1:] == ["%"] or after and after[0] in PERCENT_WORDS:  # "pour %" (_percent_masked), "prozent"
        return start, end + (2 if after[1:] == ["%"] else 1), number + PERCENT_SPACE[language] + "%"
    if after and after[0] in CURRENCIES:
        return start, end + 1, number + NO_BREAK_SPACE + CURRENCIES[after[0]]
    if language == "fr" and after and after[0] in FRENCH_HOURS:
        minutes = find_numbers(as_tokens(words[end + 1:end + 3]), language, 0)  # up to two words: vingt cinq
        if minutes and minutes[0].start == 0 and minutes[0].text.isdigit() and int(minutes[0].text) < 60:
            hour = f"{number}{NO_BREAK_SPACE}h{NO_BREAK_SPACE}{int(minutes[0].text):02d}"
            return start, end + 1 + minutes[0].end, hour
        return start, end + 1, f"{number}{NO_BREAK_SPACE}h"
    if language == "es" and start > 0 and words[start - 1] in ("la", "las") and tuple(after) in SPANISH_QUARTERS:
        return start, end + 2, f"{number}:{SPANISH_QUARTERS[tuple(after)]:02d}"
    return start, end, number
