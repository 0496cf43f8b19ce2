"""Live captions: words arrive a few at a time, and each leaves restored once it is final, never rewritten.

``StreamingPunctuator(punctuator, lookahead=K, context_words=C)``: ``push(words) -> final words`` takes the
recogniser's newest words and returns, written out (marks, case), every word that now has ``K`` words after
it; ``end() -> final words`` closes the utterance: the rest become final and the next utterance starts
with no context. Unless the punctuator reads ``fragments``, an utterance is read as ``predict`` reads a
whole line: its first word starts upper-case and ``end`` gives its last word a closing mark
(``line_rules.close_utterance``). A word is tagged per unit (``units.split_units``: a Chinese word's characters) and comes
back as one word (None never: a word that is deleted whole is left out). ``caption_text`` joins final
words as the batch output joins them.

A word's tags are decided once, from a window of at most ``C`` final words before it and the pending
words after it, all as the recogniser gave them (read as ``Punctuator.predict`` reads a line: the
``existing`` mode); the final words keep the tags they were given (``Punctuator.decode``'s ``given``), so
the new words are decided in their context: a quote opened earlier may close, a word after a sentence end
an earlier update added starts upper-case. The words are written by the batch writer
(``tags.written_forms``) over the final words back to the newest one that was kept, then the pending ones,
so a final word reads as the batch writes it in that context (full-width marks in Chinese, what a deleted
word carried moved to its neighbours). The state is bounded: the writer's context keeps the newest kept unit,
the model's context and at most ``C`` deleted units before it (a run of deleted words hands its opening
marks and a capital to the next kept word; only units of a run longer than that are forgotten), so a
stream of words that are all deleted keeps a flat state and cost. With ``K`` = infinity an utterance is one
window: exactly the words of ``Punctuator.predict`` on it as one line (with ``iteration_count`` 1, the default). Each update encodes
one bounded window, whatever the length of the history; an update that finalises nothing runs no model.

``Captions(streamer)`` turns final words into caption text, the one loop ``predict.py --stream`` and the
service's streams share: ``push(words)`` / ``finish()`` give the text that follows what was written on the
utterance's line (``caption_text``), ``finish`` ending the utterance; ``open`` says whether it has words;
``push_scored`` / ``finish_scored`` give the words too, each with its confidence (the service's ``"words"``).
"""
from __future__ import annotations

from collections import deque

from gector_punct.prediction.punctuator import Punctuator, words_written
from gector_punct.prediction.restored import RestoredWord, merged_restored, restored_word
from gector_punct.prediction.settings import DEFAULTS
from gector_punct.text.numbers.hold import NumberHold
from gector_punct.text.tags import Tag, capitalise_sentence_starts, written_forms
from gector_punct.text.typography import typeset
from gector_punct.text.units import join_units

Unit = tuple[str, Tag]  # a final unit, as the recogniser gave it (read by ``existing``), and its tag


