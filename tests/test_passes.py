"""The one pass driver (``Punctuator.predict_in_parts``): ``predict`` and ``predict_scored`` are it run to its
end, so its parts, its passes and its scoring are tested once here for all three."""
import copy
import math

from gector_punct.prediction.punctuator import Punctuator, run_to_end

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet".split()


def pauses_and_result(punctuator: Punctuator, lines: list[str], part_words: float, **kwargs):
    run, pauses = punctuator.predict_in_parts(lines, part_words, **kwargs), 0
    try:
        while True:
            next(run)
            pauses += 1
    except StopIteration as done:
        return pauses, done.value


def test_parts_are_of_the_asked_size(random_editor):
    """Six lines of ten words, one window a batch: a part of 20 words is two batches, so three pauses (a part
    counted past its size, or never counted afresh, pauses otherwise); every part size restores the same."""
    one_by_one = Punctuator(random_editor.models, batch_size=1, device="cpu")
    lines = [" ".join(WORDS[k:] + WORDS[:k]) for k in range(6)]
    expected = one_by_one.predict(lines)
    assert pauses_and_result(one_by_one, lines, 20) == (3, expected)
    assert pauses_and_result(one_by_one, lines, 10) == (6, expected)
    assert pauses_and_result(one_by_one, lines, 25) == (2, expected)
    assert pauses_and_result(one_by_one, lines, math.inf) == (0, expected)


def test_every_path_takes_as_many_passes_as_asked(random_editor):
    """A second pass tags again the lines the first changed: with ``iteration_count`` 2 the random editor
    writes some line otherwise than with 1, and ``predict``, ``predict_scored`` and the parts agree."""
    lines = [" ".join(WORDS[k:] + WORDS[:k]) for k in range(6)] + ["", "so we went home"]
    once, twice = copy.copy(random_editor), copy.copy(random_editor)
    once.iteration_count, twice.iteration_count = 1, 2
    assert once.predict(lines) != twice.predict(lines)
    for punctuator in (once, twice):
        written = punctuator.predict(lines)
        assert pauses_and_result(punctuator, lines, 15)[1] == written
        assert [line.text for line in punctuator.predict_scored(lines)] == written
        scored = run_to_end(punctuator.predict_in_parts(lines, 15, scored=True))
        assert [line.text for line in scored] == written
