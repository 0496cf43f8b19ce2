"""English numbers: nemo_text_processing's inverse-normalisation tagger finds them and their kind (money, time,
date, measure, decimal, cardinal, ordinal, telephone); ``write_token`` writes each kind in the house style
(AP's and Chicago's common ground: ``$40,000``, ``$2.4 million``, ``3 p.m.``, ``3:30 p.m.``, ``March 3,
2001``, ``1990s``, ``15%``, ``447-2918``, ``12 km``, ``6 feet``), or None where the words stay (one to ten in
running text under ``digits``; ordinals but in dates, ``a second``, ``the first time``; a kind it does not
write). text2num writes the counts the tagger leaves as words (``eleven``, ``twelve``; under ``all_digits``
from two on).

In: a clause's cores (``read_english``). Out: ``(start, end, text)`` spans. The tagger's grammar is built
once into the cache (``cache_root()/nemo``, 5 s) and read from there (a few ms). nemo is an optional install
(``NEMO_INSTALL``, about 450 MB with pynini); ``require_english()`` says so in one line, and without it an
English line's numbers stay as spoken (``english_readable``: one note on stderr).
"""
from __future__ import annotations

import functools
import logging
import os
import shutil
import sys
import tempfile

from gector_punct.text.files import cache_root

NEMO_INSTALL = "pip install -r requirements-numbers.txt"
GRAMMAR = "en_itn_lower_cased.far"
# nemo's SI symbols written as symbols; any other unit (feet, miles, pounds) keeps the words it was spoken as.
SYMBOLS = {"km", "m", "cm", "mm", "kg", "g", "mg", "l", "ml", "km/h", "kph", "mph", "°c", "°f", "%"}
TIME_UNITS = {"h", "hr", "hrs", "min", "s", "sec", "ms", "d", "day", "days", "week", "weeks", "month", "months",
              "year", "years"}  # a length of time, written as a count
