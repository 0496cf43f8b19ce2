"""Whole-utterance lines (predict.py's default reading; ``--fragments`` turns it off): a line starts with a capital
and ends a sentence."""
from hypothesis import example, given, settings, strategies as st

from gector_punct.prediction.line_rules import close_utterance, open_utterance
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import UPPER, Tag, apply_tags
from test_cli import run
from test_decoding_rules import line_of

comma = Tag(append=",")


def closed(words, tags, mark="."):
    """The tags of a whole utterance: opened, then closed with ``mark`` where it needs one."""
    return close_utterance(open_utterance(line_of(words, tags, whole=True, last_mark=mark))).tags


def close(words, tags, mark="."):
    return apply_tags(words, closed(words, tags, mark))


def test_first_word_capitalised_and_last_pause_becomes_the_mark():
    words = "the economy grew last year".split()
    assert close(words, [Tag()] * 4 + [comma]) == "The economy grew last year."
    assert close(words, [Tag()] * 5, "?") == "The economy grew last year?"
    dash = Tag(append="--")  # a dash is a pause mark too (alignment.PAUSE_MARKS): a whole line ends a sentence
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
    out = closed(words, [gone, Tag(), Tag(), Tag(), gone])
    assert apply_tags(words, out) == "So it works."


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=40).filter(str.strip), min_size=1, max_size=6))
@example(["a za a"])  # the random tagger closes a quote on the last word: the period goes inside it
def test_every_line_of_a_random_tagger_is_closed(random_editor, lines):
    whole = Punctuator(random_editor.models, batch_size=8, device="cpu")
    out = whole.predict(lines)
    assert len(out) == len(lines)
    for line in out:
        assert line[0].isupper() and line.rstrip('"')[-1] in ".?!", line


def test_cli_reads_utterances_by_default_and_fragments_on_request(tmp_path):
    (tmp_path / "in.txt").write_text("so i went to new york last tuesday did you\n\nand then we went to\n",
                                     encoding="utf-8")
    out = run("predict.py", "--input_file", str(tmp_path / "in.txt"), "--output_file", "-").stdout
    lines = out.splitlines()
    assert lines == ["So I went to New York last Tuesday. Did you?", "", "And then we went to."]  # the README's line
    out = run("predict.py", "--input_file", str(tmp_path / "in.txt"), "--output_file", "-", "--fragments").stdout
    assert out.splitlines()[2] == "And then we went to"  # a fragment: no closing mark forced
    bad = run("predict.py", "--input_file", "-", "--output_file", "-", "--fragments", "--format", "srt", check=False)
    assert bad.returncode == 2 and "--fragments" in bad.stderr


def test_a_stream_closes_each_utterance(tmp_path):
    """--stream: an empty line ends an utterance, and its last word takes its closing mark, as a whole line does."""
    text = "so i went\nto new york last tuesday\n\nok then\n"
    out = run("predict.py", "--input_file", "-", "--output_file", "-", "--stream", "--lookahead", "2",
              stdin=text).stdout.splitlines()
    assert len(out) == 2 and all(line[0].isupper() and line[-1] in ".?!" for line in out), out
    # A stream opens its utterance before the written forms apply, as the batch does: iPhone, not Iphone.
    out = run("predict.py", "--input_file", "-", "--output_file", "-", "--stream", "--lookahead", "1",
              stdin="iphone sales are up\n").stdout
    assert out.startswith("iPhone sales"), out
