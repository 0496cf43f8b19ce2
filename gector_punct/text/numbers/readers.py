"""Which library reads a language's numbers: ``reader(language) -> read`` or None (no library: nothing changes).

``read(cores, mode) -> [(start, end, text)]``: a clause's words without their marks (``spans.clauses``), as
the restoration cased them, and the spans of them a number replaces, each with its written text.
``numbers_read(cores, language)``: where text2num reads numbers (which words make one number: ``spans``'
marks inside a number); ``is_number_word``: a word a number may hold (``hold``).
"""
from __future__ import annotations

from collections.abc import Callable

from text_to_num import find_numbers

from gector_punct.text.numbers.english import NUMBER_WORDS, read_english
from gector_punct.text.numbers.european import EUROPEAN, as_tokens, read_european

Read = Callable[[list[str], str], list[tuple[int, int, str]]]


def reader(language: str | None) -> Read | None:
    if language == "en":
        return read_english
    if language in EUROPEAN:
        return lambda cores, mode: read_european(cores, mode, language)
    return None


def numbers_read(cores: list[str], language: str) -> list[tuple[int, int]]:
    """Where text2num reads a number in lower-case words, ``(start, end)`` each, every number however small: how
    the words of one number are told from those of two (``vingt cinq`` is one, ``vingt trente`` two; in English
    too, where it never reads digits said one by one, ``one two three``, as one number)."""
    return [(o.start, o.end) for o in find_numbers(as_tokens(cores), language, 0)]


def is_number_word(word: str) -> bool:
    """Whether a lower-case word may be part of a spoken number in a language read here (a stream holds
    it: ``hold.NumberHold``)."""
    return word in NUMBER_WORDS or any(find_numbers(as_tokens([word]), language, 0) for language in EUROPEAN)
