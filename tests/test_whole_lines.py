"""Whole-utterance lines (``predict.py --whole_lines``): a line starts with a capital and ends a sentence."""
from hypothesis import example, given, settings, strategies as st

from gector_punct.decoding import close_utterance
from gector_punct.predictor import Punctuator
from gector_punct.tags import UPPER, Tag, apply_tags
from test_cli import run

comma = Tag(append=",")


def close(words, tags, mark="."):
    return apply_tags(words, close_utterance(words, tags, mark))


def test_first_word_capitalised_and_last_pause_becomes_the_mark():
    words = "the economy grew last year".split()
    assert close(words, [Tag()] * 4 + [comma]) == "The economy grew last year."
    assert close(words, [Tag()] * 5, "?") == "The economy grew last year?"
    dash = Tag(append="--")  # a dash is a pause mark too (tags.PAUSE_MARKS): a whole line ends a sentence
    assert close(words, [Tag()] * 4 + [dash]) == "The economy grew last year."


def test_what_already_ends_or_carries_marks_stays():
    """A sentence end already there, or the input's own marks, stay; an added closing quote takes the mark
    inside it."""
    words = "we met in the us".split()
    acronym = Tag(acronym=True, case=UPPER)
    assert close(words, [Tag()] * 4 + [acronym]) == "We met in the U.S."  # its period ends the sentence
    assert close(words, [Tag()] * 4 + [Tag(append='"')]) == 'We met in the us."'  # the mark inside
    assert close(words, [Tag()] * 4 + [Tag(append=',"')], "?") == 'We met in the us?"'
    assert close(["well", "said:"], [Tag(), Tag()]) == "Well said:"  # the input's own mark
    assert close(["it", "ended"], [Tag(), Tag(append="!")]) == "It ended!"


def test_deleted_words_are_skipped():
    words = "uh so it works uh".split()
    gone = Tag(deletes=True)
    out = close_utterance(words, [gone, Tag(), Tag(), Tag(), gone], ".")
    assert apply_tags(words, out) == "So it works."


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=40).filter(str.strip), min_size=1, max_size=6))
@example(["a za a"])  # the random tagger closes a quote on the last word: the period goes inside it
def test_every_line_of_a_random_tagger_is_closed(random_editor, lines):
    whole = Punctuator(random_editor.models, batch_size=8, device="cpu", whole_lines=True)
    out = whole.predict(lines)
    assert len(out) == len(lines)
    for line in out:
        assert line[0].isupper() and line.rstrip('"')[-1] in ".?!", line


def test_cli_flag_and_its_conflicts(tmp_path):
    (tmp_path / "in.txt").write_text("so i went to new york last tuesday\n\nok\n", encoding="utf-8")
    out = run("predict.py", "--input_file", str(tmp_path / "in.txt"), "--output_file", "-", "--whole_lines").stdout
    lines = out.splitlines()
    assert len(lines) == 3 and lines[1] == "" and lines[0][0] == "S" and lines[0][-1] in ".?!"
    bad = run("predict.py", "--input_file", "-", "--output_file", "-", "--whole_lines", "--stream", check=False)
    assert bad.returncode == 2 and "--whole_lines" in bad.stderr
