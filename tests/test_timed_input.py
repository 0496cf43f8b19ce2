"""Word-timed transcripts as they come (issue 58, item 6): odd but valid input read and written back whole
(top-level fields of any name, words alone, a byte-order mark, openai-whisper's whole text, silences, speakers),
a long segment read in parts in bounded memory, and a bad file refused with one error line before any output."""
import io
import json
import re

import pytest

from test_cli import run
from test_timed_words import TALK, whisper_document, written_as

from gector_punct.prediction.streaming import caption_text
from gector_punct.text.files import InputError
from gector_punct.transcripts import timed_words
from gector_punct.transcripts.json_reading import broken_json
from gector_punct.transcripts.timed_json_writer import TimedJsonWriter
from gector_punct.transcripts.timed_words import Segment, TimedWord, check_transcript, read_segments
from gector_punct.transcripts.transcript_sources import looks_like_json, timed_layout, timed_shape
from gector_punct.transcripts.formats import segment_text


def written(tmp_path, value, name: str = "t.json") -> str:
    """``value`` written as a file: text as it is, anything else as JSON."""
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return str(path)


def restored(punctuator, path: str) -> tuple[str, tuple[int, int]]:
    return written_as(punctuator, path, "json")


def as_read(path: str) -> str:
    """The transcript written back with each word as it was read (no restoration): the reader and writer alone."""
    shape, out, top = timed_shape(path), io.StringIO(), {}
    writer = TimedJsonWriter(out, shape, timed_layout(path, shape))
    for segment in read_segments(path, shape, top):
        writer.write(segment, [word.fields for word in segment.words],
                     None if segment.more else " ".join(word.text for word in segment.words))
    writer.close(top)
    return out.getvalue()


def timed(words: list[str], t: float = 0.0, **fields) -> list[dict]:
    return [{"word": word, "start": round(t + k * 0.4, 3), "end": round(t + k * 0.4 + 0.3, 3), **fields}
            for k, word in enumerate(words)]


# 1. Top-level fields


def test_every_top_level_field_is_kept_whatever_its_name(tmp_path, random_editor):
    document = whisper_document(TALK[:12])
    document.update(segments_meta={"model": "large-v3"}, segmentsCount=2, word_segments_note="aligned")
    path = written(tmp_path, document)
    top = {}
    assert len(list(read_segments(path, "whisper", top))) == 2
    assert top == {"segments": None, "word_segments": None, "language": "en", "segments_meta": {"model": "large-v3"},
                   "segmentsCount": 2, "word_segments_note": "aligned"}
    out = json.loads(restored(random_editor, path)[0])
    assert list(out) == ["segments", "word_segments", "language", "segments_meta", "segmentsCount",
                         "word_segments_note"]
    assert out["segments_meta"] == {"model": "large-v3"} and out["word_segments_note"] == "aligned"


def test_word_segments_are_rebuilt_where_they_were_and_never_invented(tmp_path, random_editor):
    document = whisper_document(TALK[:12])
    out = json.loads(restored(random_editor, written(tmp_path, document))[0])
    assert out["word_segments"] == [word for segment in out["segments"] for word in segment["words"]]
    del document["word_segments"]
    out = json.loads(restored(random_editor, written(tmp_path, document))[0])
    assert list(out) == ["segments", "language"]


# 2. Words alone


def test_a_top_level_words_object_is_one_segment_restored_in_its_shape(tmp_path, random_editor):
    words = "so we started the project in march and it was hard".split()
    path = written(tmp_path, {"language": "en", "words": timed(words, score=0.9), "text": " ".join(words)})
    assert timed_shape(path) == "whisper" and timed_layout(path, "whisper") == "values"
    (segment,) = read_segments(path, "whisper")
    assert segment.fields == {"language": "en", "text": " ".join(words)} and len(segment.words) == len(words)
    text, counts = restored(random_editor, path)
    assert text.endswith("}\n") and text.count("\n") == 1 and counts == (len(words), 1)
    out = json.loads(text)
    assert list(out) == ["language", "text", "words"]
    assert [re.sub("[^a-z]", "", w["word"].lower()) for w in out["words"]] == words
    assert all(0 <= w["confidence"] <= 1 and w["score"] == 0.9 for w in out["words"])
    assert out["text"] == caption_text([w["word"] for w in out["words"]])


