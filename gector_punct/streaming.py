"""Live captions: words arrive a few at a time, and each leaves restored once it is final, never rewritten.

``StreamingPunctuator(punctuator, lookahead=K, context_words=C)``: ``push(words) -> final words`` takes the
recogniser's newest words and returns, written out (marks, case), every word that now has ``K`` words after
it; ``end() -> final words`` closes the utterance: the rest become final and the next utterance starts
with no context. A word's tags are decided once, from a window of at most ``C`` final words before it and
the pending words after it, all as the recogniser gave them (so ``K`` = infinity gives exactly the
tags ``Punctuator.predict_tags`` gives the utterance as one line). Each update encodes one bounded window, whatever the length
of the history; an update that finalises nothing runs no model. The decoder's guarantee holds across
updates too: a word after a sentence end the tagger added to an earlier final word starts upper-case.
"""
from __future__ import annotations

from collections import deque

from .predictor import Punctuator
from .tags import Tag, capitalise_sentence_starts


class StreamingPunctuator:
    def __init__(self, punctuator: Punctuator, lookahead: int = 8, context_words: int = 50):
        if lookahead < 0 or context_words < 0:
            raise ValueError("lookahead and context_words must be >= 0")
        self.punctuator, self.lookahead = punctuator, lookahead
        self.context: deque[str] = deque(maxlen=context_words)  # final words, as they came in
        self.pending: list[str] = []
        self.last: tuple[str, Tag] | None = None  # the newest final word (not deleted) and its tag

    def push(self, words: list[str]) -> list[str]:
        self.pending.extend(words)
        return self._finalise(len(self.pending) - self.lookahead)

    def end(self) -> list[str]:
        final = self._finalise(len(self.pending))
        self.context.clear()
        self.last = None
        return final

    def _finalise(self, n: int) -> list[str]:
        if n <= 0:
            return []
        window = list(self.context) + self.pending
        (tags,) = self.punctuator.predict_tags([window])
        start, words = len(self.context), self.pending[:n]
        tags = tags[start: start + n]
        if self.last is not None:  # the word before was decided in an earlier update
            tags = capitalise_sentence_starts([self.last[0]] + words, [self.last[1]] + tags)[1:]
        kept = [(word, tag) for word, tag in zip(words, tags) if not tag.deletes]
        final = [tag.apply(word) for word, tag in kept]
        self.last = kept[-1] if kept else self.last
        self.context.extend(words)
        del self.pending[:n]
        return final
