"""Live captions: words arrive a few at a time, and each leaves restored once it is final, never rewritten.

``StreamingPunctuator(punctuator, lookahead=K, context_words=C)``: ``push(words) -> final words`` takes the
recogniser's newest words and returns, written out (marks, case), every word that now has ``K`` words after
it; ``end() -> final words`` closes the utterance: the rest become final and the next utterance starts
with no context. A word's tags are decided once, from a window of at most ``C`` final words before it and
the pending words after it, all as the recogniser gave them (so ``K`` = infinity gives exactly the
tags ``Punctuator.predict_tags`` gives the utterance as one line). Each update encodes one bounded window, whatever the length
of the history; an update that finalises nothing runs no model.
"""
from __future__ import annotations

from collections import deque

from .predictor import Punctuator


class StreamingPunctuator:
    def __init__(self, punctuator: Punctuator, lookahead: int = 8, context_words: int = 50):
        if lookahead < 0 or context_words < 0:
            raise ValueError("lookahead and context_words must be >= 0")
        self.punctuator, self.lookahead = punctuator, lookahead
        self.context: deque[str] = deque(maxlen=context_words)  # final words, as they came in
        self.pending: list[str] = []

    def push(self, words: list[str]) -> list[str]:
        self.pending.extend(words)
        return self._finalise(len(self.pending) - self.lookahead)

    def end(self) -> list[str]:
        final = self._finalise(len(self.pending))
        self.context.clear()
        return final

    def _finalise(self, n: int) -> list[str]:
        if n <= 0:
            return []
        window = list(self.context) + self.pending
        (tags,) = self.punctuator.predict_tags([window])
        start = len(self.context)
        final = [tag.apply(word) for word, tag in zip(self.pending[:n], tags[start: start + n]) if not tag.deletes]
        self.context.extend(self.pending[:n])
        del self.pending[:n]
        return final
