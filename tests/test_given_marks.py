"""``--existing weigh`` (``prediction.given_marks``): a recogniser's marks kept where the model agrees with
them, removed (the model decides) where they are scattered or rejected; one policy for lines and for a timed
transcript's words; the mode on the command line."""
import os
import subprocess
import sys

import numpy as np
import pytest

from gector_punct.prediction import given_marks
from gector_punct.prediction.given_marks import weighed_modes
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import DEFAULTS
from gector_punct.transcripts.restored_transcript import restore_transcript

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELS = ["$KEEP", "$APPEND_,", "$APPEND_.", '$APPEND_"', '$PREPEND_"']
# what the model would write: a mark after these words, none after the others
REFERENCE = ("so we went there early, and the doors were closed. nobody came for an hour, so we left. "
             "the next day we tried again, and this time it was open. we went in, looked around, and sat "
             "down. a man came over, asked us who we were, and left again.")


class Oracle:
    """A punctuator's ``probabilities`` that are sure of the reference's marks: a mark (. or ,) at 0.95
    after the words that have one, none at 0.99 after the others; it records the lines it was asked."""

    existing = "weigh"
    names = {"labels": LABELS}

    def __init__(self, reference: str = REFERENCE):
        self.marked = {k for k, word in enumerate(reference.split()) if word[-1] in ",."}
        self.asked: list[list[str]] = []

    def probabilities(self, lines):
        self.asked.extend(lines)
        rows = []
        for line in lines:
            for k, _ in enumerate(line):
                row = np.zeros(len(LABELS), dtype=np.float32)
                row[2], row[0] = (0.95, 0.05) if k in self.marked else (0.01, 0.99)  # $APPEND_. , $KEEP
                rows.append(row)
        return {"labels": np.array(rows)}


def as_given(reference: str, kept: set[int], added: set[int] = frozenset()) -> list[str]:
    """The reference's words with the marks of the words in ``kept`` only, and a comma after those in
    ``added``."""
    out = []
    for k, word in enumerate(reference.split()):
        bare = word.rstrip(",.")
        out.append(word if k in kept else bare + ("," if k in added else ""))
    return out


def marked_words(reference: str = REFERENCE) -> list[int]:
    return [k for k, word in enumerate(reference.split()) if word[-1] in ",."]


def test_marks_the_model_agrees_with_are_kept_even_with_one_dropped():
    kept = set(marked_words()[1:])  # one of 12 dropped, as a recogniser on clear speech might
    assert weighed_modes(Oracle(), [as_given(REFERENCE, kept)]) == ["keep"]


def test_scattered_marks_are_stripped_a_long_stretch_without_a_sentence_end():
    kept = set(marked_words()[:1])  # one comma of the model's 12 marks, then 45 words without a mark
    assert weighed_modes(Oracle(), [as_given(REFERENCE, kept)]) == ["strip"]


def test_marks_the_model_rejects_are_stripped_though_its_own_are_all_there():
    marks = set(marked_words())
    added = {1, 3, 7, 12}  # commas where the model is sure none goes
    assert weighed_modes(Oracle(), [as_given(REFERENCE, marks, added)]) == ["strip"]


def test_a_line_without_marks_is_read_as_keep_without_asking_the_model():
    oracle = Oracle()
    lines = [REFERENCE.replace(",", "").replace(".", "").split(), ["Paris", "is", "big"]]
    assert weighed_modes(oracle, lines) == ["keep", "keep"] and oracle.asked == []


def test_the_model_reads_the_words_stripped_of_marks_and_case():
    oracle = Oracle()
    weighed_modes(oracle, [["So,", "we", "went", "."], ["no", "marks"]])
    assert oracle.asked == [["so", "we", "went"]]  # the mark standing alone counts for "went"


def test_weigh_is_the_default_and_the_lines_of_each_mode_are_read_as_that_mode(random_editor, monkeypatch):
    assert DEFAULTS.existing == "weigh"
    line = "Well, i think so. But no, never again, not here."
    weigh = Punctuator(random_editor.models, existing="weigh", batch_size=8, device="cpu")
    for mode, covered in (("keep", 0.0), ("strip", 1.01)):  # covering none / more than all: keep / strip
        monkeypatch.setattr(given_marks, "MIN_COVERED", covered)
        monkeypatch.setattr(given_marks, "MAX_REJECTED", 1.0)
        alone = Punctuator(random_editor.models, existing=mode, batch_size=8, device="cpu")
        assert weigh.predict([line, "no marks here"]) == alone.predict([line, "no marks here"])


@pytest.mark.parametrize("covered", [0.0, 1.01])  # every line kept / stripped
def test_a_timed_transcript_is_weighed_as_its_line_is(random_editor, monkeypatch, covered):
    monkeypatch.setattr(given_marks, "MIN_COVERED", covered)
    monkeypatch.setattr(given_marks, "MAX_REJECTED", 1.0)
    punctuator = Punctuator(random_editor.models, existing="weigh", batch_size=8, device="cpu")
    line = "Well, i think so. But no, never again, not here, not now."
    words = [{"word": word, "start": 0.4 * k, "end": 0.4 * k + 0.3} for k, word in enumerate(line.split())]
    transcript = restore_transcript(punctuator, {"segments": [{"words": words}]})
    expected = punctuator.predict([line])[0].split()
    assert [text.strip() for _, text in transcript.words()] == expected
    other = Punctuator(random_editor.models, existing="strip" if covered == 0 else "keep", batch_size=8, device="cpu")
    assert other.predict([line])[0].split() != expected  # the decision made a difference


def run_predict(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, "predict.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_help_lists_weigh_and_a_bad_mode_is_one_error_line():
    help_text = " ".join(run_predict("--help").stdout.split())
    assert "{weigh,keep,strip}" in help_text and "weigh = " in help_text
    bad = run_predict("--existing", "trust")
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and len(bad.stderr.strip().splitlines()) == 1
    assert "trust" in bad.stderr and "weigh" in bad.stderr


def test_a_lines_closing_mark_is_not_weighed_and_punc_off_keeps_every_mark():
    """The mark that ends a line closes the utterance (the line rules write one there whatever the model's
    probability): a line whose only mark is its last is kept, though the oracle is sure none goes there.
    With the punc task off the input's marks stay whatever they are (a task that is off changes nothing)."""
    words = REFERENCE.replace(",", "").replace(".", "").split()
    assert weighed_modes(Oracle(), [words[:-2] + [words[-2] + "."]]) == ["keep"]  # the oracle's 0.01 there
    scattered = [as_given(REFERENCE, set(marked_words()[:1]))]
    oracle = Oracle()
    oracle.tasks = frozenset()
    assert given_marks.line_modes(oracle, [" ".join(scattered[0])]) == "keep"
    oracle.tasks = frozenset({"punc"})
    assert given_marks.line_modes(oracle, [" ".join(scattered[0])]) == ["strip"]