def test_the_list_and_document_layouts_are_told_apart(tmp_path):
    assert timed_layout(written(tmp_path, [{"words": []}]), "whisper") == "list"
    assert timed_layout(written(tmp_path, {"text": "a", "segments": [], "words": []}), "whisper") == "document"
    assert timed_layout(written(tmp_path, {"result": [], "text": ""}), "vosk") == "values"
    assert timed_layout(written(tmp_path, {"segments": [], "result": []}), "vosk") == "values"


# 3. A byte-order mark


@pytest.mark.parametrize("layout", ["document", "lines"])
def test_a_byte_order_mark_is_read_and_not_written(tmp_path, random_editor, layout):
    results = [{"result": timed(["hello", "there"]), "text": "hello there"}, {"text": ""}]
    content = json.dumps(whisper_document(TALK[:6])) if layout == "document" else "\n".join(map(json.dumps, results))
    path = written(tmp_path, "\ufeff" + content)
    shape = timed_shape(path)
    assert shape == ("whisper" if layout == "document" else "vosk")
    check_transcript(path, shape)
    text, (words_in, _) = restored(random_editor, path)
    assert words_in == (6 if layout == "document" else 2) and not text.startswith("\ufeff")
    if layout == "document":
        assert len(json.loads(text)["segments"]) == 1
    else:
        assert [json.loads(line)["text"] != "" for line in text.splitlines()] == [True, False]


# 4. openai-whisper's whole text


def test_the_whole_text_is_rebuilt_from_the_segments_texts(tmp_path, random_editor, monkeypatch):
    monkeypatch.setattr(timed_words, "PART", 4)  # a segment in parts too
    segments = [{"id": 0, "start": 0.0, "end": 4.0, "text": " so we started the project in march",
                 "words": timed("so we started the project in march".split())},
                {"id": 1, "start": 4.0, "end": 6.0, "text": " [music]", "words": []}, {"id": 9, "words": []},
                {"id": 2, "start": 6.0, "end": 8.0, "text": " did anyone expect that",
                 "words": timed("did anyone expect that".split(), 6.0)}]
    path = written(tmp_path, {"text": "WHOLE TEXT AS RECOGNISED", "segments": segments, "language": "en"})
    out = json.loads(restored(random_editor, path)[0])
    assert list(out) == ["segments", "text", "language"]
    assert out["text"] == "".join(segment.get("text", "") for segment in out["segments"])
    assert out["segments"][1]["text"] == " [music]" and out["segments"][0]["text"].startswith(" ")


def test_a_whole_text_that_is_no_string_is_kept(tmp_path, random_editor):
    path = written(tmp_path, {"text": {"en": "so"}, "segments": [{"text": " so", "words": timed(["so"])}]})
    assert json.loads(restored(random_editor, path)[0])["text"] == {"en": "so"}


# 5. A bad file: one error line before any output


def nan_document(value: str = "NaN", field: str = "start", segment: int = 3, word: int = 2) -> str:
    """A WhisperX document over several lines with ``value`` (a constant of Python's json) as one time."""
    document = whisper_document(TALK[:30], per_segment=5)
    document["segments"][segment - 1]["words"][word - 1][field] = "@@"
    return json.dumps(document, indent=1).replace('"@@"', value)


@pytest.mark.parametrize("value, field, says", [
    ("NaN", "start", "start is NaN"), ("Infinity", "end", "end is Infinity"), ("-Infinity", "start", "start is -Infinity"),
    ("1e400", "end", "end is Infinity")])
def test_a_time_that_is_no_number_names_its_segment_and_word(tmp_path, value, field, says):
    path = written(tmp_path, nan_document(value, field))
    with pytest.raises(InputError) as err:
        check_transcript(path, "whisper")
    assert str(err.value) == f"{path}: segment 3, word 2: {says}, not a number of seconds"


def test_a_segments_time_that_is_no_number_names_its_segment(tmp_path):
    document = whisper_document(TALK[:10], per_segment=5)
    document["segments"][1]["end"] = "@@"
    path = written(tmp_path, json.dumps(document).replace('"@@"', "NaN"))
    with pytest.raises(InputError, match=r"t\.json: segment 2: end is NaN, not a number of seconds$"):
        list(read_segments(path, "whisper"))


def test_a_nan_elsewhere_names_its_line(tmp_path):
    text = nan_document("NaN", "score", segment=4, word=3)
    path = written(tmp_path, text)
    line = text[:text.index("NaN")].count("\n") + 1
    with pytest.raises(InputError) as err:
        check_transcript(path, "whisper")
    assert str(err.value) == f"{path}:{line}: not valid JSON (NaN is not a JSON number: write a number or null)"


