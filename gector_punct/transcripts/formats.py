"""The formats a transcript is read and written in, one class each: the one home of each format's facts (how
it is read, how it is written, how its text is escaped, how it writes a time). ``FORMATS``: name -> format.

* ``SubRip`` (``srt``) and ``WebVTT`` (``vtt``), both ``SubtitleFormat``s. A cue block is laid out by one
  method (``block``: its head, then its lines), whether its cue was built from timed words (``cue``,
  ``write_cues``: a cue number and timing line, its lines escaped, its voices) or read from a subtitle file
  given as input (``read``: blocks, each line as tokens with their markup attached; ``write``: the blocks
  back, the tokens untouched, entities included). SubRip: ``00:01:02,500`` (a comma before the milliseconds),
  a cue number above each timing line, its text written as it is: SubRip has no escapes (an entity shows as
  ``&amp;`` in players that read no HTML), and a ``<`` reads as a tag only where it spells one players know
  (``<i>``, ``<b>``, ``<u>``, ``<font>``), which recognised words do not; a dialogue cue's lines open with
  ``-`` and name no speaker. WebVTT: the ``WEBVTT`` header, ``00:01:02.500``, cue identifiers optional on
  reading, NOTE / STYLE / REGION blocks kept; text built from words escaped as its specification asks (``&``
  ``<`` ``>`` as ``&amp;`` ``&lt;`` ``&gt;``: ``AT&T``, ``x<y``, and a ``-->`` inside a word, which would end
  the cue); a cue of one speaker opens with its voice (``<v Karen>``, its one span, left open as the
  specification allows), a cue of two voices closes each line's span (``<v A>-Hi.</v>``).
* ``TimedJson`` (``json``): a word-timed transcript (``timed_words``) read, and written back in its shape with
  each word restored (``timed_json_writer``).
* ``TranscriptText`` (``text``): a document, a paragraph a speaker turn (``[00:01:23]`` its time form).
* ``JsonLines`` (``jsonl``): a restored line a JSON object a line (``prediction.restored.json_line``), read
  from plain text lines.

The writers of timed words take ``restoring.written_segments``' output (``TimedJson.write``) or its written
words, ``(TimedWord, text)`` in order (``SubtitleFormat.write_cues``, ``TranscriptText.write``).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from gector_punct.prediction.restored import RestoredLine, json_line
from gector_punct.prediction.streaming import caption_text
from gector_punct.text.files import InputError, excerpt, read_lines
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.transcripts.backchannels import placed
from gector_punct.transcripts.cues import Cue, CueBuilder
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.timed_json_writer import TimedJsonWriter
from gector_punct.transcripts.timed_words import WORD_TEXT, Segment, TimedWord, read_segments
from gector_punct.transcripts.transcript_sources import TranscriptSource

TOKEN = re.compile(r"(?:<[^>]*>|\{[^}]*\}|[^\s<{])+")  # a subtitle line's word with the markup attached to it
MARKUP = re.compile(r"<[^>]*>|\{[^}]*\}")  # tags (<i>, <v Karen>, <00:00:01.000>) and SubRip's {\an8}


@dataclass
class Block:
    head: list[str]  # a cue: index/identifier and timing line; another block: all its lines
    lines: list[list[str]] = field(default_factory=list)  # a cue's text lines, as tokens
    is_cue: bool = True


@dataclass
class Subtitles:
    fmt: str  # its format's name
    blocks: list[Block]


def _clock(seconds: float) -> tuple[int, int, int, int]:
    """(hours, minutes, seconds, milliseconds) of a time, rounded to the millisecond, never below 0."""
    millis = round(max(seconds, 0.0) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return (hours, minutes, *divmod(rest, 1000))


def speaker_label(speaker, names: dict[str, str] | None) -> str:
    """A speaker as shown: its name in ``names`` (``--speaker_names``), else its label."""
    return (names or {}).get(str(speaker), str(speaker))


class SubtitleFormat:
    """What SubRip and WebVTT share; each subclass holds its own facts (module docstring)."""
    name: str
    decimal_marker: str  # before the milliseconds
    timing: re.Pattern  # a timing line, as read
    header = ""  # what opens a file of cues built from words
    numbered = False  # a cue number above each timing line

    def timestamp(self, seconds: float) -> str:
        hours, minutes, secs, millis = _clock(seconds)
        return f"{hours:02d}:{minutes:02d}:{secs:02d}{self.decimal_marker}{millis:03d}"

    def timing_line(self, start: float, end: float) -> str:
        return f"{self.timestamp(start)} --> {self.timestamp(end)}"

    def escape(self, text: str) -> str:
        """Text built from words as this format writes it."""
        return text

    def cue_lines(self, cue: Cue, names: dict[str, str] | None = None) -> list[str]:
        return [self.escape(line) for line in cue.lines]

    def block(self, head: list[str], lines: list[str]) -> str:
        """A cue (or another block) as text: its head, then its lines, one a line."""
        return "\n".join(head + lines)

    def cue(self, number: int, cue: Cue, names: dict[str, str] | None = None) -> str:
        """A cue built from words: its block, then an empty line."""
        head = ([str(number)] if self.numbered else []) + [self.timing_line(cue.start, cue.end)]
        return self.block(head, self.cue_lines(cue, names)) + "\n\n"

    def write_cues(self, words: Iterable[tuple[TimedWord, str]], out, language: str | None,
                   style: SubtitleStyle | None = None, names: dict[str, str] | None = None) -> int:
        """Cues built to ``style`` from the written words (``cues.CueBuilder``), written as they complete;
        returns how many."""
        style = style or SubtitleStyle()
        builder, number = CueBuilder(style, language), 0
        out.write(self.header)
        for word, text in placed(words, style.backchannels, within_ms=style.max_ms):
            for cue in builder.add(word.start, word.end, text, word.speaker, optional=word.backchannel):
                number += 1
                out.write(self.cue(number, cue, names))
        for cue in builder.finish():
            number += 1
            out.write(self.cue(number, cue, names))
        return number

    def read(self, path: str) -> Subtitles:
        """A subtitle file given as input: its blocks in file order (``subtitles`` module docstring)."""
        out = []
        for k, block in enumerate(_blocks(path)):
            texts = [text for _, text in block]
            if self._other_block(k, texts, path, block[0][0]):
                out.append(Block(texts, is_cue=False))
                continue
            at = self._timing_at(texts)
            if len(texts) <= at or not self.timing.match(texts[at]):
                raise InputError(f"{path}:{block[min(at, len(block) - 1)][0]}: expected a {self.name} timing line "
                                 f"('{self.timestamp(1)} --> ...'), got {excerpt(texts[min(at, len(texts) - 1)])}")
            out.append(Block(texts[: at + 1], [TOKEN.findall(text) for text in texts[at + 1:]]))
        return Subtitles(self.name, out)

    def _other_block(self, k: int, texts: list[str], path: str, line: int) -> bool:
        """Whether the ``k``-th block (from 0) is no cue; InputError where it must be another and is not."""
        return False

    def _timing_at(self, texts: list[str]) -> int:
        """Where a cue block's timing line stands."""
        return 1

    def write(self, subtitles: Subtitles) -> str:
        """A subtitle file's blocks as its text: one empty line between blocks, a line's tokens joined by a space."""
        return "\n\n".join(self.block(block.head, [" ".join(tokens) for tokens in block.lines])
                           for block in subtitles.blocks) + "\n"


