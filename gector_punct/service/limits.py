"""How much a request or a stream message may ask of the model, checked before any model work.

``check_words(texts, max_words, flag, what)`` returns the words of ``texts`` (``units.split_units``: a word
where the script writes spaces, a character where it writes none: what ``predict.py``'s ``--chunk_words``
counts) or raises ``ClientError(413)`` naming the limit's flag, when they are more than ``max_words`` or
their characters more than ``CHARS_PER_WORD`` times that. It is ``check_size`` (the cheap bounds: characters
and whitespace tokens, so that a text of a megabyte is refused without being split into units) then
``check_count`` of the units; a caller that splits the texts anyway (a request, into its chunks) calls the
two itself and splits once.
"""
from __future__ import annotations

from collections.abc import Sequence

from gector_punct.service.contract import ClientError
from gector_punct.service.settings import CHARS_PER_WORD
from gector_punct.text.units import split_units


def check_words(texts: Sequence[str], max_words: int, flag: str, what: str) -> int:
    """The words of ``texts`` (413 naming ``--flag`` when over the limit); ``what``: 'one request' ..."""
    check_size(texts, max_words, flag, what)
    return check_count(sum(len(split_units(text)) for text in texts), max_words, flag, what)


def check_size(texts: Sequence[str], max_words: int, flag: str, what: str) -> None:
    """413 when ``texts`` have more characters than ``max_words`` words may, or more whitespace tokens than
    ``max_words`` (each token is at least one unit: a lower bound of the words)."""
    chars, max_chars = sum(map(len, texts)), max_words * CHARS_PER_WORD
    if chars > max_chars:
        raise ClientError(413, f"{chars} characters: at most {max_chars} in {what} ({CHARS_PER_WORD} a word of "
                               f"--{flag} {max_words})")
    check_count(sum(len(text.split()) for text in texts), max_words, flag, what)


def check_count(words: int, max_words: int, flag: str, what: str) -> int:
    """``words``, or 413 naming ``--flag`` when they are more than ``max_words``."""
    if words > max_words:
        raise ClientError(413, f"{words} words: at most {max_words} in {what} (--{flag})")
    return words
