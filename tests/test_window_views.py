"""Window views (``--window_views``): each word of a long line predicted in about k windows at different places,
its probabilities their weighted mean; one view is the owners-only windowing that training uses."""
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import ROOT, tiny_tagger
from gector_punct.dataset.reader import DatasetReader, Instance
from gector_punct.model.config import (EnsembleConfig, ModelFolderError, read_ensemble, store_window_views,
                                       write_ensemble)
from gector_punct.model.vocabulary import CASE_HEAD, HEADS, Vocabulary
from gector_punct.model.windows import WindowedBatcher, assign_owners, plan_windows
from gector_punct.prediction.confidence import Calibration
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.decoding import no_edit_probabilities
from gector_punct.prediction.punctuator import Punctuator, run_to_end
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.tags import MARK_CONTEXTS, Tag

VOCAB = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?"],
                    "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"], "d_tags": ["CORRECT", "INCORRECT"]})
SPOKEN = "so the house went to new york on tuesday because of coffee interesting notwithstanding".split()


@pytest.fixture(scope="module", params=[False, True], ids=["one case distribution", "case context"])
def tagger(request):
    torch.manual_seed(3)
    return tiny_tagger(VOCAB, max_len=32, case_context=request.param)


def spoken_words(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(SPOKEN) for _ in range(n)]


def per_window(punctuator: Punctuator, windows) -> list[dict[str, np.ndarray]]:
    """Each window's own probabilities of its words, per head (the case head per mark context), run with the
    punctuator's runner and batches."""
    model, out = punctuator.models[0], [None] * len(windows)
    feed = punctuator.runners[0].feed(windows, [], None)
    for indices, batch in WindowedBatcher(windows, punctuator.batch_size, pad_id=model.pad_id).arrays():
        result = feed(indices, batch)
        for row, index in enumerate(indices):
            n = len(windows[index].word_starts)
            values = {head.name: result[head.name][row, :n] for head in HEADS}
            case = values[CASE_HEAD.name]
            if case.ndim == 2:
                values[CASE_HEAD.name] = np.broadcast_to(case[:, None, :], (n, len(MARK_CONTEXTS), case.shape[-1]))
            out[index] = values
    return out


def thinner_side(window, i: int, counts: list[int], budget: int) -> int:
    """Word ``i``'s subwords of context on its thinner side in ``window``, a line end counting as ``budget``."""
    left = budget if window.start == 0 else sum(counts[window.start: i])
    right = budget if window.end == len(counts) else sum(counts[i + 1: window.end])
    return min(left, right)


