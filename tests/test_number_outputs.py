"""A number merged alike in every output of the real default_en model under --numbers digits (issue 59): plain
lines, JSONL words, a stream, subtitle cues, docs/numbers.md's example, WhisperX and Vosk JSON (times from the
first word's start to the last word's end, the lowest confidence and recogniser's score, the first word's
speaker). tests/test_numbers.py tests the writer alone."""
import json
import os

import pytest

from conftest import ROOT
from test_cli import run
from test_numbers import needs_nemo

pytestmark = needs_nemo

TALK = "so the call is at three p m tomorrow and it costs twenty five dollars and fifty cents okay"


@pytest.fixture(scope="module")
def digits_en():
    from gector_punct import Punctuator

    return Punctuator.load("default_en", numbers="digits")


def test_every_writer_writes_the_line_alike(digits_en, tmp_path):
    from gector_punct.prediction.streaming import Captions, StreamingPunctuator
    from gector_punct.transcripts.subtitles import format_subtitles, read_subtitles, restore_subtitles

    (line,) = digits_en.predict([TALK])
    assert "3 p.m." in line and "$25.50" in line
    scored = digits_en.predict_scored([TALK])[0]
    assert scored.text == line == " ".join(word.text for word in scored.words)
    captions = Captions(StreamingPunctuator(digits_en, lookahead=64))
    assert captions.push(TALK.split()) + captions.finish() == line
    (tmp_path / "a.srt").write_text(f"1\n00:00:01,000 --> 00:00:09,000\n{TALK}\n")
    cue_text = format_subtitles(restore_subtitles(digits_en, read_subtitles(str(tmp_path / "a.srt"), "srt")))
    assert cue_text.splitlines()[2] == line


def test_the_example_of_docs_numbers_is_what_predict_writes(digits_en):
    from test_doc_examples import quoted_output

    with open(os.path.join(ROOT, "examples", "numbers.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    quoted = quoted_output("docs/numbers.md", "--input_file examples/numbers.txt")
    assert quoted.split() == " ".join(digits_en.predict(lines)).split()


def test_a_merged_word_is_as_sure_as_its_least_sure_word(digits_en):
    from gector_punct import Punctuator

    words_mode = Punctuator.load("default_en").predict_scored([TALK])[0].words
    digits = digits_en.predict_scored([TALK])[0].words
    money = next(w for w in digits if w.text.startswith("$25.50"))
    start = next(k for k, w in enumerate(words_mode) if w.text.lower() == "twenty")
    run = words_mode[start: start + 6]  # twenty five dollars and fifty cents
    assert money.confidence == min(w.confidence for w in run) and money.review == any(w.review for w in run)


def whisper_file(tmp_path) -> str:
    words = TALK.split()
    timed = [{"word": w, "start": round(k * 0.4, 2), "end": round(k * 0.4 + 0.3, 2), "score": round(0.5 + k / 50, 2),
              "speaker": "SPEAKER_01"} for k, w in enumerate(words)]
    path = tmp_path / "talk.json"
    path.write_text(json.dumps({"segments": [{"start": 0, "end": 8, "text": " " + TALK, "words": timed,
                                              "speaker": "SPEAKER_01"}], "word_segments": timed}))
    return str(path)


def test_whisper_json_keeps_a_numbers_times_score_and_speaker(tmp_path):
    out = json.loads(run("predict.py", "--input_file", whisper_file(tmp_path), "--output_file", "-", "--format",
                         "json", "--numbers", "digits").stdout)
    words = out["segments"][0]["words"]
    spoken = TALK.split()
    money = next(w for w in words if w["word"].startswith("$25.50"))
    first, last = spoken.index("twenty"), spoken.index("cents")
    assert (money["start"], money["end"]) == (round(first * 0.4, 2), round(last * 0.4 + 0.3, 2))
    assert money["score"] == round(0.5 + first / 50, 2) and money["speaker"] == "SPEAKER_01"
    assert out["word_segments"] == words and out["segments"][0]["text"] == " " + " ".join(w["word"] for w in words)
    assert sorted(w["start"] for w in words) == [w["start"] for w in words]


def test_vosk_cues_keep_a_clock_time_whole(tmp_path):
    spoken = "we meet at eleven p m on the second floor".split()
    path = tmp_path / "vosk.json"
    path.write_text(json.dumps({"result": [{"conf": 0.9 - k / 100, "start": k * 0.5, "end": k * 0.5 + 0.4, "word": w}
                                           for k, w in enumerate(spoken)], "text": " ".join(spoken)}))
    back = json.loads(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "json",
                          "--numbers", "digits").stdout)
    time_word = next(w for w in back["result"] if w["word"].startswith("11"))
    assert time_word["word"] == "11 p.m." and (time_word["start"], time_word["end"]) == (1.5, 2.9)
    assert time_word["conf"] == pytest.approx(0.85)  # the lowest of eleven, p and m
    srt = run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "srt", "--numbers",
              "digits").stdout
    assert any("11 p.m." in line for line in srt.splitlines())
