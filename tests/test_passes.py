"""The one pass driver (``Punctuator.predict_in_parts``): ``predict`` and ``predict_scored`` are it run to its
end, so its parts, its passes and its scoring are tested once here for all three."""
import copy
import math

import pytest

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
    assert pauses_and_result(one_by_one, lines, 11) == (3, expected)  # counted from 0: 10 words are not 11
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
        for scored in (punctuator.predict_scored(lines), run_to_end(punctuator.predict_in_parts(lines, 15, scored=True))):
            assert [line.text for line in scored] == written
            assert [" ".join(w.text for w in line.words) for line in scored] == written  # each word, scored
            assert all(0 < w.confidence <= 1 for line in scored for w in line.words)


def test_each_path_names_itself_in_a_type_error(random_editor):
    for method, name in ((random_editor.predict, "predict"), (random_editor.predict_scored, "predict_scored"),
                         (lambda lines: run_to_end(random_editor.predict_in_parts(lines, 10)), "predict_in_parts")):
        with pytest.raises(TypeError, match=rf"^{name} takes a list of lines \(for one text: {name}\(\[text\]\)\[0\]\)"):
            method("one text")
        with pytest.raises(TypeError, match=rf"^{name} takes lines of text: line 1 is int"):
            method(["ok", 3])


def test_each_path_hands_each_lines_audio_to_the_model(random_editor, monkeypatch):
    """Line i's audio reaches the model as line i's, on every pass and path (lines without words take none)."""
    seen = []
    original = Punctuator.probabilities_in_parts

    def spy(self, word_lines, audio=None, windows=None, part_words=math.inf):
        seen.append((len(word_lines), audio))
        return (yield from original(self, word_lines, None, windows, part_words))

    monkeypatch.setattr(Punctuator, "probabilities_in_parts", spy)
    lines, audio = ["so we went home", "", "did you"], ["a.wav", "b.wav", None]
    for run in (random_editor.predict, random_editor.predict_scored,
                lambda lines, audio: run_to_end(random_editor.predict_in_parts(lines, 5, audio=audio))):
        seen.clear()
        run(lines, audio)
        assert seen[0] == (2, ["a.wav", None]), seen


def test_a_pass_tokenises_its_lines_once(random_editor, monkeypatch):
    """The encoder's step reads the windows the tokenising step made (the pipeline runs the two in threads of
    their own): a pass encodes its lines into windows once, whichever path runs it."""
    calls = []
    original = Punctuator.encode
    monkeypatch.setattr(Punctuator, "encode", lambda self, word_lines: calls.append(1) or original(self, word_lines))
    lines = ["so we went home", "did you"]
    for run in (random_editor.predict, random_editor.predict_scored,
                lambda lines: run_to_end(random_editor.predict_in_parts(lines, 3))):
        calls.clear()
        run(lines)
        assert len(calls) == 1


def test_tags_are_asked_with_each_lines_audio(random_editor, monkeypatch):
    seen = []
    original = Punctuator.probabilities_in_parts

    def spy(self, word_lines, audio=None, windows=None, part_words=math.inf):
        seen.append(audio)
        return (yield from original(self, word_lines, None, windows, part_words))

    monkeypatch.setattr(Punctuator, "probabilities_in_parts", spy)
    random_editor.predict_tags([["so", "we"], ["ok"]], ["a.wav", None])
    assert seen == [["a.wav", None]]


def test_the_model_is_fed_each_lines_words_and_audio(random_editor, monkeypatch):
    """The runner gets the lines' words and audio (an audio model aligns its audio to the words)."""
    runner, fed = random_editor.runners[0], []
    original = runner.feed
    monkeypatch.setattr(runner, "feed", lambda windows, word_lines, audio, *rest:
                        fed.append((word_lines, audio)) or original(windows, word_lines, None, *rest))
    random_editor.predict(["so we went home", "", "ok"], ["a.wav", "b.wav", None])
    assert fed == [([["so", "we", "went", "home"], ["ok"]], ["a.wav", None])]


def test_an_ensemble_averages_its_members_probabilities(random_editor):
    """Two taggers: the mean of each one's probabilities (one alone: its own)."""
    import numpy as np
    import torch

    from conftest import tiny_tagger

    torch.manual_seed(1)
    other = tiny_tagger(random_editor.models[0].vocab, max_len=48)
    pair = Punctuator([random_editor.models[0], other], device="cpu")
    alone = [Punctuator([model], device="cpu") for model in pair.models]
    words = [["so", "we", "went", "home"], ["ok", "then"]]
    got, members = pair.probabilities(words), [p.probabilities(words) for p in alone]
    for head, table in members[0].items():
        assert np.allclose(got[head], (table + members[1][head]) / 2)
        assert not np.allclose(got[head], table)


def test_a_part_ends_after_the_batch_that_reaches_its_size(random_editor, monkeypatch):
    """Ten words a batch, parts of 11: the pauses come after batches 2, 4 and 6 (a count not started from 0
    pauses after 1, 3, 5); a single model's probabilities are its own tables, not a mean (no copy)."""
    import gector_punct.prediction.punctuator as punctuator_module

    one_by_one = Punctuator(random_editor.models, batch_size=1, device="cpu")
    runner, batches = one_by_one.runners[0], []
    original = runner.feed

    def counted(*args):
        run = original(*args)
        return lambda *batch: (batches.append(1), run(*batch))[1]

    monkeypatch.setattr(runner, "feed", counted)
    monkeypatch.setattr(punctuator_module, "mean_probabilities", lambda members: pytest.fail("averaged one model"))
    lines = [" ".join(WORDS[k:] + WORDS[:k]) for k in range(6)]
    run, at = one_by_one.predict_in_parts(lines, 11), []
    try:
        while True:
            next(run)
            at.append(len(batches))
    except StopIteration:
        pass
    assert at == [2, 4, 6]
