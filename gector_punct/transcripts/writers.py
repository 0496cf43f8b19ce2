"""Every output of a word-timed transcript, in one place: its JSON back in its shape, subtitle cues, and a
transcript document. Each takes ``restoring.written_segments``' words (restored, a number's words merged) and
returns (words in, items out).

``write_json(punctuator, path, shape, out)``: the transcript in its own shape, each word's text restored,
``confidence`` and ``review`` added, times, speakers and every other field kept, removed words dropped, each
segment's ``text`` rebuilt from its words (a segment without words keeps its own).
``write_cues(punctuator, path, shape, out, fmt, style, names)``: SubRip or WebVTT cues built to the style guide
(``cues.CueBuilder``); WebVTT names each line's speaker in a voice tag (``<v Karen>``), SubRip marks a
dialogue cue's lines with ``-`` (the builder's); ``format_cue`` writes one cue.
``write_text(punctuator, path, shape, out, style, names, timestamps)``: a paragraph a line, an empty line
between paragraphs: one paragraph per speaker turn, labelled with its speaker (``SPEAKER_00: ...``, or its name
in ``names``) where the transcript names speakers, and a new one inside a turn after a sentence end followed
by a silence of ``SubtitleStyle.pause`` or more; ``timestamps`` opens each with its first word's time (``[00:01:23]``).
``speaker_names(text)`` reads ``--speaker_names`` (``SPEAKER_00=Karen,SPEAKER_01=Tom``).
"""
from __future__ import annotations

from gector_punct.prediction.streaming import caption_text
from gector_punct.text.language import language_of
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.transcripts.cues import Cue, CueBuilder
from gector_punct.transcripts.restoring import written_segments
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.timed_json_writer import TimedJsonWriter
from gector_punct.transcripts.timed_words import WORD_TEXT, Segment, read_segments

VTT_HEADER = "WEBVTT\n\n"
LANGUAGE_WORDS = 200  # the first words, read for the transcript's language when its file does not say


def speaker_names(text: str | None) -> dict[str, str]:
    """``SPEAKER_00=Karen,SPEAKER_01=Tom`` as a mapping; ValueError naming a part without ``=``."""
    names = {}
    for part in filter(None, (part.strip() for part in (text or "").split(","))):
        label, sep, name = part.partition("=")
        if not sep or not label.strip() or not name.strip():
            raise ValueError(f"{part!r} is not LABEL=NAME (e.g. SPEAKER_00=Karen)")
        names[label.strip()] = name.strip()
    return names


def _timestamp(seconds: float, fmt: str) -> str:
    millis = round(max(seconds, 0.0) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{',' if fmt == 'srt' else '.'}{millis:03d}"


def format_cue(number: int, cue: Cue, fmt: str, names: dict[str, str] | None = None) -> str:
    """One cue as ``srt`` or ``vtt`` text: its number (SubRip), timing line, lines, then an empty line."""
    lines = list(cue.lines)
    if fmt == "vtt" and cue.speakers and any(cue.speakers):
        lines = [f"<v {_name(speaker, names)}>{line}" if speaker else line
                 for line, speaker in zip(lines, cue.speakers)]
    timing = f"{_timestamp(cue.start, fmt)} --> {_timestamp(cue.end, fmt)}"
    return "\n".join(([str(number)] if fmt == "srt" else []) + [timing, *lines]) + "\n\n"


def _name(speaker, names: dict[str, str] | None) -> str:
    return (names or {}).get(str(speaker), str(speaker))


def _segment_text(segment: Segment, text: str) -> str:
    """A segment's text from its written words' (``text``), with the leading space its recogniser wrote
    (Whisper's); a segment without words keeps its own."""
    original = segment.fields.get("text")
    if not text:
        return original if isinstance(original, str) and not segment.words else ""
    lead = " " if str(original or "").startswith(" ") else ""
    return lead + text


def write_json(punctuator, path: str, shape: str, out) -> tuple[int, int]:
    writer, top = TimedJsonWriter(out, shape, path), {}
    words_in = segments_out = 0
    pieces, previous = [], None  # the text of the segment being written, part by part, and its last word
    for segment, pairs in written_segments(punctuator, read_segments(path, shape, top)):
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
        if written:  # a long segment's parts joined as its words would be, whole
            pieces.append(caption_text(written, previous))
            previous = written[-1]
        writer.write(segment, words, None if segment.more else _segment_text(segment, "".join(pieces)))
        if not segment.more:
            segments_out += segment.silent.count if segment.silent is not None else 1
            pieces, previous = [], None
    writer.close(top)
    return words_in, segments_out


def _written_words(punctuator, path: str, shape: str):
    """Each written word: (timed word, its written text), in order; and a count of the words read."""
    counted = [0]

    def words():
        for segment, pairs in written_segments(punctuator, read_segments(path, shape)):
            counted[0] += len(segment.words)
            for word, result in pairs:
                if word.text and result is not None:
                    yield word, result.text
    return words(), counted


def _language(path: str, shape: str) -> str | None:
    """The transcript's language, guessed from its first words as recognised (``language_of``)."""
    texts = []
    for segment in read_segments(path, shape):
        texts.extend(word.text for word in segment.words if word.text)
        if len(texts) >= LANGUAGE_WORDS:
            break
    return language_of(texts[:LANGUAGE_WORDS])


def write_cues(punctuator, path: str, shape: str, out, fmt: str, style: SubtitleStyle = SubtitleStyle(),
               names: dict[str, str] | None = None) -> tuple[int, int]:
    builder, number = CueBuilder(style, _language(path, shape)), 0
    if fmt == "vtt":
        out.write(VTT_HEADER)

    def emit(cues) -> None:
        nonlocal number
        for cue in cues:
            number += 1
            out.write(format_cue(number, cue, fmt, names))

    words, counted = _written_words(punctuator, path, shape)
    for word, text in words:
        emit(builder.add(word.start, word.end, text, word.speaker))
    emit(builder.finish())
    return counted[0], number


def write_text(punctuator, path: str, shape: str, out, style: SubtitleStyle = SubtitleStyle(),
               names: dict[str, str] | None = None, timestamps: bool = False) -> tuple[int, int]:
    paragraphs, previous, last_end, speaker = 0, None, None, None
    words, counted = _written_words(punctuator, path, shape)
    for word, text in words:
        turn = paragraphs == 0 or word.speaker != speaker
        silence = last_end is not None and word.start - last_end >= style.pause
        if turn or (silence and previous is not None and ends_sentence_after(previous, text)):
            out.write("\n\n" if paragraphs else "")
            stamp = f"[{_timestamp(word.start, 'srt')[:8]}] " if timestamps else ""
            label = f"{_name(word.speaker, names)}: " if word.speaker is not None and turn else ""
            out.write(stamp + label)
            previous, speaker = None, word.speaker
            paragraphs += 1
        out.write(caption_text([text], previous))
        previous, last_end = text, max(word.end, last_end or word.end)
    out.write("\n" if paragraphs else "")
    return counted[0], paragraphs
