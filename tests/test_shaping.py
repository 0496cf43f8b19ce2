"""Training sources shaped like transcripts: spoken numbers (corpora/spoken.py) and partial marks (corpora/shaping.py)."""
import random

import pytest

pytest.importorskip("num2words")

from gector_punct.text.tags import make_source, tags_from_pair  # noqa: E402
from gector_punct_data.corpora.shaping import partial_source, shape_pair  # noqa: E402
from gector_punct_data.corpora.spoken import speak_line, spoken_words  # noqa: E402

CASES = [
    ("It cost $2.5 million.", "It cost two point five million dollars."),
    ("Call me at 555-1234.", "Call me at five five five one two three four."),
    ("On March 3rd at 2:30 pm, 45% of them", "On March third at two thirty pm, forty five percent of them"),
    ("In the 1990s, 1,234 people", "In the nineteen nineties, one thousand two hundred and thirty four people"),
    ('"2005 was good," he said. 3 came.', '"Two thousand and five was good," he said. Three came.'),
    ("It was 10-20 km, about 3.14 or .5 of it", "It was ten to twenty km, about three point one four or zero point five of it"),
    ("The COVID-19 mp3 in 3D cost $3.50", "The COVID-19 mp3 in 3D cost three dollars and fifty cents"),
    ("We met at 10:00. At 9:05 we left", "We met at ten o'clock. At nine oh five we left"),
]


@pytest.mark.parametrize("written, spoken", CASES)
def test_numbers_read_as_spoken(written, spoken):
    assert speak_line(written) == spoken


def test_no_mark_inside_a_spoken_number():
    for core in ["1,234,567", "2.75", "555-123-4567", "21st", "$1,000"]:
        words = spoken_words(core)
        assert words and all(w.isalpha() or w == "o'clock" for w in words), (core, words)


def test_share_zero_is_make_source_and_one_keeps_the_target():
    target = 'We met in the U.K. last year. "Did you?" she asked, Tom.'
    rng = random.Random(0)
    assert partial_source(target, 0.0, rng) == make_source(target)
    assert partial_source(target, 1.0, rng) == target


def test_partial_sources_keep_the_words_and_align():
    rng = random.Random(3)
    target = "So, I went to New York. Then I called the U.S. office, and they said: no! Why?"
    for _ in range(200):
        tgt, src = shape_pair(target, rng, spoken=0.0, partial=1.0)
        assert tgt == target
        assert make_source(src) == make_source(target)  # the same words, only marks and case differ
        tags = tags_from_pair(src.split(), tgt)
        assert len(tags) == len(src.split())


def test_kept_share_is_about_the_share():
    rng = random.Random(5)
    target = " ".join(["Word,"] * 2000)
    kept = partial_source(target, 0.3, rng).count(",")
    assert 500 < kept < 700


def test_evaluate_given_scores_only_the_added_marks(tmp_path):
    """utils/evaluate.py --given: a mark the input already had is not credited to the restoration."""
    import subprocess
    import sys
    ref = tmp_path / "ref.txt"
    ref.write_text("Hello, how are you? I am fine, thanks.\n")
    given = tmp_path / "given.txt"
    given.write_text("hello, how are you i am fine thanks\n")
    pred = tmp_path / "pred.txt"
    pred.write_text("Hello, how are you I am fine thanks.\n")  # kept the given comma, added only the final period
    out = subprocess.run([sys.executable, "utils/evaluate.py", "--reference", str(ref), "--prediction", str(pred),
                          "--given", str(given), "--json"], capture_output=True, text=True, check=True)
    import json
    punct = json.loads(out.stdout)["punct"]["overall"]
    assert punct["support"] == 3  # ?, the second comma and . : the given comma left the score
    assert round(punct["precision"]) == 100 and round(punct["recall"]) == 33


def test_template_lines_put_slots_at_sentence_ends_and_preprocess():
    """utils/data/speech_templates.py's lines (corpora/templates.py): reproducible, every one a training pair the
    tagger can learn (its tags rebuild it from its bare source), slot words never split by a mark, and a
    sentence end right after a spoken number or code in many of them."""
    from gector_punct.text.sentences import split_sentences
    from gector_punct.text.speech import NUMBER_WORDS
    from gector_punct_data.corpora.templates import template_lines

    lines = template_lines(400, random.Random(3))
    assert lines == template_lines(400, random.Random(3)) and len(set(lines)) > 350
    ends_after_number = 0
    for line in lines:
        assert ".." not in line and "  " not in line
        tags_from_pair(make_source(line).split(), line)  # raises where the tags cannot rebuild the line
        for sentence in split_sentences(line)[:-1]:
            ends_after_number += sentence.rstrip(".?!").split()[-1].lower() in NUMBER_WORDS
    assert ends_after_number > 40
    assert any(" gate " in line and line.split(" gate ")[1].split()[0].isupper() for line in lines)  # gate B twelve