def test_one_view_is_training_windowing_and_todays_probabilities(tagger):
    """One view: the windows of ``plan_windows`` with the model's overlap (a budget/8), each word owned by one
    window, and each word's probabilities exactly its owner's."""
    words = spoken_words(300)
    punctuator = Punctuator([tagger], batch_size=4, device="cpu", window_views=1)
    encoder = punctuator.encoders[0]
    (pieces,) = encoder.word_pieces([words])
    counts = [len(p) for p in pieces]
    windows = encoder.encode_lines([words])
    spans = plan_windows(counts, encoder.budget, encoder.budget // 8)
    assert [(w.start, w.end) for w in windows] == spans and len(spans) > 5
    owners = assign_owners(spans, counts)
    assert all(w.weights == () for w in windows)
    assert [[owners[w.start + j] == k for j in range(len(w.owned))] for k, w in enumerate(windows)] == \
        [w.owned for w in windows]
    probabilities = punctuator.probabilities([words])
    own = per_window(punctuator, windows)
    for head in HEADS:
        expected = np.stack([own[owners[i]][head.name][i - windows[owners[i]].start] for i in range(len(words))])
        assert np.array_equal(probabilities[head.name], expected), head.name


@pytest.mark.parametrize("views", [2, 3])
def test_each_word_lies_in_about_k_windows_at_different_places(tagger, views):
    words = spoken_words(400)
    encoder = Punctuator([tagger], device="cpu", window_views=views).encoders[0]
    windows = encoder.encode_lines([words])
    holding = [[w for w in windows if w.start <= i < w.end] for i in range(len(words))]
    inner = range(len(words) // 5, 4 * len(words) // 5)  # away from the line's ends
    assert all(views <= len(holding[i]) <= views + 1 for i in inner)
    assert all(len({i - w.start for w in holding[i]}) == len(holding[i]) for i in inner)  # each at another place
    assert all(all(w.owned) and len(w.weights) == len(w.owned) for w in windows)
    one_view = Punctuator([tagger], device="cpu", window_views=1).encoders[0].encode_lines([words])
    assert views * len(one_view) * 0.8 <= len(windows) <= views * len(one_view) * 1.3  # the cost: about k times


@pytest.mark.parametrize("weighting", ["context", "uniform"])
def test_averaged_probabilities_are_the_weighted_mean_of_the_windows(tagger, weighting):
    lines = [spoken_words(160, seed=1), spoken_words(7, seed=2), spoken_words(90, seed=3)]  # long, short, long
    punctuator = Punctuator([tagger], batch_size=5, device="cpu", window_views=3, view_weighting=weighting)
    probabilities = punctuator.probabilities(lines)
    encoder = punctuator.encoders[0]
    windows = encoder.encode_lines(lines)
    own = per_window(punctuator, windows)
    counts = [[len(p) for p in line] for line in encoder.word_pieces(lines)]
    row = 0
    for n, words in enumerate(lines):
        for i in range(len(words)):
            holding = [(k, w) for k, w in enumerate(windows) if w.line == n and w.start <= i < w.end]
            weights = np.array([1.0 if weighting == "uniform" else thinner_side(w, i, counts[n], encoder.budget) + 1
                                for _, w in holding])
            for head in HEADS:
                values = np.stack([own[k][head.name][i - w.start] for k, w in holding])
                mean = np.tensordot(weights / weights.sum(), values, axes=1)
                assert np.allclose(probabilities[head.name][row], mean, rtol=1e-5, atol=1e-6), (n, i, head.name)
            row += 1
    (short,) = [w for w in windows if w.line == 1]  # a short line: one window, as with one view
    assert short.weights == () and all(short.owned)


def test_a_long_line_restores_alike_through_predict_and_restore_words(tagger):
    lines = [spoken_words(150, seed=4), spoken_words(120, seed=5)]
    punctuator = Punctuator([tagger], device="cpu", window_views=2)
    restored = punctuator.predict([" ".join(words) for words in lines])
    for words, line in zip(lines, restored):
        assert " ".join(punctuator.restore_words(words)) == line
    assert restored != Punctuator([tagger], device="cpu", window_views=1).predict([" ".join(w) for w in lines])


def test_training_windows_do_not_change_with_the_setting(tagger):
    instances = [Instance(words, [Tag()] * len(words)) for words in (spoken_words(200, seed=6), spoken_words(9))]
    before = DatasetReader().encode(instances, tagger.text_encoder(), tagger.vocab).windows
    Punctuator([tagger], device="cpu", window_views=3)
    after = DatasetReader().encode(instances, tagger.text_encoder(), tagger.vocab).windows
    assert after == before and len(before) > 3
    assert all(w.weights == () for w in after)
    owned = [0] * 200
    for w in after:
        if w.line == 0:
            for j, is_owner in enumerate(w.owned):
                owned[w.start + j] += is_owner
    assert owned == [1] * 200  # each word taught once


@pytest.mark.parametrize("views", [0, -1])
def test_bad_views_are_refused(tagger, views):
    with pytest.raises(ValueError, match=f"window_views {views}: a whole number, at least 1"):
        Punctuator([tagger], device="cpu", window_views=views)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_bad_views_on_the_command_line_give_one_error_line(value):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--window_views", value],
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("error: argument --window_views") and len(done.stderr.splitlines()) == 1, done.stderr


def test_a_model_folder_and_an_ensemble_carry_their_default(tagger, tmp_path):
    folder = str(tmp_path / "m")
    tagger.save(folder)
    words = spoken_words(120, seed=7)
    assert Punctuator.load(folder, engine="torch").window_views == 1
    given = PredictionSettings(model_path=[folder], engine="torch", window_views=2)
    assert load_punctuator(given, calibration=Calibration.uncalibrated()).encoders[0].views == 2  # the flag's path
    store_window_views(folder, 3)
    loaded = Punctuator.load(folder, engine="torch")
    assert loaded.window_views == 3 and loaded.encoders[0].views == 3
    one_view = Punctuator.load(folder, engine="torch", window_views=1)
    assert len(loaded.encode([words])[0]) > len(one_view.encode([words])[0])
    write_ensemble(str(tmp_path / "ens"), EnsembleConfig(("../m",)))
    assert Punctuator.load(str(tmp_path / "ens"), engine="torch").window_views == 3  # the member's own
    store_window_views(str(tmp_path / "ens"), 2)
    assert read_ensemble(str(tmp_path / "ens")).window_views == 2
    assert Punctuator.load(str(tmp_path / "ens"), engine="torch").window_views == 2
    assert Punctuator.load(str(tmp_path / "ens"), engine="torch", window_views=1).window_views == 1
    path = tmp_path / "ens" / "ensemble.json"
    path.write_text(json.dumps(dict(json.loads(path.read_text()), window_views=0)))
    with pytest.raises(ModelFolderError, match="window_views 0"):
        read_ensemble(str(tmp_path / "ens"))
    config = tmp_path / "m" / "config.json"
    config.write_text(json.dumps(dict(json.loads(config.read_text()), window_views=-1)))
    with pytest.raises(ModelFolderError, match="window_views -1"):
        Punctuator.load(folder, engine="torch")


def test_a_word_without_pieces_is_left_unedited_by_every_view(tagger):
    """A character inside a longer subword (no pieces of its own) reads the next unit's: no window predicts it,
    and it keeps certainly no edit, however many windows hold it."""
    words = spoken_words(200, seed=8)
    punctuator = Punctuator([tagger], device="cpu", window_views=3)
    encoder = punctuator.encoders[0]
    (pieces,) = encoder.word_pieces([words])
    pieces = [[] if i % 5 == 2 else p for i, p in enumerate(pieces)]
    windows = encoder.windows_for(0, pieces)
    assert len(windows) > 5 and all(w.weights for w in windows)
    probabilities = run_to_end(punctuator.probabilities_in_parts([words], windows=[windows]))
    none = no_edit_probabilities(punctuator.names, len(words), len(MARK_CONTEXTS))
    for head in HEADS:
        for i in range(len(words)):
            assert np.array_equal(probabilities[head.name][i], none[head.name][i]) == (i % 5 == 2), (head.name, i)