@pytest.mark.parametrize("content, says", [
    ('{"segments": [{"words": [{"word": "a", "start": 0}]}',
     "t.json:1: not valid JSON (it ends inside a value: cut short?)"),
    ('{"segments": [\n{"words": [],}\n]}',
     "t.json:2: not valid JSON (Expecting property name enclosed in double quotes)"),
    ('{"segments": [{"words": [{"word": "a", "start": 0, "x": 1e400}]}]}',
     "t.json: not valid JSON (parse error: numeric (floating point) overflow)"),
    ('\n{"text": "NaN \\" NaN", "segments": [{"words": [{"word": "a", "start": 0}]}], "x": [\nInfinity,\n1]}',
     "t.json:3: not valid JSON (Infinity is not a JSON number: write a number or null)"),
])
def test_broken_json_says_why_and_where(tmp_path, content, says):
    path = written(tmp_path, content)
    with pytest.raises(InputError) as err:
        check_transcript(path, "whisper")
    assert str(err.value) == f"{tmp_path}/{says}"


def test_a_file_that_is_not_utf8_names_its_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b'\xef\xbb\xbf\n{"segments": [\n{"words": [{"word": "caf\xe9", "start": 0}]}\n]}\n')
    with pytest.raises(InputError, match=r"t\.json:3: not UTF-8 text$"):
        check_transcript(str(path), "whisper")


def test_broken_json_falls_back_on_the_parsers_reason(tmp_path):
    path = written(tmp_path, '{"a": 1}')
    assert broken_json(path, ValueError("lexical error: x.\n   here"), lambda values: None) == \
        f"{path}: not valid JSON (lexical error: x.)"
    assert broken_json(path, ValueError(), lambda values: None) == f"{path}: not valid JSON (ValueError)"
    assert broken_json(path, None, lambda values: f"named {values}") == f"{path}: named [{{'a': 1}}]"


@pytest.mark.parametrize("lines, says", [
    ([{"result": timed(["a"])}, {"result": [{"word": "b", "start": "@@"}]}], "segment 2, word 1: start is NaN"),
    ([{"result": timed(["a"])}, {"result": timed(["b"]), "start": "@@"}], "segment 2: start is NaN"),
])
def test_a_vosk_file_names_the_result_with_a_nan(tmp_path, lines, says):
    path = written(tmp_path, "\n".join(json.dumps(line) for line in lines).replace('"@@"', "NaN"))
    with pytest.raises(InputError) as err:
        check_transcript(path, "vosk")
    assert str(err.value) == f"{path}: {says}, not a number of seconds"


@pytest.mark.parametrize("fmt", ["json", "srt"])
def test_a_late_error_stops_the_command_before_any_output(tmp_path, fmt):
    path = written(tmp_path, nan_document("NaN", "start", segment=6, word=5))
    result = run("predict.py", "--input_file", path, "--output_file", "-", "--format", fmt, check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"error: {path}: segment 6, word 5: start is NaN, not a number of seconds\n"
    document = whisper_document(TALK[:30], per_segment=5)
    document["segments"][-1]["words"][-1] = {"start": 1.0}
    path = written(tmp_path, document)
    result = run("predict.py", "--input_file", path, "--output_file", "-", "--format", fmt, check=False)
    assert result.returncode == 2 and result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"error: {path}: segment 6, word 5: a word without its text")


@pytest.mark.parametrize("content, says", [
    ('[{"words": []}, 3]', "segment 2 is not an object"),
    ('{"segments": [{"words": {"word": "a"}}]}', "segment 1: 'words' is not a list of word objects"),
    ('{"segments": [{"words": ["a"]}]}', "segment 1: 'words' is not a list of word objects"),
    ('{"segments": [{"words": [[{"word": "a"}]]}]}', "segment 1: 'words' is not a list of word objects"),
    ('{"segments": [{"words": 3}]}', "segment 1: 'words' is not a list of word objects"),
    ('{"segments": [{"words": [{"word": "a", "speaker": ["A"]}]}]}', 'segment 1, word 1: speaker is ["A"], not a name'),
    ('{"segments": [{"speaker": true, "words": []}]}', "segment 1: speaker is true, not a name"),
    ('{"segments": [{"words": [{"word": "a", "end": false}]}]}', "segment 1, word 1: end is false, not a number"),
    ('{"segments": [{"start": "0", "words": []}]}', 'segment 1: start is "0", not a number'),
    ('{"result": [], "text": "a"}\n{"text": "so we"}', "segment 2: no 'result' (word times): call the recogniser"),
])
def test_a_segment_of_the_wrong_shape_is_named(tmp_path, content, says):
    path = written(tmp_path, content)
    with pytest.raises(InputError) as err:
        check_transcript(path, timed_shape(path))
    assert str(err.value).startswith(f"{path}: {says}")


