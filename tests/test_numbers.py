"""Spoken numbers written as digits (issue 59), the writer alone (no model): the probe lines' targets, the
words that stay words, the clauses a number may not cross, a stream's held number, and the error line
without nemo. tests/test_number_outputs.py runs it in every output of the real model. English needs
nemo_text_processing (requirements-numbers.txt, which .ci/run installs)."""
import importlib.util
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT

from gector_punct.text.numbers.english import aligned, grammar_words, spoken_forms
from gector_punct.text.numbers.spans import clauses, merged_words, number_spans
from gector_punct.text.units import split_edges

needs_nemo = pytest.mark.skipif(importlib.util.find_spec("nemo_text_processing") is None,
                                reason="nemo_text_processing not installed (pip install -r requirements-numbers.txt)")
PROBES = [os.path.join(ROOT, "tests", "data", name)
          for name in ("number_lines.tsv", "number_lines_heldout.tsv", "number_lines_fresh.tsv")]
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
def test_what_is_no_count_said_stays_words():
    assert written("millions of people over the last hundred years") == "millions of people over the last hundred years"
    assert written("it cost nine ninety nine") == "it cost nine ninety nine"  # no phone number: not digit by digit
    assert written("call five five five one two three four") == "call 555-1234"
    assert written("eleven players for twelve hours") == "11 players for 12 hours"
    assert written("it took two hours") == "it took two hours"  # a length of time is a count
    assert written("it is two feet wide") == "it is 2 feet wide"  # a dimension is in digits


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
    assert held(["I paid a", "hundred dollars", "for it."]) == [["I", "paid"], [], ["$100", "for", "it."], []]


@needs_nemo
def test_a_stream_lets_a_number_go_once_words_enough_followed_it():
    out = held(["we saw twenty people at the big party on", "monday"])
    assert out[0] == ["we", "saw", "20", "people", "at", "the", "big", "party"]  # four words after "twenty"
