"""Word-timed transcripts in and out (issue 50): WhisperX / faster-whisper and Vosk JSON read word by word,
written back in their shape with each word restored, or turned into subtitle cues within their limits."""
import io
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_cli import run

from gector_punct import Punctuator
from gector_punct.transcripts.cues import CueBuilder
from gector_punct.transcripts.restoring import LOOKAHEAD, STEP, restored_segments
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.text.files import InputError
from gector_punct.transcripts.restored_transcript import transcript_language, write_transcript
from gector_punct.transcripts.restoring import written_segments
from gector_punct.transcripts.timed_words import Segment, TimedWord, read_segments
from gector_punct.transcripts.transcript_sources import FileSource, timed_shape

TALK = ("so we started the project in march and honestly it was hard at first the team was small "
        "we had no office and the budget was tiny but then in june things changed we got funding "
        "did anyone expect that not really").split()


def whisper_document(words: list[str], per_segment: int = 9, pause_after: int | None = None) -> dict:
    """A WhisperX result: segments of ``per_segment`` words, 0.35 s a word, a 3 s pause after word
    ``pause_after``; the fourth word has no times (WhisperX leaves digits unaligned)."""
    timed, t = [], 0.0
    for k, word in enumerate(words):
        item = {"word": word, "start": round(t, 3), "end": round(t + 0.3, 3), "score": 0.9}
        if k == 3:
            del item["start"], item["end"]
        timed.append(item)
        t += 0.35 + (3.0 if k == pause_after else 0.0)
    segments = []
    for k in range(0, len(timed), per_segment):
        part = timed[k:k + per_segment]
        start = part[0].get("start", 0.0)
        segments.append({"start": start, "end": part[-1]["end"], "text": " " + " ".join(w["word"] for w in part),
                         "words": part})
    return {"segments": segments, "word_segments": timed, "language": "en"}


def written_as(punctuator, path: str, fmt: str, **options) -> tuple[str, tuple[int, int]]:
    """The transcript file ``path`` restored and written as ``fmt`` the way predict.py writes it (its output,
    (words in, items out))."""
    source, top, out = FileSource(path), {}, io.StringIO()
    counts = write_transcript(fmt, written_segments(punctuator, read_segments(source, top=top)), source, top, out,
                              language=transcript_language(source), **options)
    return out.getvalue(), counts


@pytest.fixture(scope="module")
def default_en():
    return Punctuator.load("default_en")


def test_whisper_json_comes_back_in_its_shape_with_each_word_restored(tmp_path, default_en):
    path = tmp_path / "talk.json"
    document = whisper_document(TALK)
    path.write_text(json.dumps(document))
    out = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json",
                         "--model_path", "default_en").stdout)
    assert set(out) == {"segments", "word_segments", "language"} and out["language"] == "en"
    words = [w for segment in out["segments"] for w in segment["words"]]
    assert len(TALK) < LOOKAHEAD  # so the whole transcript is one window, as predict reads one line
    assert " ".join(w["word"] for w in words) == default_en.predict([" ".join(TALK)])[0]
    originals = [w for segment in document["segments"] for w in segment["words"]]
    for new, old in zip(words, originals, strict=True):  # times kept (and left out where they were)
        assert {k: new.get(k) for k in ("start", "end", "score")} == {k: old.get(k) for k in ("start", "end", "score")}
        assert 0 <= new["confidence"] <= 1 and isinstance(new["review"], bool)
    for segment in out["segments"]:
        assert segment["text"] == " " + " ".join(w["word"] for w in segment["words"])
    assert out["word_segments"] == words


def test_deleted_words_are_dropped_and_the_rest_keep_their_times(tmp_path):
    path = tmp_path / "call.json"
    path.write_text(json.dumps({"segments": [{"start": 0, "end": 3, "text": " uh so um we we went home",
                                              "words": [{"word": w, "start": k * 0.4, "end": k * 0.4 + 0.3}
                                                        for k, w in enumerate("uh so um we we went home".split())]}]}))
    out = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json",
                         "--tasks", "disf,punc").stdout)
    words = out["segments"][0]["words"]
    expected = Punctuator.load(tasks="disf,punc").predict(["uh so um we we went home"])[0]
    assert " ".join(w["word"] for w in words) == expected and len(words) <= 4  # uh, um and a "we" at least go
    spoken = "uh so um we we went home".split()
    starts = [w["start"] for w in words]  # each kept word keeps its own times
    assert starts == sorted(starts) and all(spoken[round(t / 0.4)] == w["word"].strip(".,").lower()
                                            for t, w in zip(starts, words))


