"""A word-timed transcript restored and written in a format: one path for predict.py's files and for Python.

``restore_transcript(punctuator, result) -> RestoredTranscript``: ``result`` a recogniser's result in memory, as
its JSON holds it (a WhisperX / faster-whisper dict, the list of faster-whisper's segments, a Vosk result or a
list of them) or faster-whisper's ``Segment`` objects as ``transcribe`` yields them (read by their fields:
``transcript_sources.json_value``), read as the file of its ``json.dumps`` is (``transcript_sources.ValueSource``:
no file written). The transcript holds its restored segments (``segments``: each ``Segment`` with its
``(TimedWord, RestoredWord | None)`` pairs: times, speakers, each word's confidence) and writes them as predict.py
writes that file: ``to_srt``, ``to_vtt``, ``to_text``, ``to_json``, the same strings, byte for byte.

``write_transcript(fmt, restored, source, top, out, ...)``: ``restoring.written_segments``' output written in the
format named (``formats.FORMATS``: json, srt, vtt, text), what both predict.py (a file, streamed: memory holds a
step) and ``RestoredTranscript`` (its stored segments) call; (words in, items out).
``transcript_language(source)``: the language of its first words as recognised, for where cues may end.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from gector_punct.text.language import language_of_start
from gector_punct.transcripts.formats import FORMATS
from gector_punct.transcripts.restoring import written_segments
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.timed_words import Segment, TimedWord, read_segments
from gector_punct.transcripts.transcript_sources import TranscriptSource, ValueSource

TIMED_WRITERS = ("json", "srt", "vtt", "text")  # the formats a word-timed transcript is written in


def transcript_language(source: TranscriptSource) -> str | None:
    """The transcript's language, guessed from its first words as recognised (``language_of_start``)."""
    return language_of_start(word.text for segment in read_segments(source) for word in segment.words if word.text)


def write_transcript(fmt: str, restored: Iterable[tuple[Segment, list]], source: TranscriptSource, top: dict, out,
                     style: SubtitleStyle | None = None, names: dict[str, str] | None = None,
                     timestamps: bool = False, language: str | None = None) -> tuple[int, int]:
    """``restored`` (``written_segments``' output) written to ``out`` as ``fmt`` (module docstring): a word-timed
    JSON in its shape (``top``: its top-level fields), cues built to ``style`` (``language``: the transcript's),
    or a document (``timestamps``); ``names``: speakers' names. Returns (words in, segments, cues or
    paragraphs out)."""
    style = style or SubtitleStyle()
    if fmt == "json":
        return FORMATS["json"].write(restored, source, top, out)
    counted = [0]
    words = _written_words(restored, counted)
    if fmt == "text":
        items = FORMATS["text"].write(words, out, style, names, timestamps)
    elif fmt in ("srt", "vtt"):
        items = FORMATS[fmt].write_cues(words, out, language, style, names)
    else:
        raise ValueError(f"a word-timed transcript is written as one of {', '.join(TIMED_WRITERS)}, not {fmt!r}")
    return counted[0], items


def _written_words(restored: Iterable[tuple[Segment, list]], counted: list[int]) -> Iterator[tuple[TimedWord, str]]:
    """Each written word: (timed word, its written text), in order; ``counted[0]``: the words read."""
    for segment, pairs in restored:
        counted[0] += len(segment.words)
        for word, result in pairs:
            if word.text and result is not None:
                yield word, result.text


@dataclass
class RestoredTranscript:
    """A word-timed transcript restored (module docstring): its segments, their words restored, and what its
    writers need (its source's shape and layout, its top-level fields, its language)."""
    segments: list[tuple[Segment, list]]
    source: TranscriptSource
    top: dict = field(default_factory=dict)
    language: str | None = None

    def words(self) -> Iterator[tuple[TimedWord, str]]:
        """Each written word, (timed word: times, speaker, fields; its written text), in order."""
        return _written_words(self.segments, [0])

    def _written(self, fmt: str, **options) -> str:
        out = io.StringIO()
        write_transcript(fmt, self.segments, self.source, self.top, out, language=self.language, **options)
        return out.getvalue()

    def to_json(self) -> str:
        """The transcript in its own shape, each word restored, with its ``confidence`` and ``review``."""
        return self._written("json")

    def to_srt(self, style: SubtitleStyle | None = None) -> str:
        """SubRip cues built to ``style`` (Netflix's English rules by default)."""
        return self._written("srt", style=style)

    def to_vtt(self, style: SubtitleStyle | None = None, speaker_names: dict[str, str] | None = None) -> str:
        """WebVTT cues built to ``style``, each speaker named in a voice (``speaker_names``: label -> name)."""
        return self._written("vtt", style=style, names=speaker_names)

    def to_text(self, style: SubtitleStyle | None = None, speaker_names: dict[str, str] | None = None,
                timestamps: bool = False) -> str:
        """A document, a paragraph a speaker turn (``timestamps``: each opening with its time)."""
        return self._written("text", style=style, names=speaker_names, timestamps=timestamps)


def restore_transcript(punctuator, result, name: str = "transcript") -> RestoredTranscript:
    """``result`` (module docstring) restored by ``punctuator``; ``InputError`` (its message opening with
    ``name``) for a result of another shape or a word that cannot be read, as for a file."""
    source = ValueSource(result, name)
    top: dict = {}
    segments = list(written_segments(punctuator, read_segments(source, top=top)))
    return RestoredTranscript(segments, source, top, transcript_language(source))
