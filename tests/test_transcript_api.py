"""The Python API of word-timed transcripts (issue 68): ``restore_transcript(punctuator, result)`` on a WhisperX /
faster-whisper dict, faster-whisper's ``Segment`` objects or Vosk results in memory writes exactly what predict.py
writes for the same result written to a JSON file, read by the same reader (no file) into the same segments."""
import json
from typing import NamedTuple

import pytest

from test_timed_words import TALK, whisper_document

import gector_punct
from gector_punct.cli import predict as command
from gector_punct.text.files import InputError
from gector_punct.transcripts import timed_words
from gector_punct.transcripts.restored_transcript import RestoredTranscript, restore_transcript
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.timed_words import read_segments
from gector_punct.transcripts.transcript_sources import FileSource, ValueSource, json_value


class Word(NamedTuple):  # faster_whisper.transcribe's Word, field for field
    start: float
    end: float
    word: str
    probability: float


class Segment(NamedTuple):  # faster_whisper.transcribe's Segment, field for field
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: list[int]
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    words: list[Word] | None
    temperature: float | None = 0.0


def faster_whisper_segments(words: list[str], per_segment: int = 7) -> list[Segment]:
    out, t = [], 0.0
    for n, k in enumerate(range(0, len(words), per_segment)):
        timed = []
        for word in words[k:k + per_segment]:
            timed.append(Word(round(t, 2), round(t + 0.3, 2), " " + word, 0.875))
            t += 0.4 + (2.5 if word == "tiny" else 0.0)
        out.append(Segment(n, n * 100, timed[0].start, timed[-1].end, "".join(w.word for w in timed), [50364, 1012],
                           -0.25, 1.5, 0.0625, timed))
    return out


def vosk_results(words: list[str]) -> list[dict]:
    return [{"result": [{"conf": 1.0, "end": round(0.4 * k + 0.3, 2), "start": round(0.4 * k, 2), "word": w}
                        for k, w in enumerate(words[a:a + 10], a)], "text": " ".join(words[a:a + 10])}
            for a in range(0, len(words), 10)] + [{"text": ""}]


def diarised() -> dict:
    document = whisper_document(TALK, per_segment=6)
    for n, segment in enumerate(document["segments"]):
        segment["speaker"] = f"SPEAKER_0{n // 2 % 2}"
    document["segments"].insert(2, {"start": 5.0, "end": 5.0, "text": "", "words": []})  # a silence: kept as it was
    return document


RESULTS = {"whisperx": diarised, "faster-whisper": lambda: faster_whisper_segments(TALK), "vosk": lambda: vosk_results(TALK)}


def command_output(tmp_path, monkeypatch, punctuator, path: str, fmt: str, *flags: str) -> str:
    """What predict.py writes for the file, its model the one given."""
    monkeypatch.setattr(command, "load_punctuator", lambda *args, **options: punctuator)
    out = tmp_path / f"out.{fmt}"
    assert command.main(["--input_file", path, "--format", fmt, "--output_file", str(out), *flags]) == 0
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", RESULTS)
def test_each_output_is_what_the_command_writes_for_the_same_json(kind, tmp_path, monkeypatch, random_editor):
    result = RESULTS[kind]()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(json_value(result)), encoding="utf-8")  # what a user dumps, NamedTuples as objects
    transcript = restore_transcript(random_editor, result)
    assert isinstance(transcript, RestoredTranscript)
    style = SubtitleStyle(line_chars=30, max_cps=15.0)
    names = {"SPEAKER_00": "Karen", "SPEAKER_01": "Tom & Co"}
    assert transcript.to_json() == command_output(tmp_path, monkeypatch, random_editor, str(path), "json")
    assert transcript.to_srt(style) == command_output(tmp_path, monkeypatch, random_editor, str(path), "srt",
                                                      "--line_chars", "30", "--max_cps", "15")
    assert transcript.to_vtt(speaker_names=names) == command_output(
        tmp_path, monkeypatch, random_editor, str(path), "vtt", "--speaker_names", "SPEAKER_00=Karen,SPEAKER_01=Tom & Co")
    assert transcript.to_text(timestamps=True) == command_output(tmp_path, monkeypatch, random_editor, str(path),
                                                                 "text", "--timestamps")
    assert transcript.to_json() == transcript.to_json()  # written again from the segments it holds
    if kind == "whisperx":
        assert "<v Karen>" in transcript.to_vtt(speaker_names=names) and "Tom &amp; Co" in transcript.to_vtt(speaker_names=names)


