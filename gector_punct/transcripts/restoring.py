"""Word-timed transcripts restored: segments of timed words in (``timed_words``), each word written (marks,
case) with its confidence out, a number's words merged into one timed word.

``restored_segments(punctuator, segments)`` yields ``(segment, results)`` in order, ``results`` one per word
of the segment: its ``RestoredWord``, or None where the restoration removes it (deleted under ``disf``) or it
has no text (kept as it was). A recogniser's word with a space inside (``New York``) is restored as its parts
and stays one word, its parts joined by a space. Each speaker turn is an utterance of its own, read as
``predict`` reads a line (a whole utterance unless ``fragments``): a change of speaker closes the sentence
before it and no window reads words across it. Within a turn the words are one stream (a sentence may run
across segments), restored by a ``StreamingPunctuator`` with ``LOOKAHEAD`` words of right context and
``CONTEXT`` of left context, fed ``STEP`` words at a time whatever the file's segments or ``--chunk_words``,
so the text depends on the words and speakers alone; memory holds a step, whatever the transcript's length.
A backchannel (``backchannels.marked_backchannels``: a listener's short turn said over another speaker's
sentence) closes no turn: the turn it interrupts runs on across it, and it is restored as an utterance of its
own, a statement where its words are a listener's tokens alone. A word without a speaker inside a diarised
transcript belongs to the turn it is in.

``written_segments`` pairs each segment's words with their results, merging a number's words into one timed
word as the punctuator's numbers setting says (``--numbers digits``: ``twenty five dollars`` -> ``$25``, from
the first word's start to the last's end, its confidence and the recogniser's score their lowest, the first
word's speaker); a number never spans two segments: what every writer (``formats``) writes.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import replace

from gector_punct.prediction.restored import RestoredWord, merged_restored, restored_word
from gector_punct.prediction.streaming import StreamingPunctuator
from gector_punct.text.numbers.spans import NumberSpan, line_number_spans, merged
from gector_punct.text.units import split_edges
from gector_punct.transcripts.backchannels import marked_backchannels, said_by_a_listener
from gector_punct.transcripts.timed_words import Segment, TimedWord

LOOKAHEAD = 64  # words of right context a word waits for (a window's worth: as a batch line reads it)
CONTEXT = 64  # final words kept as the left context of the next step
STEP = 2048  # words given to the streamer at a time: the windows it reads are the same on every run
RECOGNISER_SCORES = ("score", "conf", "probability")  # WhisperX's, Vosk's, faster-whisper's word confidence
_NO_TURN = object()  # the speaker before the first word


class _TurnStream:
    """The streamer fed ``STEP`` words at a time, a turn closed at each change of speaker."""

    def __init__(self, punctuator):
        self.streamer = StreamingPunctuator(punctuator, lookahead=LOOKAHEAD, context_words=CONTEXT)
        self.batch: list[str] = []
        self.speaker = _NO_TURN

    def add(self, parts: list[str], speaker) -> list[RestoredWord | None]:
        out = []
        if parts and speaker != self.speaker:
            if self.speaker is not _NO_TURN:
                out = self.end_turn()
            self.speaker = speaker
        self.batch.extend(parts)
        while len(self.batch) >= STEP:
            out.extend(self.streamer.push_scored(self.batch[:STEP]))
            del self.batch[:STEP]
        return out

    def end_turn(self) -> list[RestoredWord | None]:
        out = self.streamer.end_scored(words=self.batch)
        self.batch = []
        return out


def restored_segments(punctuator, segments: Iterator[Segment]) -> Iterator[tuple[Segment, list[RestoredWord | None]]]:
    stream, aside = _TurnStream(punctuator), _Backchannel(punctuator)
    waiting: deque[tuple[Segment, list[tuple[int, bool]]]] = deque()  # segments not yet written; per word, its
    # tokens' count and whether it is a backchannel's
    results: deque[RestoredWord | None] = deque()  # final results of the turns' tokens, from waiting[0]'s on
    asides: deque[RestoredWord | None] = deque()  # and of the backchannels' tokens
    threshold = punctuator.review_threshold

    def ready() -> Iterator[tuple[Segment, list[RestoredWord | None]]]:
        while waiting and sum(c for c, side in waiting[0][1] if not side) <= len(results) \
                and sum(c for c, side in waiting[0][1] if side) <= len(asides):
            segment, counts = waiting.popleft()
            yield segment, [_joined([(asides if side else results).popleft() for _ in range(count)], threshold)
                            for count, side in counts]

    for segment in marked_backchannels(segments):
        counts = []
        for word in segment.words:
            parts = word.text.split()  # a recogniser's "word" with a space inside ("New York") stays one
            if word.backchannel and parts:
                aside.add(parts)
            else:
                asides.extend(aside.end())
                results.extend(stream.add(parts, word.speaker))
            counts.append((len(parts), word.backchannel and bool(parts)))
        waiting.append((segment, counts))
        yield from ready()
    asides.extend(aside.end())
    results.extend(stream.end_turn())
    yield from ready()


class _Backchannel:
    """A backchannel's words, restored as an utterance of their own once it ends: a statement where its words
    are a listener's tokens alone (``Right.``, not ``Right?``)."""

    def __init__(self, punctuator):
        self.streamer = StreamingPunctuator(punctuator, lookahead=0, context_words=0)
        self.words: list[str] = []

    def add(self, parts: list[str]) -> None:
        self.words.extend(parts)

    def end(self) -> list[RestoredWord | None]:
        if not self.words:
            return []
        out = self.streamer.end_scored(words=self.words)
        if said_by_a_listener(self.words):
            out = [_stated(result) if result is not None and k == len(out) - 1 else result
                   for k, result in enumerate(out)]
        self.words = []
        return out


