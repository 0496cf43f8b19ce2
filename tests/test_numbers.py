"""Spoken numbers written as digits (issue 59): the probe lines' targets, the words that stay words, the
clauses a number may not cross, and a number merged alike in every output: plain lines, JSONL words, a
stream, subtitle cues, WhisperX and Vosk JSON (times from the first word's start to the last word's end,
the lowest confidence, the first word's speaker). English needs nemo_text_processing (requirements-numbers.txt,
which .ci/run installs); without it --numbers digits is one error line."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from test_cli import run

from gector_punct.text.numbers.english import aligned, grammar_words, spoken_forms
from gector_punct.text.numbers.spans import clauses, merged_words, number_spans
from gector_punct.text.units import split_edges

needs_nemo = pytest.mark.skipif(importlib.util.find_spec("nemo_text_processing") is None,
                                reason="nemo_text_processing not installed (pip install -r requirements-numbers.txt)")
PROBES = [os.path.join(ROOT, "tests", "data", name) for name in ("number_lines.tsv", "number_lines_heldout.tsv")]
SPACES = str.maketrans({"\u202f": " ", "\u00a0": " "})  # the probes write a digit group's no-break space as a space


def probe_lines():
    for path in PROBES:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("#"):
                    yield line.rstrip("\n").split("\t")


def written(line: str, language: str | None = "en", mode: str = "digits") -> str:
    words = line.split()
    return " ".join(merged_words(words, number_spans(words, language, mode)))


@needs_nemo
def test_probe_lines_are_written_as_an_editor_writes_them():
    right, total, converted = {}, {}, []
    for language, spoken, expected in probe_lines():
        out = written(spoken, language).translate(SPACES)
        right[language] = right.get(language, 0) + (out == expected)
        total[language] = total.get(language, 0) + 1
        if spoken == expected and out != spoken:
            converted.append(out)  # words that are no quantity, turned into digits
    assert right["en"] / total["en"] >= 0.95, right
    assert all(right[lang] / total[lang] >= 0.9 for lang in ("fr", "es", "de", "it")), right
    assert converted == []


@needs_nemo
@pytest.mark.parametrize("mode", ["digits", "all_digits"])
def test_words_that_are_no_quantity_stay_words_in_every_mode(mode):
    for line in ["no one came", "give me a second", "the first time we met", "at one point we stopped",
                 "i went there once", "one of them is mine"]:
        assert written(line, mode=mode) == line
    for line, language in [("uno de ellos es mío", "es"), ("un de ces jours", "fr"), ("einer von ihnen", "de")]:
        assert written(line, language, mode) == line


@needs_nemo
def test_one_to_ten_stay_words_in_running_text_unless_all_digits():
    assert written("i have three kids") == "i have three kids"
    assert written("i have three kids", mode="all_digits") == "i have 3 kids"
    assert written("ha dieci cani", "it") == "ha dieci cani"
    assert written("ha dieci cani", "it", "all_digits") == "ha 10 cani"
    assert written("it costs three dollars") == "it costs $3"  # a sum is in digits, however small


@needs_nemo
def test_a_number_keeps_its_outer_marks_and_the_sentence_one_period():
    assert written("We meet at three p m. Then we eat.") == "We meet at 3 p.m. Then we eat."
    assert written('He said "twenty five dollars," and left.') == 'He said "$25," and left.'
    assert written("We meet at eleven P. M second floor.") == "We meet at 11 p.m. second floor."


def test_a_number_never_crosses_a_mark_but_an_initials_period():
    words = "one, two three. I got an A. Then P. M. there".split()
    assert clauses(words) == [(0, 1), (1, 3), (3, 7), (7, 10), (10, 11)]
    assert written("In nineteen, eighty four") == "In 19, 84"  # not 1984


@needs_nemo
def test_a_four_digit_count_after_year_words_is_a_year():
    assert written("in the year two thousand and ten") == "in the year 2010"
    assert written("we saw two thousand and ten birds") == "we saw 2,010 birds"


def test_a_clause_whose_words_the_tagger_rewrites_is_not_laid_over_them():
    assert aligned(["mister", "paid", "twenty"], [("name", "mr."), ("name", "paid"), ("cardinal", {})]) is None
    assert aligned(["we", "paid", "twenty", "dollars"], [("name", "we"), ("name", "paid"), ("money", {})]) == [
        (2, 4, [("money", {})])]
    assert spoken_forms("call two oh four oh a hundred".split()) == "call two zero four oh one hundred".split()


WORDS = ["twenty", "five", "one", "hundred", "and", "dollars", "p", "m", "point", "percent", "the", "nineteen",
         "eighty", "a", "second", "march", "third", "oh", "kids", "no", "went", "minus", "thousand", "four"]


@needs_nemo
@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(["", "", "", ",", ".", "?"])), min_size=1,
                max_size=14), st.sampled_from(["digits", "all_digits"]))
def test_a_conversion_never_loses_a_word(pairs, mode):
    words = [word + mark for word, mark in pairs]
    spans = number_spans(words, "en", mode)
    at = 0
    for span in spans:  # in order, apart, each a run of the line with digits in its text
        assert at <= span.start < span.end <= len(words) and any(ch.isdigit() for ch in span.text)
        at = span.end
        # a span takes only words of a number's grammar: "kids", "no", "went" are never swallowed
        assert all(split_edges(w)[1] in grammar_words() for w in words[span.start: span.end]), span
    expected, at = [], 0  # every other word is in the output, in its place
    for span in spans:
        expected += words[at: span.start] + [span.text]
        at = span.end
    assert merged_words(words, spans) == expected + words[at:]


def test_nothing_changes_in_words_mode_or_an_unread_language():
    assert number_spans("it costs twenty five dollars".split(), "en", "words") == []
    assert number_spans("我 有 二十 本 书".split(), None, "digits") == []
    with pytest.raises(ValueError, match="unknown numbers mode"):
        number_spans(["one"], "en", "roman")


def test_without_nemo_digits_is_one_error_line(tmp_path):
    """nemo_text_processing hidden from the child: predict.py says what to install, before any output."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nclass Hide:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('nemo_text_processing', 'pynini'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    result = subprocess.run([sys.executable, "predict.py", "--input_file", "-", "--output_file", "-", "--numbers",
                             "digits"], input="it costs twenty dollars\n", capture_output=True, text=True, cwd=ROOT,
                            env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "error: numbers as digits need nemo_text_processing for English: pip install -r requirements-numbers.txt"]