def test_a_word_or_value_in_an_error_is_quoted_short_and_numbered(tmp_path):
    bad = {"start": 1.0, "note": "x" * 80}
    path = written(tmp_path, {"segments": [{"words": timed(["a", "b"]) + [bad]}]})
    with pytest.raises(InputError) as err:
        check_transcript(path, "whisper")
    assert str(err.value) == f"{path}: segment 1, word 3: a word without its text ('word'): {json.dumps(bad)[:60]}"
    for key, says in (("speaker", "not a name"), ("start", "not a number of seconds")):
        value = {"name": "y" * 60}
        path = written(tmp_path, {"segments": [{"words": [{"word": "a", key: value}]}]})
        with pytest.raises(InputError) as err:
            check_transcript(path, "whisper")
        assert str(err.value) == f"{path}: segment 1, word 1: {key} is {json.dumps(value)[:40]}, {says}"


@pytest.mark.parametrize("content, shape, says", [
    ('{"segments": [{"start": 0, "end": 1}]}', "whisper",
     "segment 1: no 'words' (word times): run WhisperX's alignment, or faster-whisper with word_timestamps=True"),
    ('{"result": [], "text": ""}\n{"text": " so"}', "vosk",
     "segment 2: no 'result' (word times): call the recogniser's SetWords(True)"),
])
def test_a_segment_without_its_word_times_says_how_to_get_them(tmp_path, content, shape, says):
    path = written(tmp_path, content)
    with pytest.raises(InputError) as err:
        check_transcript(path, shape)
    assert str(err.value) == f"{path}: {says}"


def test_a_vosk_result_without_text_or_words_is_a_silence(tmp_path):
    path = written(tmp_path, json.dumps({"result": timed(["a"]), "text": "a"}) + "\n{}\n{\"partial\": \"\"}\n")
    assert [(len(s.words), s.silent and s.silent.count) for s in read_segments(path, "vosk")] == [(1, None), (0, 2)]


@pytest.mark.parametrize("content, says", [
    ('[{"words": [{"word": "a", "start": NaN}]}]', "segment 1, word 1: start is NaN, not a number of seconds"),
    ('{"words": [{"word": "a"}, {"word": "b", "end": NaN}]}', "segment 1, word 2: end is NaN, not a number of seconds"),
    ('{"result": [{"word": "a", "start": NaN}], "segments": []}', "segment 1, word 1: start is NaN, not a number of seconds"),
    ('{"segments": [{"start": NaN, "words": 5}]}', "segment 1: start is NaN, not a number of seconds"),
    ('{"segments": [{"words": [{"word": "a", "score": NaN}, 5]}]}',  # after a NaN: not read, and no time
     "t.json:1: not valid JSON (NaN is not a JSON number: write a number or null)"),
    ('{"segments": [{"text": "", "start": NaN}]}', "segment 1: no 'words' (word times): run WhisperX's alignment"),
    ('{"segments": 5, "x": NaN}', "t.json:1: not valid JSON (NaN is not a JSON number: write a number or null)"),
])
def test_a_nan_is_named_in_every_layout(tmp_path, content, says):
    path = written(tmp_path, content)
    with pytest.raises(InputError) as err:
        check_transcript(path, timed_shape(path))
    assert str(err.value).startswith(f"{path}: {says}" if not says.startswith("t.json") else f"{tmp_path}/{says}")


@pytest.mark.parametrize("opening, is_json", [
    ("[ true ]", True), ("[false]", True), ("[null]", True), ('[ "a"]', True), ("[{", True), ("[[", True),
    ("[-1]", True), ("[]", True), ("[  7]", True), ("{ }", True), ('{ "a": 1}', True),
    ("[music] so", False), ("[ laughter ]", False), ("{laughs} so", False), ("so [1]", False), ("", False),
    ("[ True ]", False),
])
def test_json_is_told_from_text_that_opens_with_a_bracket(tmp_path, opening, is_json):
    assert looks_like_json(written(tmp_path, "\n " + opening + "\n")) is is_json


def test_json_of_another_shape_is_refused_and_text_is_not_json(tmp_path):
    path = written(tmp_path, '{"language": "en", "word_segments": []}')
    with pytest.raises(InputError) as err:
        timed_shape(path)
    assert str(err.value) == (f"{path}: a JSON file, but not a word-timed transcript: expected WhisperX / "
                              'faster-whisper ("segments" with "words") or Vosk ("result" with words)')
    assert timed_shape(written(tmp_path, "[1] so we began\n")) is None
    assert timed_shape(written(tmp_path, "so we began\n")) is None
    with pytest.raises(InputError, match=r"t\.json:1: not valid JSON \(it ends"):
        timed_shape(written(tmp_path, '{"language": "en", '))