def _stated(result: RestoredWord) -> RestoredWord:
    """A restored word whose question mark at its end is a period."""
    lead, core, trail = split_edges(result.text)
    if "?" not in trail:
        return result
    return replace(result, text=lead + core + trail.replace("?", "."))


def written_segments(punctuator, segments: Iterator[Segment]
                     ) -> Iterator[tuple[Segment, list[tuple[TimedWord, RestoredWord | None]]]]:
    """``restored_segments``' segments, each word paired with its result, a number's words merged into one
    timed word as the punctuator's numbers setting says (``merged_number``): what the writers write."""
    for segment, results in restored_segments(punctuator, segments):
        pairs = list(zip(segment.words, results))
        kept = [k for k, (word, result) in enumerate(pairs) if word.text and result is not None]
        spans = line_number_spans([pairs[k][1].text for k in kept], punctuator.numbers)
        # a number spans the pairs from its first word to its last: a word without text among them keeps it
        # apart, and so does a change of speaker
        spans = [NumberSpan(kept[s.start], kept[s.end - 1] + 1, s.text) for s in spans
                 if all(word.text and word.speaker == pairs[kept[s.start]][0].speaker
                        for word, _ in pairs[kept[s.start]: kept[s.end - 1] + 1])]
        yield segment, merged(pairs, spans, merged_number)


def merged_number(run: list[tuple[TimedWord, RestoredWord | None]], text: str) -> tuple[TimedWord, RestoredWord]:
    """A number's timed words as one: from the first's start to the last's end, with the first's fields (its
    speaker), the lowest of the recogniser's scores and of the restoration's confidences."""
    first, last = run[0][0], run[-1][0]
    fields = dict(first.fields)
    if "end" in fields or "end" in last.fields:
        fields["end"] = last.fields.get("end", last.end)
    for key in RECOGNISER_SCORES:
        scores = [word.fields[key] for word, _ in run if isinstance(word.fields.get(key), (int, float))]
        if scores:
            fields[key] = min(scores)
    result = merged_restored([result for _, result in run if result is not None], text)
    return TimedWord(text, first.start, last.end, fields, first.speaker), result


def _joined(parts: list[RestoredWord | None], threshold: float) -> RestoredWord | None:
    """One timed word from its tokens' results: their texts joined by a space, as one written word."""
    kept = [part for part in parts if part is not None]
    if len(kept) <= 1:
        return kept[0] if kept else None
    return restored_word(" ".join(part.text for part in kept), [part.confidence for part in kept], threshold)
