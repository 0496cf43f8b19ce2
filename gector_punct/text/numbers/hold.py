"""A stream's final words held while a number in them may still grow, for live captions (``--stream``).

In: final words as a stream gives them (``push``), items with a ``text`` (``RestoredWord``). Out: the words
that may be written, their numbers merged (``spans.line_number_spans`` and ``spans.merged`` with ``join``).
A word a number may start with is held (the word before a number word too: ``a hundred``, ``minus
twenty``) until its clause closes (a word with a trailing mark, but a letter's period: ``P.`` may be
followed by ``M``, and a number word's comma: the number may go on past it, ``spans.inside_marks``) or
``TAIL`` words have followed the last number word; ``finish()`` gives what is held. A word that no number can
reach is written at once, but the newest word, which the next may turn into one (``a`` before ``hundred``).
The language is guessed from the held words and the ``CONTEXT`` words written before them, not from a held
number alone.
"""
from __future__ import annotations

from collections.abc import Callable

from gector_punct.text.language import language_of
from gector_punct.text.numbers.readers import is_number_word
from gector_punct.text.numbers.spans import merged, number_spans, pause
from gector_punct.text.units import split_edges

TAIL = 4  # words after the last number word that may still belong to it (p m, dollars and fifty cents)
CONTEXT = 12  # words written before the held ones that the language guess reads too


class NumberHold:
    def __init__(self, mode: str, join: Callable[[list, str], object]):
        self.mode, self.join = mode, join
        self.held: list = []
        self.last_number: int | None = None  # where in ``held`` the newest number word is (each word read once)
        self.recent: list[str] = []  # the texts of the last CONTEXT words written

    def push(self, words: list) -> list:
        if self.mode == "words":
            return words
        out = []
        for word in words:
            self.held.append(word)
            if is_number_word(split_edges(word.text)[1].lower()):
                self.last_number = len(self.held) - 1
            out.extend(self._ready())
        return out

    def finish(self) -> list:
        out = self._written(self.held)
        self.held, self.last_number = [], None
        return out

    def _released(self, words: list) -> list:
        self.recent = (self.recent + [word.text for word in words])[-CONTEXT:]
        return words

    def _ready(self) -> list:
        _, core, trail = split_edges(self.held[-1].text)
        closed = bool(trail) and not (trail == "." and len(core) == 1)  # "P." waits: "M" may follow
        # a number word's comma waits too: the number may go on past it (spans.inside_marks, "mil novecientos,")
        closed = closed and not (pause(trail) and is_number_word(core.lower()))
        if closed or (self.last_number is not None and len(self.held) - 1 - self.last_number >= TAIL):
            return self.finish()
        if self.last_number is not None:
            return []
        out, self.held = self.held[:-1], self.held[-1:]
        return self._released(out)

    def _written(self, words: list) -> list:
        texts = [word.text for word in words]
        language = language_of(self.recent + texts) or "en"
        return self._released(merged(words, number_spans(texts, language, self.mode), self.join))