class SubRip(SubtitleFormat):
    name, decimal_marker, numbered = "srt", ",", True
    timing = re.compile(r"^\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}(\s.*)?$")


class WebVTT(SubtitleFormat):
    name, decimal_marker, header = "vtt", ".", "WEBVTT\n\n"
    timing = re.compile(r"^(\d+:)?\d{2}:\d{2}\.\d{3}\s+-->\s+(\d+:)?\d{2}:\d{2}\.\d{3}(\s.*)?$")
    OTHER_BLOCKS = ("NOTE", "STYLE", "REGION")
    ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})

    def escape(self, text: str) -> str:
        return text.translate(self.ESCAPES)

    def cue_lines(self, cue: Cue, names: dict[str, str] | None = None) -> list[str]:
        lines = super().cue_lines(cue)
        voices = [None if speaker is None else self.escape(" ".join(speaker_label(speaker, names).split()))
                  for speaker in cue.speakers]
        if not any(voices):
            return lines
        if len(set(voices)) == 1:  # one voice: one span, the whole cue, its end tag left out
            return [f"<v {voices[0]}>{lines[0]}", *lines[1:]]
        return [f"<v {voice}>{line}</v>" if voice else line for line, voice in zip(lines, voices)]

    def _other_block(self, k: int, texts: list[str], path: str, line: int) -> bool:
        if k == 0 and not texts[0].startswith("WEBVTT"):
            raise InputError(f"{path}:{line}: a WebVTT file starts with 'WEBVTT'")
        return k == 0 or texts[0].split(" ", 1)[0] in self.OTHER_BLOCKS

    def _timing_at(self, texts: list[str]) -> int:
        return 0 if "-->" in texts[0] else 1  # an identifier first is optional


def _blocks(path: str) -> list[list[tuple[int, str]]]:
    """A subtitle file's blocks (runs of lines with text), each line with its number; InputError when none."""
    blocks, current = [], []
    for number, line in read_lines(path):
        if line.strip():
            current.append((number, line.rstrip()))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    if not blocks:
        raise InputError(f"{path}: no subtitles (empty file)")
    return blocks