# 6. A segment without words


def test_a_segment_without_words_comes_back_as_it_was(tmp_path, random_editor):
    music = {"start": 3.0, "text": " [music]", "words": [], "end": 9.0}
    silence = {"start": 9.0, "end": 9.5, "text": "", "words": None}
    document = {"segments": [{"start": 0.0, "end": 3.0, "text": " so we began", "words": timed(["so", "we", "began"])},
                             music, silence, {"start": 9.5, "end": 10.0, "text": " ok", "words": timed(["ok"], 9.5)}]}
    text, counts = restored(random_editor, written(tmp_path, document))
    assert text.splitlines()[2:4] == [json.dumps(music) + ",", json.dumps(silence) + ","] and counts == (4, 4)


def test_a_segments_text_keeps_its_lead_and_a_wordless_one_its_own():
    word = TimedWord("so", 0.0, 0.1, {"word": "so"})
    assert segment_text(Segment({"text": " [music]"}), "") == " [music]"
    assert segment_text(Segment({"text": None}), "") == ""
    assert segment_text(Segment({"text": " so"}, [word]), "") == ""
    assert segment_text(Segment({"text": " so"}, [word]), "So.") == " So."
    assert segment_text(Segment({"text": "so"}, [word]), "So.") == "So."
    assert segment_text(Segment({}, [word]), "So.") == "So."


# 7. Bounded memory: a long segment in parts, a run of silences as one


def long_segment(n: int = 11) -> dict:
    """A diarised segment whose own times and speaker come after its words, some words without times (across
    the boundaries of parts of 4) or speaker."""
    words = timed([f"w{k}" for k in range(n)], 5.0, speaker="A")
    for k in {0, 3, 4, 5, 8, n - 1} & set(range(n)):
        del words[k]["start"], words[k]["end"]
    for k in (1, 6, 7):
        del words[k]["speaker"]
    words[2]["end"] = 5.0  # before its start (5.8)
    return {"text": " " + " ".join(w["word"] for w in words), "words": words, "start": 4.5, "end": 9.9, "speaker": "S"}


def times_of(segments) -> list[tuple]:
    return [(w.text, w.start, w.end, w.speaker) for segment in segments for w in segment.words]


def test_a_long_segment_comes_in_parts_filled_as_a_whole(tmp_path, monkeypatch):
    path = written(tmp_path, {"segments": [long_segment(), {"text": " x", "words": timed(["x"], 20.0)}]})
    whole = list(read_segments(path, "whisper"))
    assert [len(s.words) for s in whole] == [11, 1] and not any(s.more for s in whole)
    assert times_of(whole)[:7] == [("w0", 4.5, 5.4, "A"), ("w1", 5.4, 5.7, "S"), ("w2", 5.8, 5.8, "A"),
                                   ("w3", 5.8, 7.4, "A"), ("w4", 7.4, 7.4, "A"), ("w5", 7.4, 7.4, "A"),
                                   ("w6", 7.4, 7.7, "S")]
    assert times_of(whole)[8:11] == [("w8", 8.1, 8.6, "A"), ("w9", 8.6, 8.9, "A"), ("w10", 8.9, 9.9, "A")]
    monkeypatch.setattr(timed_words, "PART", 4)
    parts = list(read_segments(path, "whisper"))
    assert [(len(s.words), s.more) for s in parts] == [(4, True), (4, True), (3, False), (1, False)]
    assert times_of(parts) == times_of(whole)
    assert parts[0].fields == {"text": long_segment()["text"]}
    assert parts[2].fields == {"text": long_segment()["text"], "start": 4.5, "end": 9.9, "speaker": "S"}


def test_a_part_boundary_after_an_untimed_run_takes_the_next_start(tmp_path, monkeypatch):
    words = timed([f"w{k}" for k in range(9)])
    for k in (2, 3, 4, 5, 6):
        del words[k]["start"], words[k]["end"]
    path = written(tmp_path, [{"words": words}])
    whole = times_of(read_segments(path, "whisper"))
    assert whole[2:4] == [("w2", 0.7, 2.8, None), ("w3", 2.8, 2.8, None)]
    monkeypatch.setattr(timed_words, "PART", 2)
    assert times_of(read_segments(path, "whisper")) == whole