SMALL = 10  # under digits, a count up to this stays a word in running text
DIGIT_WORDS = frozenset("zero one two three four five six seven eight nine".split())
SMALL_WORDS = DIGIT_WORDS | frozenset("ten first second third fourth fifth sixth seventh eighth ninth tenth".split())
SCALES = frozenset("hundred thousand million billion trillion".split())
SCALES = SCALES | {scale + "s" for scale in SCALES}
LARGE_SCALES = {"million": 10 ** 6, "billion": 10 ** 9, "trillion": 10 ** 12}  # a round count of them keeps its word
# A four-digit count after these is a year, written without a comma (in 2010, the year 2010).
YEAR_BEFORE = frozenset("year in since until".split())
YEARS = range(1000, 2100)
# A year said in hundreds (fifteen hundred) after these is a year where no counted thing follows it: it ends
# its clause or a word follows that is counted never (around 1500, by 1800, the town; but 1,500 people).
HUNDREDS_YEAR_BEFORE = YEAR_BEFORE | frozenset("by around from till before after circa".split())
HUNDREDS = frozenset("eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split())
UNCOUNTED = frozenset("and or to until till when where while the a an this that there it he she they we i you on "
                      "at in by bc ad".split())
IRREGULAR_PLURALS = frozenset({"feet"})
REACH = 4  # words of a number's grammar read on each side of a number word
# Words a number's grammar joins its parts with, too common to make a small number worth reading (a number
# word beside one alone is not read under digits: ``one of them``); and words of its grammar its data lack.
CONNECTORS = frozenset("and point oh minus negative a of the to o'clock".split())
GRAMMAR_EXTRA = frozenset("half quarter past per cent percent".split())
# Words a spoken number is made of, that a clause must hold before the tagger reads it (a clause without one
# holds no number; the tagger costs milliseconds, the test microseconds).
NUMBER_WORDS = frozenset(
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "billion trillion first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth twenties "
    "thirties forties fifties sixties seventies eighties nineties hundreds thousands millions billions".split())


NOTE = "note: English numbers are left as words ({})"
_noted = False  # whether NOTE was written


class NumbersUnavailable(ValueError):
    """The library a language's numbers need is not installed; the message says what to install."""


def require_english() -> None:
    """Raise ``NumbersUnavailable`` unless nemo_text_processing can be imported (checked before any output)."""
    try:
        import nemo_text_processing  # noqa: F401
        import pynini  # noqa: F401
    except ImportError:
        raise NumbersUnavailable(f"numbers as digits need nemo_text_processing for English: {NEMO_INSTALL}") from None


def english_readable(words: list[str]) -> bool:
    """Whether nemo can be imported to read these words; where it cannot (the input's language needed no nemo:
    ``spans.numbers_available``), an English line's numbers stay as spoken, with ``NOTE`` on stderr once per
    process, at the first such line that holds a number word."""
    global _noted
    try:
        require_english()
        return True
    except NumbersUnavailable as err:
        if not _noted and any(word in NUMBER_WORDS for word in words):
            print(NOTE.format(err), file=sys.stderr)
            _noted = True
        return False


@functools.lru_cache(maxsize=1)
def _tagger():
    """nemo's English tagger FST (``ClassifyFst``), its grammar read from the cache, built there first."""
    require_english()
    logging.getLogger("NeMo-text-processing").setLevel(logging.WARNING)
    from nemo_text_processing.inverse_text_normalization.en.taggers.tokenize_and_classify import ClassifyFst

    folder = os.path.join(cache_root(), "nemo")
    if not os.path.exists(os.path.join(folder, GRAMMAR)):
        os.makedirs(folder, exist_ok=True)
        building = tempfile.mkdtemp(dir=folder)  # built aside, renamed in whole: a reader never sees half of it
        try:
            ClassifyFst(cache_dir=building, input_case="lower_cased")
            os.replace(os.path.join(building, GRAMMAR), os.path.join(folder, GRAMMAR))
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return ClassifyFst(cache_dir=folder, input_case="lower_cased").fst


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> list[tuple[str, object]]:
    """The tagger's reading of lower-case spoken text: ``(kind, value)`` per token, ``("name", word)`` for a
    word it leaves, else a kind (``money``) and its fields (``{"integer_part": "25", ...}``)."""
    import pynini
    from nemo_text_processing.text_normalization.token_parser import TokenParser

    lattice = pynini.escape(text) @ _tagger()
    parser = TokenParser()
    parser(pynini.shortestpath(lattice, nshortest=1, unique=True).string())
    return [next(iter(token["tokens"].items())) for token in parser.parse()]


def read_english(cores: list[str], mode: str) -> list[tuple[int, int, str]]:
    """A clause's numbers (``readers.reader``'s ``read``), the tagger run on each of its ``windows``; none
    without nemo (``english_readable``)."""
    lower = [core.lower() for core in cores]
    if not english_readable(lower):
        return []
    spoken = spoken_forms(lower)
    spans = []
    for first, last in windows(spoken, mode):
        found = aligned(spoken[first:last], tokens(" ".join(spoken[first:last])))
        for start, end, value in (one for run in found or [] for one in _one_each(spoken[first:last], run)):
            start, end = start + first, end + first
            kind, value = _as_year(*value) if _a_year(lower, start, end) else value
            text = write_token(kind, value, cores[start:end], mode)
            if text is not None:
                spans.append((start, end, text))
    return sorted(spans + _counts(lower, spans, mode))


def windows(words: list[str], mode: str) -> list[tuple[int, int]]:
    """The parts of a clause the tagger reads (it costs about 1.5 ms a word): around each number word, the
    words of its grammar (``grammar_words``: units, currencies, months, ``p m``) next to it, and one word
    more on each side; parts that meet are one. Under ``digits`` a word up to ten alone (``one of them``, ``a
    second``, ``the fourth of july``) is not read: alone, it is a count or an ordinal that running text
    leaves as a word."""
    vocabulary, out = grammar_words(), []
    numbers = [k for k, word in enumerate(words) if word in NUMBER_WORDS]
    for k in numbers:
        if mode == "digits" and _alone(words, k, numbers, vocabulary):
            continue
        first, last = k, k + 1
        while first > 0 and k - first < REACH and words[first - 1] in vocabulary:
            first -= 1
        while last < len(words) and last - k < REACH and words[last] in vocabulary:
            last += 1
        first, last = max(0, first - 1), min(len(words), last + 1)
        if out and first <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _alone(words: list[str], k: int, numbers: list[int], vocabulary: frozenset[str]) -> bool:
    """Whether number word ``k`` is one up to ten (or its ordinal) with no other number word within two words
    and no word of a number's grammar but a connector beside it."""
    beside = words[max(0, k - 1): k] + words[k + 1: k + 2]
    return (words[k] in SMALL_WORDS and not any(j != k and abs(j - k) <= 2 for j in numbers)
            and not any(word in vocabulary and word not in CONNECTORS for word in beside))


@functools.lru_cache(maxsize=1)
def grammar_words() -> frozenset[str]:
    """Every word of the tagger's data files (numbers, ordinals, currencies, units, months, time suffixes and
    zones, magnitudes; not its web-address and abbreviation lists), with their plurals and the words its
    grammars join numbers with (``CONNECTORS``)."""
    import nemo_text_processing

    root = os.path.join(os.path.dirname(nemo_text_processing.__file__), "inverse_text_normalization", "en", "data")
    words = set(NUMBER_WORDS | CONNECTORS | GRAMMAR_EXTRA)
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".tsv") and "whitelist" not in name and "electronic" not in folder:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    words.update(w for line in f for column in line.lower().split("\t") for w in column.split())
    return frozenset(words | {word + "s" for word in words} | {word + "es" for word in words} | IRREGULAR_PLURALS)