TALK = "so the call is at three p m tomorrow and it costs twenty five dollars and fifty cents okay"


@pytest.fixture(scope="module")
def digits_en():
    from gector_punct import Punctuator

    return Punctuator.load("default_en", numbers="digits")


@needs_nemo
def test_every_writer_writes_the_line_alike(digits_en, tmp_path):
    from gector_punct.prediction.streaming import Captions, StreamingPunctuator
    from gector_punct.prediction.subtitles import format_subtitles, read_subtitles, restore_subtitles

    (line,) = digits_en.predict([TALK])
    assert "3 p.m." in line and "$25.50" in line
    scored = digits_en.predict_scored([TALK])[0]
    assert scored.text == line == " ".join(word.text for word in scored.words)
    captions = Captions(StreamingPunctuator(digits_en, lookahead=64))
    assert captions.push(TALK.split()) + captions.finish() == line
    (tmp_path / "a.srt").write_text(f"1\n00:00:01,000 --> 00:00:09,000\n{TALK}\n")
    cue_text = format_subtitles(restore_subtitles(digits_en, read_subtitles(str(tmp_path / "a.srt"), "srt")))
    assert cue_text.splitlines()[2] == line


@needs_nemo
def test_the_example_of_docs_numbers_is_what_predict_writes(digits_en):
    from test_doc_examples import quoted_output

    with open(os.path.join(ROOT, "examples", "numbers.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    quoted = quoted_output("docs/numbers.md", "--input_file examples/numbers.txt")
    assert quoted.split() == " ".join(digits_en.predict(lines)).split()


@needs_nemo
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


@needs_nemo
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


@needs_nemo
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


class Word:
    """A stream's final word as ``NumberHold`` reads it (``RestoredWord``'s text)."""

    def __init__(self, text: str):
        self.text = text


def held(chunks: list[str], mode: str = "digits") -> list[list[str]]:
    from gector_punct.text.numbers.hold import NumberHold

    hold = NumberHold(mode, lambda run, text: Word(text))
    out = [[w.text for w in hold.push([Word(t) for t in chunk.split()])] for chunk in chunks]
    return out + [[w.text for w in hold.finish()]]


def test_a_stream_writes_plain_words_one_behind():
    assert held(["So I went", "home."]) == [["So", "I"], ["went", "home."], []]
    assert held(["So I went"], mode="words") == [["So", "I", "went"], []]


@needs_nemo
def test_a_stream_holds_a_number_until_it_is_whole():
    chunks = ["It costs twenty", "five dollars and fifty", "cents, and we meet at eleven P.", "M on the second floor."]
    out = held(chunks)
    assert out[0] == ["It"] and out[1] == []  # "costs" waits: "costs twenty ..." may be one number
    assert " ".join(sum(out, [])) == written(" ".join(chunks))  # as the batch writes the line
    assert "11 p.m." in sum(out, [])
    assert held(["I paid a", "hundred dollars", "for it."]) == [["I"], [], ["paid", "$100", "for", "it."], []]


@needs_nemo
def test_a_stream_lets_a_number_go_once_words_enough_followed_it():
    out = held(["we saw twenty people at the big party on", "monday"])
    assert out[0] == ["we", "saw", "20", "people", "at", "the", "big", "party"]  # four words after "twenty"