def subtitle_format_of(path: str) -> tuple[str, int] | None:
    """(format, line number) when the first lines of ``path`` are a subtitle file's (the WEBVTT header, or
    a cue's timing line among the first three lines with text), else None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = [(n, line.strip().lstrip("\ufeff")) for n, line in zip(range(1, 21), f)]
    except OSError:
        return None  # the reader names the problem
    texts = [(n, line) for n, line in head if line][:3]
    for n, line in texts:
        if n == texts[0][0] and line.split(" ")[0] == "WEBVTT":
            return "vtt", n
        if SubRip.timing.match(line) or WebVTT.timing.match(line):
            return ("srt" if "," in line.split("-->")[0] else "vtt"), n
    return None


class TimedJson:
    """A word-timed transcript: WhisperX / faster-whisper or Vosk JSON."""
    name = "json"

    def read(self, source: str | TranscriptSource, top: dict | None = None) -> Iterator[Segment]:
        return read_segments(source, None, top)

    def write(self, restored: Iterable[tuple[Segment, list]], source: TranscriptSource, top: dict,
              out) -> tuple[int, int]:
        """The transcript in its own shape, each word's text restored, ``confidence`` and ``review`` added,
        times, speakers and every other field kept, removed words dropped, each segment's ``text`` rebuilt from
        its words (a segment without words keeps its own); ``top``: its top-level fields, complete once
        ``restored`` is read. Returns (words in, segments out)."""
        writer = TimedJsonWriter(out, source.shape, source.layout)
        key = WORD_TEXT[source.shape]
        words_in = segments_out = 0
        pieces, previous = [], None  # the text of the segment being written, part by part, and its last word
        for segment, pairs in restored:
            words, written = [], []
            words_in += len(segment.words)
            for word, result in pairs:
                if not word.text:
                    words.append(word.fields)
                    continue
                if result is None:
                    continue
                raw = word.fields[key]
                lead = raw[: len(raw) - len(raw.lstrip())]
                words.append({**word.fields, key: lead + result.text,
                              "confidence": round(result.confidence, 4), "review": result.review})
                written.append(result.text)
            if written:  # a long segment's parts joined as its words would be, whole
                pieces.append(caption_text(written, previous))
                previous = written[-1]
            writer.write(segment, words, None if segment.more else segment_text(segment, "".join(pieces)))
            if not segment.more:
                segments_out += segment.silent.count if segment.silent is not None else 1
                pieces, previous = [], None
        writer.close(top)
        return words_in, segments_out


def segment_text(segment: Segment, text: str) -> str:
    """A segment's text from its written words' (``text``), with the leading space its recogniser wrote
    (Whisper's); a segment without words keeps its own."""
    original = segment.fields.get("text")
    if not text:
        return original if isinstance(original, str) and not segment.words else ""
    lead = " " if str(original or "").startswith(" ") else ""
    return lead + text


class TranscriptText:
    """A transcript document: a paragraph a line, an empty line between paragraphs."""
    name = "text"

    def timestamp(self, seconds: float) -> str:
        hours, minutes, secs, _ = _clock(seconds)
        return f"[{hours:02d}:{minutes:02d}:{secs:02d}]"

    def write(self, words: Iterable[tuple[TimedWord, str]], out, style: SubtitleStyle | None = None,
              names: dict[str, str] | None = None, timestamps: bool = False) -> int:
        """One paragraph per speaker turn, labelled with its speaker (``SPEAKER_00: ...``, or its name in
        ``names``) where the transcript names speakers, and a new one inside a turn after a sentence end
        followed by a silence of ``SubtitleStyle.pause`` or more; ``timestamps`` opens each with its first word's
        time; a backchannel (``backchannels.placed``) stays inside the paragraph it interrupts, after the sentence
        it interrupts, in brackets with its speaker (``... the store. (Tom: Mm-hmm.) Then ...``), or is dropped
        (``SubtitleStyle.backchannels``). Returns the paragraphs written."""
        style, paragraphs, previous, last_end, speaker = style or SubtitleStyle(), 0, None, None, None
        aside = None  # the backchannel being written: its speaker and its newest word
        for word, text in placed(words, style.backchannels):
            if aside is not None and (not word.backchannel or word.speaker != aside[0]):
                out.write(")")
                aside = None
            if word.backchannel:
                label = f"{speaker_label(word.speaker, names)}: " if word.speaker is not None else ""
                out.write(f"{caption_text([text], aside[1])}" if aside else f" ({label}{text}")
                aside = (word.speaker, text)
                continue
            turn = paragraphs == 0 or word.speaker != speaker
            silence = last_end is not None and word.start - last_end >= style.pause
            if turn or (silence and previous is not None and ends_sentence_after(previous, text)):
                out.write("\n\n" if paragraphs else "")
                stamp = f"{self.timestamp(word.start)} " if timestamps else ""
                label = f"{speaker_label(word.speaker, names)}: " if word.speaker is not None and turn else ""
                out.write(stamp + label)
                previous, speaker = None, word.speaker
                paragraphs += 1
            out.write(caption_text([text], previous))
            previous, last_end = text, max(word.end, last_end or word.end)
        out.write(")" if aside else "")
        out.write("\n" if paragraphs else "")
        return paragraphs


class JsonLines:
    """Restored lines, each a JSON object on a line: its text and each word's confidence and review flag; read
    from plain text, a line each (``files.read_ended_lines``)."""
    name = "jsonl"

    def line(self, restored: RestoredLine) -> str:
        return json_line(restored)


FORMATS = {fmt.name: fmt for fmt in (SubRip(), WebVTT(), TimedJson(), TranscriptText(), JsonLines())}
SUBTITLE_FORMATS = {name: fmt for name, fmt in FORMATS.items() if isinstance(fmt, SubtitleFormat)}