def _counts(words: list[str], spans: list[tuple[int, int, str]], mode: str) -> list[tuple[int, int, str]]:
    """The counts the tagger leaves as words (``eleven players``; under ``all_digits`` from two on, ``three
    kids``), read by text2num, outside the spans found and apart from other number words left (``nine
    ninety nine`` stays: half of it is no number); ``one`` stays (a pronoun as often as a count), and so does
    a scale alone (``the last hundred years``, ``millions of people``: no count said)."""
    from text_to_num import find_numbers

    from gector_punct.text.numbers.european import as_tokens

    taken = {k for start, end, _ in spans for k in range(start, end)}
    least = 2 if mode == "all_digits" else SMALL + 1
    left = [k not in taken and word in NUMBER_WORDS for k, word in enumerate(words)] + [False]
    return [(o.start, o.end, o.text) for o in find_numbers(as_tokens(words), "en", 2)
            if not o.is_ordinal and o.text.isdigit() and int(o.text) >= least
            and not taken.intersection(range(o.start, o.end)) and not SCALES.issuperset(words[o.start: o.end])
            and not left[o.start - 1] and not left[o.end]]  # a run of number words whole or not at all


def spoken_forms(words: list[str]) -> list[str]:
    """The words as the tagger's grammar expects them, one for one: ``oh`` between digits is zero (``two oh
    four``), ``a`` before a scale is one (``a hundred dollars``)."""
    out = list(words)
    for k, word in enumerate(words):
        inside = 0 < k < len(words) - 1
        if word == "oh" and inside and words[k - 1] in DIGIT_WORDS | {"oh"} and words[k + 1] in DIGIT_WORDS | {"oh"}:
            out[k] = "zero"
        elif word == "a" and k + 1 < len(words) and words[k + 1] in SCALES:
            out[k] = "one"
    return out