def test_vosk_results_in_parts_are_filled_as_whole_ones(tmp_path, monkeypatch):
    words = timed(["a", "b", "c", "d", "e"])
    for word in words[1:3]:
        del word["start"], word["end"]
    path = written(tmp_path, "\n".join(json.dumps(result) for result in (
        {"result": timed(["x"]), "text": "x"}, {"result": words, "text": "a b c d e", "speaker": "S"})))
    whole = times_of(read_segments(path, "vosk"))
    assert whole[1:4] == [("a", 0.0, 0.3, "S"), ("b", 0.3, 1.2, "S"), ("c", 1.2, 1.2, "S")]
    monkeypatch.setattr(timed_words, "PART", 2)
    assert times_of(read_segments(path, "vosk")) == whole


def test_a_long_segment_without_times_after_its_words_ends_at_its_last_start(tmp_path, monkeypatch):
    words = timed(["a", "b", "c", "d", "e"])
    for word in words[1:]:
        del word["start"], word["end"]
    path = written(tmp_path, {"result": words, "text": "a b c d e"})
    whole = times_of(read_segments(path, "vosk"))
    assert whole[1:] == [("b", 0.3, 0.3, None), ("c", 0.3, 0.3, None), ("d", 0.3, 0.3, None), ("e", 0.3, 0.3, None)]
    monkeypatch.setattr(timed_words, "PART", 2)
    assert times_of(read_segments(path, "vosk")) == whole


def test_each_long_segment_reads_its_own_fields_from_after_its_words(tmp_path, monkeypatch):
    second = timed([f"v{k}" for k in range(6)], 30.0)
    for word in second[1:]:
        del word["start"], word["end"]  # no start after the first part: its words end at the segment's end
    steps = timed([f"u{k}" for k in range(8)])  # a third, filled by part boundaries of 2, 4 and 6
    steps[4]["start"], steps[6]["start"] = 10.0, 20.0
    for k in (3, 5):
        del steps[k]["start"], steps[k]["end"]
    path = written(tmp_path, {"segments": [long_segment(), {"words": second, "start": 29.0, "end": 40.0, "speaker": "T"},
                                           {"words": steps}]})
    whole = times_of(read_segments(path, "whisper"))
    assert whole[12:14] == [("v1", 30.3, 40.0, "T"), ("v2", 40.0, 40.0, "T")]
    assert whole[20:23] == [("u3", 1.1, 10.0, None), ("u4", 10.0, 10.0, None), ("u5", 10.0, 20.0, None)]
    for part in (2, 4):
        monkeypatch.setattr(timed_words, "PART", part)
        assert times_of(read_segments(path, "whisper")) == whole


@pytest.mark.parametrize("after, says", [
    ({"end": "soon"}, 'segment 1: end is "soon", not a number of seconds'),
    ({"start": "soon"}, 'segment 1: start is "soon", not a number of seconds'),
    ({"speaker": True}, "segment 1: speaker is true, not a name"),
    ({"words": [{"word": "c"}, {"word": "d", "start": "soon"}]}, 'segment 1, word 4: start is "soon", not a number'),
])
def test_a_long_segments_bad_value_further_on_is_named_as_a_whole_ones(tmp_path, monkeypatch, after, says):
    segment = {"words": timed(["a", "b"]) + after.pop("words", timed(["c", "d"], 1.0)), **after}
    path = written(tmp_path, {"segments": [segment]})
    monkeypatch.setattr(timed_words, "PART", 2)
    for read in (lambda: list(read_segments(path, "whisper")), lambda: check_transcript(path, "whisper")):
        with pytest.raises(InputError) as err:
            read()
        assert str(err.value).startswith(f"{path}: {says}")


def test_broken_json_after_a_long_segment_is_named_by_the_read_ahead(tmp_path, monkeypatch):
    path = written(tmp_path, json.dumps({"segments": [{"words": timed(list("abcd")), "end": "@@"}]}).replace('"@@"', "NaN"))
    monkeypatch.setattr(timed_words, "PART", 2)
    with pytest.raises(InputError) as err:
        list(read_segments(path, "whisper"))
    assert str(err.value) == f"{path}: segment 1: end is NaN, not a number of seconds"
    path = written(tmp_path, json.dumps({"segments": [{"words": timed(list("abcd")), "x": "@@"}]}).replace('"@@"', "1e400"))
    with pytest.raises(InputError) as err:
        list(read_segments(path, "whisper"))
    assert str(err.value) == f"{path}: not valid JSON (parse error: numeric (floating point) overflow)"