@pytest.mark.parametrize("layout", ["object", "list", "lines"])
def test_vosk_results_are_read_and_written_in_their_layout(tmp_path, layout, default_en):
    results = [{"result": [{"conf": 1.0, "start": k * 0.5 + 10 * r, "end": k * 0.5 + 0.4 + 10 * r, "word": w}
                           for k, w in enumerate(text.split())], "text": text}
               for r, text in enumerate(["hello how are you", "i am fine thanks"])]
    if layout == "object":
        results = results[:1]
    path = tmp_path / "vosk.json"
    path.write_text({"object": json.dumps(results[0]), "list": json.dumps(results),
                     "lines": "\n".join(map(json.dumps, results))}[layout])
    assert timed_shape(str(path)) == "vosk"
    out = run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json").stdout
    back = json.loads(out) if layout == "list" else [json.loads(line) for line in out.splitlines()]
    assert len(back) == len(results)
    text = " ".join(r["text"] for r in results)
    assert " ".join(r["text"] for r in back) == default_en.predict([text])[0]
    assert [[w["start"] for w in r["result"]] for r in back] == [[w["start"] for w in r["result"]] for r in results]
    assert all(w["conf"] == 1.0 and "confidence" in w for r in back for w in r["result"])


def test_missing_times_come_from_the_neighbours(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"start": 1.0, "end": 3.0, "text": " a b c", "words": [
        {"word": " a"}, {"word": " b", "start": 1.5, "end": 2.0}, {"word": " c"}]}]))
    (segment,) = read_segments(str(path), timed_shape(str(path)))
    assert [(w.text, w.start, w.end) for w in segment.words] == [("a", 1.0, 1.5), ("b", 1.5, 2.0), ("c", 2.0, 3.0)]


@pytest.mark.parametrize("content, message", [
    ('{"text": "hello"}', "not a word-timed transcript"),
    ('{"segments": [{"words": [{"start": 1}]}]}', "without its text"),
    ('{"segments": [{"words": [{"word": "a", "start": "soon"}]}]}', "not a number of seconds"),
    ('{"segments": [{"words": [', "not valid JSON"),
])
def test_a_file_of_another_shape_is_one_error_line_naming_it(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run("predict.py", "--input_file", str(path), "--output_file", str(tmp_path / "out.srt"),
                 "--format", "srt", check=False)
    assert result.returncode == 2 and result.stderr.startswith(f"error: {path}") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.srt").exists()


def test_text_for_json_and_json_for_text_are_refused(tmp_path):
    text, timed = tmp_path / "a.txt", tmp_path / "a.json"
    text.write_text("hello there\n")
    timed.write_text(json.dumps(whisper_document(TALK[:5])))
    for path, fmt, says in ((text, "json", "is not JSON"), (timed, "plain", "give --format json, srt, vtt or text"),
                            (timed, "jsonl", "give --format json, srt, vtt or text")):
        result = run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", fmt, check=False)
        assert result.returncode == 2 and says in result.stderr and result.stderr.startswith("error: ")


SRT_CUE = re.compile(r"(\d+)\n(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)\n((?:.+\n)+)")


def seconds(h, m, s, ms) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def test_srt_from_words_keeps_the_limits_and_every_word(tmp_path, default_en):
    words = (TALK * 6)
    path = tmp_path / "talk.json"
    path.write_text(json.dumps(whisper_document(words, pause_after=40)))
    out = run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "srt").stdout
    cues = SRT_CUE.findall(out)
    assert len(cues) > 5 and len(cues) == out.count(" --> ")
    assert [int(c[0]) for c in cues] == list(range(1, len(cues) + 1))
    texts = []
    for cue in cues:
        start, end, lines = seconds(*cue[1:5]), seconds(*cue[5:9]), cue[9].splitlines()
        assert end - start <= 7.0 and len(lines) <= 2 and all(len(line) <= 42 for line in lines)
        texts.append(" ".join(lines))
    as_json = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json").stdout)
    assert " ".join(texts) == " ".join(w["word"] for s in as_json["segments"] for w in s["words"])  # one restoration
    pause = 40 * 0.35 + 0.3 + 0.5  # the end of the word before the pause, and the half second a cue lingers
    assert any(abs(seconds(*cue[5:9]) - pause) < 0.002 for cue in cues)
    assert sum(text.endswith((".", "?", "!")) for text in texts) >= len(texts) // 2  # most end at a sentence end


