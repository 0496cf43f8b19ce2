"""Word-timed transcripts restored: segments of timed words in (``text.timed_words``), the same segments out
with each word written (marks, case) and its confidence, or subtitle cues built from the written words.

``restored_segments(punctuator, segments, chunk_words)`` yields ``(segment, results)`` in order, ``results``
one per word of the segment: its ``RestoredWord``, or None where the restoration removes it (deleted under
``disf``) or it has no text (kept as it was). A recogniser's word with a space inside (``New York``) is
restored as its parts and stays one word, its parts joined by a space. All the words are one stream, read as ``predict`` reads a
line (a whole utterance unless ``fragments``), restored by a ``StreamingPunctuator`` fed ``chunk_words``
words at a time with ``LOOKAHEAD`` words of right context and ``CONTEXT`` of left context: memory holds one
chunk, whatever the length of the transcript, and a sentence may run across segments.

``written_segments`` pairs each segment's words with their results, merging a number's words into one timed
word as the punctuator's numbers setting says (``--numbers digits``: ``twenty five dollars`` -> ``$25``, from
the first word's start to the last's end, its confidence and the recogniser's score their lowest, the first
word's speaker); a number never spans two segments. ``write_json(punctuator, path, shape, out,
chunk_words)``: the transcript in its own shape, each word's text restored, ``confidence`` and ``review``
added, times kept, removed words dropped, each segment's ``text`` rebuilt from its words.
``write_cues(punctuator, path, shape, out, fmt, chunk_words, limits)``: SubRip or WebVTT cues of the written words (``cues.CueBuilder``). Both return (words in, items out).
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from gector_punct.prediction.cues import VTT_HEADER, CueBuilder, CueLimits, format_cue
from gector_punct.prediction.restored import RestoredWord, merged_restored, restored_word
from gector_punct.prediction.streaming import StreamingPunctuator, caption_text
from gector_punct.text.numbers.spans import NumberSpan, line_number_spans, merged
from gector_punct.text.timed_words import WORD_TEXT, Segment, TimedJsonWriter, TimedWord, read_segments

LOOKAHEAD = 64  # words of right context a word waits for (a window's worth: as a batch line reads it)
CONTEXT = 64  # final words kept as the left context of the next chunk
RECOGNISER_SCORES = ("score", "conf", "probability")  # WhisperX's, Vosk's, faster-whisper's word confidence


def restored_segments(punctuator, segments: Iterator[Segment],
                      chunk_words: int) -> Iterator[tuple[Segment, list[RestoredWord | None]]]:
    streamer = StreamingPunctuator(punctuator, lookahead=LOOKAHEAD, context_words=CONTEXT)
    waiting: deque[tuple[Segment, list[int]]] = deque()  # segments not yet written; per word, its tokens' count
    results: deque[RestoredWord | None] = deque()  # final results, of the tokens of waiting[0]'s words onwards
    batch: list[str] = []
    threshold = punctuator.review_threshold

    def ready() -> Iterator[tuple[Segment, list[RestoredWord | None]]]:
        while waiting and sum(waiting[0][1]) <= len(results):
            segment, counts = waiting.popleft()
            yield segment, [_joined([results.popleft() for _ in range(count)], threshold) for count in counts]

    for segment in segments:
        counts = []
        for word in segment.words:
            parts = word.text.split()  # a recogniser's "word" with a space inside ("New York") stays one
            batch.extend(parts)
            counts.append(len(parts))
        waiting.append((segment, counts))
        if len(batch) >= chunk_words:
            results.extend(streamer.push_scored(batch))
            batch = []
            yield from ready()
    results.extend(streamer.push_scored(batch) + streamer.end_scored())
    yield from ready()


def written_segments(punctuator, segments: Iterator[Segment],
                     chunk_words: int) -> Iterator[tuple[Segment, list[tuple[TimedWord, RestoredWord | None]]]]:
    """``restored_segments``' segments, each word paired with its result, a number's words merged into one
    timed word as the punctuator's numbers setting says (``merged_number``): what both writers write."""
    for segment, results in restored_segments(punctuator, segments, chunk_words):
        pairs = list(zip(segment.words, results))
        kept = [k for k, (word, result) in enumerate(pairs) if word.text and result is not None]
        spans = line_number_spans([pairs[k][1].text for k in kept], punctuator.numbers)
        # a number spans the pairs from its first word to its last: a word without text among them keeps it apart
        spans = [NumberSpan(kept[s.start], kept[s.end - 1] + 1, s.text) for s in spans
                 if all(word.text for word, _ in pairs[kept[s.start]: kept[s.end - 1] + 1])]
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
    return TimedWord(text, first.start, last.end, fields), result


def _joined(parts: list[RestoredWord | None], threshold: float) -> RestoredWord | None:
    """One timed word from its tokens' results: their texts joined by a space, as one written word."""
    kept = [part for part in parts if part is not None]
    if len(kept) <= 1:
        return kept[0] if kept else None
    return restored_word(" ".join(part.text for part in kept), [part.confidence for part in kept], threshold)


def _segment_text(segment: Segment, written: list[str]) -> str:
    """A segment's text from its written words, with the leading space its recogniser wrote (Whisper's)."""
    lead = " " if str(segment.fields.get("text", "")).startswith(" ") else ""
    return lead + caption_text(written) if written else ""


def write_json(punctuator, path: str, shape: str, out, chunk_words: int) -> tuple[int, int]:
    writer, top = TimedJsonWriter(out, shape, path), {}
    words_in = segments_out = 0
    for segment, pairs in written_segments(punctuator, read_segments(path, shape, top), chunk_words):
        words, written = [], []
        words_in += len(segment.words)
        for word, result in pairs:
            if not word.text:
                words.append(word.fields)
                continue
            if result is None:
                continue
            raw = word.fields[WORD_TEXT[shape]]
            lead = raw[: len(raw) - len(raw.lstrip())]
            words.append({**word.fields, WORD_TEXT[shape]: lead + result.text,
                          "confidence": round(result.confidence, 4), "review": result.review})
            written.append(result.text)
        writer.write(segment, words, _segment_text(segment, written))
        segments_out += 1
    writer.close(top)
    return words_in, segments_out


def write_cues(punctuator, path: str, shape: str, out, fmt: str, chunk_words: int,
               limits: CueLimits = CueLimits()) -> tuple[int, int]:
    builder, number, words_in = CueBuilder(limits), 0, 0
    if fmt == "vtt":
        out.write(VTT_HEADER)

    def emit(cues) -> None:
        nonlocal number
        for cue in cues:
            number += 1
            out.write(format_cue(number, cue, fmt))

    for segment, pairs in written_segments(punctuator, read_segments(path, shape), chunk_words):
        words_in += len(segment.words)
        for word, result in pairs:
            if result is not None:
                emit(builder.add(word.start, word.end, result.text))
    emit(builder.finish())
    return words_in, number