def test_a_long_segment_is_written_back_as_one(tmp_path, random_editor, monkeypatch):
    document = {"segments": [long_segment(), {"text": " x", "words": timed(["x"], 20.0)}, long_segment(8)],
                "word_segments": [], "language": "en"}
    path = written(tmp_path, document)
    whole, counts = restored(random_editor, path)
    assert counts == (20, 3)
    for part in (4, 3):
        monkeypatch.setattr(timed_words, "PART", part)
        assert restored(random_editor, path) == (whole, counts)
    out = json.loads(whole)
    assert [len(s["words"]) for s in out["segments"]] == [11, 1, 8] and len(out["word_segments"]) == 20
    assert [w.get("speaker") for w in out["segments"][0]["words"]] == [w.get("speaker") for w in long_segment()["words"]]


def test_the_check_reads_a_long_segment_once(tmp_path, monkeypatch):
    path = written(tmp_path, {"segments": [long_segment()]})
    monkeypatch.setattr(timed_words, "PART", 2)
    monkeypatch.setattr(timed_words, "scout", None)  # the read-ahead parse: filling only
    check_transcript(path, "whisper")
    with pytest.raises(TypeError):
        list(read_segments(path, "whisper"))


def test_silences_in_a_row_come_as_one_run_written_back_as_they_were(tmp_path, random_editor, monkeypatch):
    monkeypatch.setattr(timed_words, "SILENT_BYTES", 64)  # spooled to disk past 64 bytes
    results = [{"result": timed(["hello", "there"]), "text": "hello there"}] + [{"text": ""}] * 300 + \
        [{"text": "", "result": [], "note": "música"}, {"result": timed(["bye"], 9.0), "text": "bye"},
         {"text": "", "result": None}]
    path = written(tmp_path, "\n".join(json.dumps(result, ensure_ascii=False) for result in results) + "\n")
    segments = list(read_segments(path, "vosk"))
    assert [(len(s.words), s.silent and s.silent.count) for s in segments] == [(2, None), (0, 301), (1, None), (0, 1)]
    assert all(s.fields == {} for s in segments if s.silent) and segments[1].silent.file._rolled  # on disk
    text, counts = restored(random_editor, path)
    lines = text.splitlines()
    assert counts == (3, len(results)) and len(lines) == len(results)
    assert lines[1:302] == [json.dumps(result, ensure_ascii=False) for result in results[1:302]]
    assert lines[-1] == json.dumps(results[-1])
    check_transcript(path, "vosk")


def test_silences_in_a_list_are_written_between_commas(tmp_path):
    results = [{"text": ""}, {"result": timed(["a"]), "text": "a"}, {"text": ""}, {"text": ""}]
    path = written(tmp_path, results)
    assert json.loads(as_read(path)) == [{"text": ""}, {"text": "a", "result": timed(["a"])}, {"text": ""}, {"text": ""}]
    path = written(tmp_path, [{"words": []}, {"start": 0, "words": timed(["a"])}])  # a whisper segment without text
    assert json.loads(as_read(path)) == [{"words": []}, {"start": 0, "words": timed(["a"])}]



def test_the_parts_of_a_segment_make_one_object_whatever_words_they_keep(tmp_path):
    path = written(tmp_path, {"segments": [], "word_segments": [], "note": "données"})
    out = io.StringIO()
    writer = TimedJsonWriter(out, "whisper", timed_layout(path, "whisper"))
    part = Segment({"text": " a b"}, more=True)
    for words in ([{"word": "a"}, {"word": "b"}], [], [{"word": "c"}]):
        writer.write(part, words, None)
    writer.write(Segment({"text": " a b c d", "speaker": "Zoë"}), [], " A b c.")
    writer.write(Segment({}, more=True), [{"word": "é"}], None)
    writer.write(Segment({"id": 2}), [{"word": "f"}], "é f")
    writer.close({"segments": None, "word_segments": None, "note": "données", "données": 1})
    text = out.getvalue()
    assert "Zoë" in text and '"données": 1' in text and '"word": "é"' in text  # non-ASCII as it was
    assert json.loads(text) == {
        "segments": [{"text": " A b c.", "speaker": "Zoë", "words": [{"word": "a"}, {"word": "b"}, {"word": "c"}]},
                     {"id": 2, "words": [{"word": "é"}, {"word": "f"}]}],
        "word_segments": [{"word": w} for w in "abcéf"], "note": "données", "données": 1}


# 8. Times