def test_the_transcript_holds_its_segments_times_speakers_and_confidences(random_editor):
    transcript = restore_transcript(random_editor, diarised())
    words = list(transcript.words())
    assert len(words) == len(TALK) and [w.text for w, _ in words] == TALK
    assert {w.speaker for w, _ in words} == {"SPEAKER_00", "SPEAKER_01"}
    assert all(0 <= result.confidence <= 1 for _, pairs in transcript.segments for _, result in pairs if result)
    assert words[4][0].start == words[3][0].end  # the fourth word, untimed, took its neighbour's time
    assert transcript.language == "en" and transcript.top["language"] == "en"


def test_the_top_level_names_are_imported_on_first_use():
    assert gector_punct.restore_transcript is restore_transcript
    assert "restore_transcript" in gector_punct.__all__ and "RestoredTranscript" in gector_punct.__all__


@pytest.mark.parametrize("kind", RESULTS)
def test_a_value_in_memory_is_read_into_the_segments_its_file_gives(kind, tmp_path, monkeypatch):
    """The same reader: long segments in parts (PART made small), silences in a run, times filled, speakers."""
    monkeypatch.setattr(timed_words, "PART", 4)
    result = RESULTS[kind]()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(json_value(result)), encoding="utf-8")

    def read(source):
        top = {}
        segments = [(s.fields, [(w.text, w.start, w.end, w.speaker, w.fields) for w in s.words], s.more,
                     list(s.silent.lines()) if s.silent else None) for s in read_segments(source, top=top)]
        return segments, top

    from_file, from_value = FileSource(str(path)), ValueSource(result)
    assert (from_value.shape, from_value.layout) == (from_file.shape, from_file.layout)
    assert read(from_value) == read(from_file)
    assert any(more for _, _, more, _ in read(from_value)[0])


def test_a_generator_of_segments_is_read_as_their_list(random_editor):
    segments = faster_whisper_segments(TALK[:20])
    assert restore_transcript(random_editor, iter(segments)).to_srt() == restore_transcript(random_editor, segments).to_srt()


@pytest.mark.parametrize("result, says", [
    ({"language": "en"}, "transcript: JSON values, but not a word-timed transcript"),
    ("so we began", "transcript: a str, but not a word-timed transcript"),
    ({"segments": [{"start": 0, "end": 1, "text": " hi", "words": [{"word": "hi", "start": float("nan")}]}]},
     "transcript: segment 1, word 1: start is NaN, not a number of seconds"),
    ({"segments": [{"start": 0, "end": 1, "text": " hi"}]}, "transcript: segment 1: no 'words' (word times)"),
    ({"segments": [{"words": [{"word": "hi", "start": object()}]}]}, "transcript: not JSON values: a object"),
])
def test_a_result_it_cannot_read_is_an_input_error_naming_where(result, says, random_editor):
    with pytest.raises(InputError) as caught:
        restore_transcript(random_editor, result)
    assert str(caught.value).startswith(says), str(caught.value)


def test_dataclass_segments_read_as_their_namedtuple_twins(random_editor):
    """faster-whisper 1.1 made Segment and Word dataclasses: the same fields, read the same way."""
    import dataclasses

    WordClass = dataclasses.make_dataclass("Word", [(f, object) for f in Word._fields])
    SegmentClass = dataclasses.make_dataclass("Segment", [(f, object) for f in Segment._fields])
    tuples = faster_whisper_segments(TALK[:30])
    classes = [SegmentClass(*[[WordClass(*w) for w in value] if name == "words" else value
                              for name, value in zip(Segment._fields, s)]) for s in tuples]
    assert json_value(classes) == json_value(tuples)
    assert restore_transcript(random_editor, classes).to_json() == restore_transcript(random_editor, tuples).to_json()