def _one_each(words: list[str], run: tuple[int, int, list]) -> list[tuple[int, int, tuple[str, object]]]:
    """A run of tokens side by side (``eleven p m second``: a time, an ordinal) cut into one span a token:
    each token's words are the shortest start of the rest that the tagger reads as that token alone. A run it
    cannot cut stays as spoken."""
    start, end, values = run
    out = []
    for k, value in enumerate(values):
        if k == len(values) - 1:
            out.append((start, end, value))
            break
        cut = next((e for e in range(start + 1, end) if tokens(" ".join(words[start:e])) == [value]), None)
        if cut is None:
            return []
        out.append((start, cut, value))
        start = cut
    return out


def _a_year(words: list[str], start: int, end: int) -> bool:
    """Whether the words ``start:end`` of a clause stand where a year does: after ``YEAR_BEFORE``, or a year said
    in hundreds (``HUNDREDS``, then ``hundred``) after ``HUNDREDS_YEAR_BEFORE`` with no counted thing after it."""
    before = words[start - 1] if start > 0 else None
    in_hundreds = end - start == 2 and words[start] in HUNDREDS and words[start + 1] == "hundred"
    return before in YEAR_BEFORE or (in_hundreds and before in HUNDREDS_YEAR_BEFORE
                                     and (end == len(words) or words[end] in UNCOUNTED))


def _as_year(kind: str, value) -> tuple[str, object]:
    """A four-digit count read as a year where a year stands (``YEAR_BEFORE``)."""
    if kind == "cardinal" and _text(value, "integer").isdigit() and int(value["integer"]) in YEARS:
        return "date", {"year": value["integer"]}
    return kind, value


def aligned(words: list[str], tagged: list[tuple[str, object]]):
    """The tagger's tokens laid over the words: each word it left (``name`` equal to the word) stays; each run
    of other tokens covers the words between: ``[(start, end, [(kind, value), ...])]``, or None where no
    laying fits (a word the tagger rewrote into another word, ``mister`` -> ``mr.``: the clause stays)."""
    out, at, k = [], 0, 0
    while k < len(tagged):
        kind, value = tagged[k]
        if kind == "name" and at < len(words) and value == words[at]:
            at, k = at + 1, k + 1
            continue
        run = []
        while k < len(tagged) and tagged[k][0] != "name":
            run.append(tagged[k])
            k += 1
        if not run:
            return None
        end = _next_anchor(words, at, tagged[k][1] if k < len(tagged) else None, len(tagged) - k)
        if end is None or end <= at:
            return None
        out.append((at, end, run))
        at = end
    return out if at == len(words) else None


def _next_anchor(words: list[str], at: int, word: str | None, left: int) -> int | None:
    """Where a run of number tokens ends: before the last place the next kept word can stand with the
    ``left`` tokens still to lay (a run takes as many words as it can), or the clause's end."""
    if word is None:
        return len(words)
    for end in range(len(words) - left, at, -1):
        if words[end] == word:
            return end
    return None


def write_token(kind: str, value, words: list[str], mode: str) -> str | None:
    """One token of the tagger in the house style, or None to keep its words (module docstring)."""
    write = WRITERS.get(kind)
    return write(value, words, mode) if write else None


def _text(value: dict, key: str) -> str:
    """A field of a token, empty where the tagger wrote none."""
    return value.get(key) or ""


def grouped(digits: str) -> str:
    """``40000`` -> ``40,000``."""
    return f"{int(digits):,}" if digits.isdigit() else digits


def _cardinal(value: dict, words: list[str], mode: str) -> str | None:
    integer = _text(value, "integer")
    if not integer.isdigit() or (mode == "digits" and int(integer) <= SMALL and not value.get("negative")):
        return None
    sign, scale = "-" if value.get("negative") else "", words[-1].lower() if words else ""
    if scale in LARGE_SCALES and int(integer) % LARGE_SCALES[scale] == 0:
        return f"{sign}{grouped(str(int(integer) // LARGE_SCALES[scale]))} {words[-1]}"  # 417 million
    return sign + grouped(integer)