def test_vtt_from_words_opens_with_its_header(tmp_path):
    path = tmp_path / "talk.json"
    path.write_text(json.dumps(whisper_document(TALK)))
    out = run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "vtt").stdout
    assert out.startswith("WEBVTT\n\n00:00:00.000 --> ")


def test_a_cue_ends_at_a_sentence_end_else_at_a_comma():
    builder = CueBuilder(SubtitleStyle(line_chars=20, max_lines=1))
    words = "Well, we tried. Then we went home, and slept well after that day".split()
    cues = []
    for k, word in enumerate(words):
        cues += builder.add(k * 0.3, k * 0.3 + 0.25, word)
    cues += builder.finish()
    assert [" ".join(c.lines) for c in cues][:2] == ["Well, we tried.", "Then we went home,"]


WORD = st.text("abcdefghij", min_size=1, max_size=12).map(lambda w: w + random.Random(len(w)).choice(["", "", ",", "."]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(WORD, st.floats(0.05, 3.0), st.floats(0.0, 1.2)), min_size=1, max_size=80))
def test_every_cue_keeps_the_limits_and_the_words_in_order(items):
    limits, builder, cues, t, timed = SubtitleStyle(), CueBuilder(), [], 0.0, []
    for word, gap, length in items:
        t += gap
        timed.append((t, t + length, word))
        cues += builder.add(t, t + length, word)
        t += length
    cues += builder.finish()
    assert " ".join(" ".join(c.lines) for c in cues).split() == [w for _, _, w in timed]
    k = 0
    for cue in cues:
        n = len(" ".join(cue.lines).split())
        inside = timed[k:k + n]
        k += n
        assert cue.end - cue.start <= limits.max_duration + 1e-9
        assert len(cue.lines) <= limits.max_lines and all(len(line) <= limits.line_chars for line in cue.lines)
        assert all(b[0] - a[1] < limits.pause for a, b in zip(inside, inside[1:]))


def test_a_long_transcript_is_restored_a_chunk_at_a_time(default_en):
    read = []

    def segments():
        for k in range(200):
            read.append(k)
            yield Segment({}, [TimedWord(w, 0.0, 0.0, {}) for w in TALK[:10]])

    first = next(restored_segments(default_en, segments()))
    assert len(read) <= (STEP + LOOKAHEAD) // 10 + 2  # a step and the lookahead read before the first comes out
    assert len(first[1]) == 10


def test_a_plain_text_file_is_no_timed_transcript(tmp_path):
    path = tmp_path / "a.txt"
    for text in ("hello\n", "[music] so we began\n", "[ laughter ] yes\n", "{laughs} so we began\n", "[1] so we began\n"):
        path.write_text(text)
        assert timed_shape(str(path)) is None
    path.write_text('[{"segments": [{"words": [{"word": "a"}')
    with pytest.raises(InputError, match="not valid JSON"):
        list(read_segments(str(path), timed_shape(str(path))))


def test_a_word_keeps_the_leading_space_its_recogniser_wrote(tmp_path):
    path = tmp_path / "fw.json"  # faster-whisper: " word", and the segments as a list
    path.write_text(json.dumps([{"start": 0.0, "end": 1.2, "text": " hello there friend", "words": [
        {"word": f" {w}", "start": k * 0.4, "end": k * 0.4 + 0.3, "probability": 0.9}
        for k, w in enumerate(["hello", "there", "friend"])]}]))
    (segment,) = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json").stdout)
    assert [w["word"][:1] for w in segment["words"]] == [" "] * 3 and segment["words"][0]["word"] == " Hello"
    assert segment["text"] == "".join(w["word"] for w in segment["words"])


def test_a_segment_without_word_times_is_refused_and_vosks_silence_is_not(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": " hello"}, {"words": []}]}))
    with pytest.raises(InputError, match="segment 1: no 'words'"):
        list(read_segments(str(path), "whisper"))
    path.write_text('{"text": ""}\n{"result": [{"word": "hi", "start": 0, "end": 0.2}], "text": "hi"}\n')
    assert [len(s.words) for s in read_segments(str(path), timed_shape(str(path)))] == [0, 1]


def test_a_word_with_a_space_inside_stays_one_word_with_its_space(tmp_path):
    path = tmp_path / "t.json"
    words = ["we", "flew", "to", "new york", "on", "monday"]
    path.write_text(json.dumps({"segments": [{"words": [{"word": w, "start": k * 0.5, "end": k * 0.5 + 0.4}
                                                        for k, w in enumerate(words)]}]}))
    out = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json").stdout)
    written = [w["word"] for w in out["segments"][0]["words"]]
    assert len(written) == len(words) and written[3].strip(".,").lower() == "new york"