class StreamingPunctuator:
    def __init__(self, punctuator: Punctuator, lookahead: int = DEFAULTS.lookahead, context_words: int = 50):
        if lookahead < 0 or context_words < 0:
            raise ValueError("lookahead and context_words must be >= 0")
        self.punctuator, self.lookahead = punctuator, lookahead
        self.context: deque[list[Unit]] = deque(maxlen=context_words)  # final words, per word its units
        self.written: list[Unit] = []  # the final units since the newest one kept (it first): the writer's context
        self.pending: list[list[str]] = []  # per word that is not final yet, its units

    def push(self, words: list[str]) -> list[str]:
        return [word.text for word in self.push_scored(words, scored=False) if word is not None]

    def push_scored(self, words: list[str], scored: bool = True) -> list[RestoredWord | None]:
        """``push``, each word that became final with its confidence (``restored.RestoredWord``; without
        ``scored``, 1), in order, None for a word deleted whole: one entry per word given, once final."""
        if isinstance(words, str):
            raise TypeError("push takes a list of words (for a text: push(text.split()))")
        self.pending.extend(self.punctuator.read_units(words))
        return self._finalise(len(self.pending) - self.lookahead, scored=scored)

    def _bound_written(self) -> None:
        """``written``'s first unit (the newest kept one) and its last units: the model's context and ``C``
        more. ``_finalise`` reads the units before the context as ``older``: they stay in order."""
        limit = 1 + sum(map(len, self.context)) + (self.context.maxlen or 0)
        if len(self.written) > limit:
            self.written = self.written[:1] + self.written[len(self.written) - (limit - 1):]

    def end(self) -> list[str]:
        return [word.text for word in self.end_scored(scored=False) if word is not None]

    def end_scored(self, scored: bool = True, words: list[str] = ()) -> list[RestoredWord | None]:
        """``end``, as ``push_scored`` gives words; ``words``: the utterance's last words, read with the pending
        ones in one window (an utterance given whole this way reads as ``predict`` reads its line)."""
        self.pending.extend(self.punctuator.read_units(list(words)))
        final = self._finalise(len(self.pending), closes=not self.punctuator.fragments, scored=scored)
        self.context.clear()
        self.written = []
        return final

    def _finalise(self, n: int, closes: bool = False, scored: bool = False) -> list[RestoredWord | None]:
        if n <= 0:
            return []
        context = [unit for word in self.context for unit in word]
        pending = [unit for word in self.pending for unit in word]
        line = self.punctuator.tagger_line([unit for unit, _ in context] + pending)
        opens = not context and not self.punctuator.fragments  # the window begins an utterance
        given = [[tag for _, tag in context]]
        if scored:
            (tags,), (features,) = self.punctuator.predict_tags_scored([line], given=given, whole=closes, opens=opens)
        else:
            (tags,) = self.punctuator.predict_tags([line], given=given, whole=closes, opens=opens)
        # The writer's line: the final units back to the newest kept one (some may be older than the model's
        # context), then the window as the tagger read it.
        older = self.written[: max(0, len(self.written) - len(context))]
        units = [unit for unit, _ in older] + line
        tags = capitalise_sentence_starts(units, [tag for _, tag in older + context] + tags[len(context):])
        start = len(older) + len(context)
        words, size = self.pending[:n], sum(map(len, self.pending[:n]))
        forms = typeset(written_forms(units, tags), self.punctuator.typography)[start: start + size]
        final = list(zip(pending, tags[start:]))[:size]
        for unit in final:
            self.written = [unit] if not unit[1].deletes else self.written + [unit]
        for word in words:
            self.context.append(final[: len(word)])
            final = final[len(word):]
        self._bound_written()
        del self.pending[:n]
        at = len(context)
        confidence = self.punctuator.calibration.confidence(features[at: at + size]).tolist() if scored else [1.0] * size
        return restored_words(words, forms, confidence, self.punctuator.review_threshold)


def restored_words(words: list[list[str]], forms: list[str | None], confidence: list[float],
                   threshold: float) -> list[RestoredWord | None]:
    """Per word (its units), its written form (``words_written``) with the confidence of its kept units
    (``restored.restored_word``), or None where all of them vanish."""
    out, start = [], 0
    for word, written in zip(words, words_written(words, forms)):
        kept = [c for c, form in zip(confidence[start: start + len(word)], forms[start: start + len(word)]) if form]
        out.append(None if written is None else restored_word(written, kept, threshold))
        start += len(word)
    return out


def caption_text(words: list[str], previous: str | None = None) -> str:
    """Final words as the text that follows ``previous``, the newest word already written on the caption
    line (None: they start it): one space between two words except between two continuous-script
    characters, as ``units.join_units`` joins the batch output's words."""
    if previous is None:
        return join_units(words, [False] + [True] * (len(words) - 1))
    return join_units([previous] + words, [False] + [True] * len(words))[len(previous):]


class Captions:
    """One stream's caption lines, an utterance per line: ``push(words)`` -> the text its final words add
    to the current line ('' when none became final), ``finish()`` -> the text that ends the line (the
    utterance's last words), after which a new utterance starts. ``open``: the current utterance has a
    word written or pending (``finish`` then gives its line's end)."""

    def __init__(self, streamer: StreamingPunctuator):
        self.streamer = streamer
        self.last: str | None = None  # the newest word written on the current line
        # final words wait here while a number in them may grow (--numbers digits)
        self.numbers = NumberHold(streamer.punctuator.numbers, merged_restored)

    @property
    def open(self) -> bool:
        return self.last is not None or bool(self.streamer.pending) or bool(self.numbers.held)

    def push(self, words: list[str]) -> str:
        return self.push_scored(words, scored=False)[0]

    def push_scored(self, words: list[str], scored: bool = True) -> tuple[str, list[RestoredWord]]:
        """``push``'s text, and its words with their confidence (``StreamingPunctuator.push_scored``)."""
        return self._follow(self.numbers.push(self._kept(self.streamer.push_scored(words, scored))))

    def finish(self) -> str:
        return self.finish_scored(scored=False)[0]

    def finish_scored(self, scored: bool = True) -> tuple[str, list[RestoredWord]]:
        """``finish``'s text, and its words with their confidence."""
        out = self._follow(self.numbers.push(self._kept(self.streamer.end_scored(scored))) + self.numbers.finish())
        self.last = None
        return out

    @staticmethod
    def _kept(results: list[RestoredWord | None]) -> list[RestoredWord]:
        return [word for word in results if word is not None]

    def _follow(self, final: list[RestoredWord]) -> tuple[str, list[RestoredWord]]:
        texts = [word.text for word in final]
        text = caption_text(texts, self.last) if texts else ""
        self.last = texts[-1] if texts else self.last
        return text, final