def _decimal(value: dict, words: list[str], mode: str) -> str | None:
    integer, fraction = _text(value, "integer_part") or "0", _text(value, "fractional_part")
    if not integer.isdigit() or (fraction and not fraction.isdigit()):
        return None
    number = ("-" if value.get("negative") else "") + grouped(integer) + (f".{fraction}" if fraction else "")
    return f"{number} {value['quantity']}" if value.get("quantity") else number


def _money(value: dict, words: list[str], mode: str) -> str | None:
    """``$25.50``, ``€1,200``, ``$2.4 million``, ``5 cents``; a currency without a sign (``chf``) stays as said."""
    currency = _text(value, "currency")
    integer, fraction = _text(value, "integer_part") or "0", _text(value, "fractional_part")
    if len(currency) != 1 or not integer.isdigit() or (fraction and not fraction.isdigit()):
        return None
    if value.get("quantity"):
        return currency + grouped(integer) + (f".{fraction}" if fraction else "") + f" {value['quantity']}"
    if integer == "0" and fraction:
        return f"{int(fraction)} cents" if currency == "$" else None
    return currency + grouped(integer) + (f".{fraction.ljust(2, '0')}" if fraction else "")


def _measure(value: dict, words: list[str], mode: str) -> str | None:
    units = _text(value, "units")
    inner = value.get("decimal") or value.get("cardinal")
    if not inner:
        return None
    # a length of time is a count (two hours); any other measure is in digits however small (6 feet, 2%)
    inner_mode = mode if units.lower() in TIME_UNITS else "all_digits"
    number = _decimal(inner, words, inner_mode) if "decimal" in value else _cardinal(inner, words, inner_mode)
    if number is None:
        return None
    if units == "%":
        return number + "%"
    if units.lower() in SYMBOLS:
        return f"{number} {units}"
    spoken = _unit_words(words)
    return f"{number} {spoken}" if spoken else None


def _unit_words(words: list[str]) -> str:
    """The words after a measure's last number word: its unit as spoken (``feet``)."""
    last = max((k for k, word in enumerate(words) if word.lower() in NUMBER_WORDS | {"point", "and", "a"}),
               default=-1)
    return " ".join(words[last + 1:])


def _time(value: dict, words: list[str], mode: str) -> str | None:
    hours, minutes = _text(value, "hours"), _text(value, "minutes") or "00"
    suffix, zone = _text(value, "suffix"), _text(value, "zone")
    if not hours.isdigit() or not minutes.isdigit() or (minutes == "00" and not suffix):
        return None  # "three o'clock" stays as said
    text = str(int(hours)) + (f":{minutes}" if minutes != "00" else "")
    return " ".join(part for part in (text, suffix, zone.upper()) if part)


def _date(value: dict, words: list[str], mode: str) -> str | None:
    month, day, year = _text(value, "month"), _text(value, "day"), _text(value, "year")
    if month:
        month = next((word for word in words if word.lower() == month), month)  # as the restoration cased it
    if day and not day.isdigit():
        return None
    if month and day:
        return f"{month} {int(day)}" + (f", {year}" if year else "")
    if month and year:
        return f"{month} {year}"
    return year or None


def _telephone(value: dict, words: list[str], mode: str) -> str | None:
    """A number said digit by digit (``four four seven two nine one eight``): ``447-2918``; one said otherwise
    (``nine ninety nine``) is no phone number."""
    number = _text(value, "number_part").replace(" ", "").replace("-", "")
    if len(value) != 1 or not number.isdigit() or not all(w.lower() in DIGIT_WORDS | {"oh"} for w in words):
        return None
    if len(number) == 7:
        return f"{number[:3]}-{number[3:]}"
    if len(number) == 10:
        return f"{number[:3]}-{number[3:6]}-{number[6:]}"
    return number


WRITERS = {"cardinal": _cardinal, "decimal": _decimal, "money": _money, "measure": _measure,
           "time": _time, "date": _date, "telephone": _telephone}