def test_a_word_never_ends_before_it_starts_and_its_json_keeps_its_times(tmp_path, random_editor):
    words = [{"word": "so", "start": 1.0, "end": 0.5}, {"word": "we", "start": 1.2, "end": 1.4},
             {"word": "went", "start": 2.0}]
    path = written(tmp_path, {"segments": [{"start": 1.0, "end": 1.9, "text": " so we went", "words": words}]})
    assert times_of(read_segments(path, "whisper")) == [("so", 1.0, 1.0, None), ("we", 1.2, 1.4, None),
                                                        ("went", 2.0, 2.0, None)]
    out = json.loads(restored(random_editor, path)[0])["segments"][0]["words"]
    assert [(w.get("start"), w.get("end")) for w in out] == [(1.0, 0.5), (1.2, 1.4), (2.0, None)]


@pytest.mark.parametrize("segment, times", [
    ({"words": [{"word": "a"}, {"word": "b", "start": 2.0, "end": 2.5}, {"word": "c", "start": 3.0, "end": 3.2}]},
     [(2.0, 2.0), (2.0, 2.5), (3.0, 3.2)]),
    ({"end": 4.0, "words": [{"word": "a"}]}, [(4.0, 4.0)]),
    ({"start": 1.0, "words": [{"word": "a"}, {"word": "b"}]}, [(1.0, 1.0), (1.0, 1.0)]),
])
def test_a_first_word_without_times_takes_the_next_start_else_the_segments_end(tmp_path, segment, times):
    path = written(tmp_path, [segment])
    assert [(start, end) for _, start, end, _ in times_of(read_segments(path, "whisper"))] == times


def test_a_word_without_any_time_starts_and_ends_at_zero(tmp_path):
    path = written(tmp_path, [{"words": [{"word": "a"}, {"word": "b"}]}])
    assert times_of(read_segments(path, "whisper")) == [("a", 0.0, 0.0, None), ("b", 0.0, 0.0, None)]


# 9. Speakers


def test_a_diarised_transcript_keeps_every_words_speaker(tmp_path, random_editor):
    first = timed(["so", "we", "began"], speaker="SPEAKER_00")
    del first[1]["speaker"]  # WhisperX leaves a word it could not place without one
    second = timed(["did", "you", "know"], 2.0, speaker="SPEAKER_01")
    second[2]["speaker"] = None
    segments = [{"start": 0.0, "end": 1.1, "text": " so we began", "words": first, "speaker": "SPEAKER_00"},
                {"start": 2.0, "end": 3.1, "text": " did you know", "words": second, "speaker": "SPEAKER_01"},
                {"start": 4.0, "end": 4.3, "text": " yes", "words": [{"word": "yes", "start": 4.0, "end": 4.3,
                                                                         "speaker": 2}]}]
    path = written(tmp_path, {"segments": segments, "language": "en"})
    assert [w[3] for w in times_of(read_segments(path, "whisper"))] == \
        ["SPEAKER_00", "SPEAKER_00", "SPEAKER_00", "SPEAKER_01", "SPEAKER_01", None, "2"]
    out = json.loads(restored(random_editor, path)[0])
    for new, old in zip(out["segments"], segments, strict=True):
        assert new.get("speaker") == old.get("speaker")
        assert [("speaker" in w, w.get("speaker")) for w in new["words"]] == \
            [("speaker" in w, w.get("speaker")) for w in old["words"]]


# Vosk


def test_a_vosk_results_text_is_rebuilt_from_its_words(tmp_path, random_editor):
    words = "so we started the project in march and it was hard".split()
    path = written(tmp_path, [{"result": timed(words[:6]), "text": " ".join(words[:6])},
                              {"result": timed(words[6:], 5.0)}])
    out = json.loads(restored(random_editor, path)[0])
    assert [list(result) for result in out] == [["text", "result"], ["text", "result"]]  # a Vosk result has its text
    for result in out:
        assert result["text"] == caption_text([w["word"] for w in result["result"]])
    assert re.sub("[^a-z ]", "", " ".join(r["text"] for r in out).lower()) == " ".join(words)


def test_the_benchmarks_files_are_transcripts_of_the_words_asked(tmp_path):
    from timed_memory import vosk_file, whisper_file

    path = str(tmp_path / "w.json")
    assert whisper_file(path, 250, 100) == 3
    assert [len(s.words) for s in read_segments(path, timed_shape(path))] == [100, 100, 50]
    vosk_file(path, 20)
    assert [len(s.words) for s in read_segments(path, timed_shape(path))] == [7, 0]
    assert run("utils/bench/timed_memory.py", "--help").stdout.count("--") >= 5
