"""utils/build/average_models.py: the averaged folder holds the mean of every floating weight, and models that
cannot be averaged (another label set, other switches) are refused with the folder named."""
import os
import subprocess
import sys

import torch
from conftest import ROOT, tiny_tagger

from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import Vocabulary

LABELS = ["$KEEP", "$APPEND_,", "$APPEND_."]


def _vocab(labels=LABELS) -> Vocabulary:
    return Vocabulary({"labels": labels, "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                       "d_tags": ["CORRECT", "INCORRECT"]})


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(ROOT, "utils", "build", "average_models.py"), *args],
                          capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))


def test_the_average_holds_the_mean_of_every_weight(tmp_path):
    torch.manual_seed(0)
    folders = []
    for i in range(3):
        folder = str(tmp_path / f"m{i}")
        tiny_tagger(_vocab()).save(folder, store_dtype="float32")
        folders.append(folder)
    out = str(tmp_path / "soup")
    result = _run("--models", ",".join(folders), "--output", out)
    assert result.returncode == 0, result.stderr
    states = [Seq2Labels.load(f).state_dict() for f in folders]
    soup = Seq2Labels.load(out).state_dict()
    for key, value in soup.items():
        if value.is_floating_point():
            torch.testing.assert_close(value, sum(s[key] for s in states) / 3, msg=key)
    key = next(k for k in soup if k.startswith("encoder.") and k.endswith("weight"))
    assert not torch.equal(soup[key], states[0][key])  # the first model's weights were replaced


def test_models_that_differ_are_refused_by_name(tmp_path):
    base, other_labels, other_switches = (str(tmp_path / n) for n in ("base", "labels", "switches"))
    tiny_tagger(_vocab()).save(base, store_dtype="float32")
    tiny_tagger(_vocab(LABELS + ["$APPEND_?"])).save(other_labels, store_dtype="float32")
    tiny_tagger(_vocab(), switches=("disf", "punc")).save(other_switches, store_dtype="float32")
    for folder, what in ((other_labels, "label vocabulary"), (other_switches, "switches")):
        result = _run("--models", f"{base},{folder}", "--output", str(tmp_path / "soup"))
        assert result.returncode == 2
        assert folder in result.stderr and what in result.stderr
    assert not os.path.exists(tmp_path / "soup")
