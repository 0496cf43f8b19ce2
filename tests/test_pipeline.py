"""The overlapped pipeline (tokenise ahead, decode behind the encoder) writes what ``predict`` writes,
chunk for chunk, and fails where the plain loop would."""
import copy
import threading
import time

import pytest

from gector_punct.prediction.chunks import word_chunks
from gector_punct.prediction.pipeline import predict_chunks

LINES = ["so i went to new york last tuesday did you", "", "   ", "hello how are you, i am fine thanks",
         "we met in the u.k. last year", "call me at five five five one two three four",
         "I went home. then i called my mother she was not there", "ok", "我用iphone手机看youtube视频"]


def chunks_of(lines, size):
    return [lines[i:i + size] for i in range(0, len(lines), size)]


def test_the_pipeline_runs_predicts_own_steps(random_editor, monkeypatch):
    """``predict`` and the pipeline run the same steps (``Punctuator.pass_steps``): a step changed there
    changes both alike."""
    steps = []
    original = type(random_editor).pass_steps

    def traced(self):
        def trace(step):
            return lambda job, *parts: (steps.append(step.__name__), step(job, *parts))[1]
        return tuple(trace(step) for step in original(self))

    monkeypatch.setattr(type(random_editor), "pass_steps", traced)
    chunks = chunks_of(LINES, 3)
    expected = [random_editor.predict(chunk) for chunk in chunks]
    in_predict, steps[:] = list(steps), []
    assert list(predict_chunks(random_editor, iter(chunks))) == expected
    assert sorted(steps) == sorted(in_predict) and set(steps) == {"tokenise_step", "encode_step", "decode_step"}


@pytest.mark.parametrize("fragments", [False, True])
def test_chunks_come_out_as_predict_writes_them(random_editor, fragments):
    random_editor.fragments = fragments
    try:
        chunks = chunks_of(LINES * 3, 4) + [["", ""]]  # a chunk with no words at all too
        expected = [random_editor.predict(chunk) for chunk in chunks]
        assert list(predict_chunks(random_editor, iter(chunks))) == expected
        assert any(e != c for e, c in zip(expected, chunks))  # the editor does edit: the test can see a mix-up
    finally:
        random_editor.fragments = False


def test_scored_chunks_and_more_passes_come_out_as_predict_writes_them(random_editor):
    """``scored``: each chunk's ``predict_scored`` lines (text, words, confidence); with ``iteration_count``
    2, which the overlap cannot run, the plain loop's."""
    chunks = chunks_of(LINES, 3)
    assert list(predict_chunks(random_editor, iter(chunks), scored=True)) == \
        [random_editor.predict_scored(chunk) for chunk in chunks]
    twice = copy.copy(random_editor)
    twice.iteration_count = 2
    expected = [twice.predict(chunk) for chunk in chunks]
    assert expected != [random_editor.predict(chunk) for chunk in chunks]
    assert list(predict_chunks(twice, iter(chunks))) == expected
    assert list(predict_chunks(twice, iter(chunks), scored=True)) == [twice.predict_scored(c) for c in chunks]


def test_every_stage_has_ended_when_the_last_chunk_comes_out(random_editor):
    """A stage thread still alive when predict.py returns can be inside torch at the interpreter's exit,
    which then aborts ("terminate called without an active exception", exit status -6)."""
    before = threading.active_count()
    for _ in range(5):
        list(predict_chunks(random_editor, iter(chunks_of(LINES, 4))))
        assert threading.active_count() == before


def test_a_failure_while_reading_comes_after_the_chunks_before_it(random_editor):
    def chunks():
        yield LINES[:3]
        yield LINES[3:6]
        raise ValueError("input.txt, line 7: not UTF-8")

    got = []
    with pytest.raises(ValueError, match="line 7"):
        for restored in predict_chunks(random_editor, chunks()):
            got.append(restored)
    assert got == [random_editor.predict(LINES[:3]), random_editor.predict(LINES[3:6])]


def test_a_caller_that_stops_early_leaves_no_thread_working(random_editor):
    before = threading.active_count()
    results = predict_chunks(random_editor, iter(chunks_of(LINES * 20, 3)))
    next(results)
    results.close()
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() == before


def test_a_stage_blocked_reading_is_not_waited_for_long(random_editor, monkeypatch):
    """Ctrl-C while the reading stage waits on a terminal: the caller goes on after ``STRAGGLER_SECONDS``,
    not when the terminal next gives a line."""
    import gector_punct.prediction.pipeline as pipeline

    monkeypatch.setattr(pipeline, "STRAGGLER_SECONDS", 0.2)
    typed = threading.Event()

    def terminal():
        yield ["so we went home"]
        typed.wait(30)  # a user who types nothing more
        yield ["ok"]

    results = predict_chunks(random_editor, terminal())
    next(results)
    started = time.monotonic()
    results.close()
    waited = time.monotonic() - started
    typed.set()
    assert waited < 10, waited



def test_predict_py_writes_the_same_with_and_without_overlap(tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    source = tmp_path / "in.txt"
    source.write_text("\n".join(LINES * 4) + "\n", encoding="utf-8")
    outputs = []
    for overlap in ("threads", "off"):
        out = tmp_path / f"{overlap}.txt"
        done = subprocess.run([sys.executable, "predict.py", "--input_file", str(source), "--output_file", str(out),
                               "--overlap", overlap, "--chunk_words", "20", "--device", "cpu"], cwd=ROOT,
                              env=dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1"), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    assert outputs[0].count("\n") == len(LINES) * 4
    assert "So I went to New York" in outputs[0]


def test_word_chunks_close_at_the_word_count_and_keep_every_item_in_order():
    """A chunk closes as soon as it holds ``chunk_words`` words (one word late, it survived where the test
    sat in a module that needs Ray): predict.py's output cut and the service's turns follow it."""
    lines = ["a b c", "", "d", "e f g h", "i", "j k"]
    chunks = list(word_chunks(lines, 4))
    assert chunks == [(["a b c", "", "d"], 4), (["e f g h"], 4), (["i", "j k"], 3)]
    assert list(word_chunks([], 4)) == []
    assert [c for c, _ in word_chunks(lines, 100)] == [lines]
