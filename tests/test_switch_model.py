"""The shipped switching model (models/switch_en, the real pretrained encoder): each task alone and both at
once on invented conversational lines, and predict.py picking it for --tasks disf without --model_path."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.shipped import SWITCHING_MODEL
from gector_punct.text.tasks import parse_tasks

LINES = ["so uh we went to the store yesterday and um it was closed did you go there",
         "um i was like you know really tired after the the game"]


@pytest.fixture(scope="module")
def switching():
    return Punctuator.load(SWITCHING_MODEL, device="cpu")


def test_shipped_switching_model_is_small():
    """Low-rank deltas over the pip encoder: under 10 MiB in git (the full fine-tuned encoder is 41 MiB)."""
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(SWITCHING_MODEL) for f in files)
    assert total < 10 * 2**20


def test_joint_deletes_fillers_and_punctuates(switching):
    switching.tasks = parse_tasks("disf,punc")
    out = switching.predict(LINES)
    bare = [" ".join(w.strip(",.?").lower() for w in line.split()) for line in out]
    assert bare[1] == "i was really tired after the game", out[1]  # um, like, you know, the repeated "the"
    assert " uh " not in f" {bare[0]} " and " um " not in f" {bare[0]} ", out[0]
    assert out[0].endswith("there?") and " Did you " in out[0], out[0]  # punctuated and cased as it goes


def test_each_task_alone(switching):
    switching.tasks = parse_tasks("disf")
    deleted = switching.predict(LINES)
    assert all(line == line.lower() and not any(ch in line for ch in ",.?") for line in deleted)
    assert all(len(d.split()) < len(s.split()) for d, s in zip(deleted, LINES))
    switching.tasks = parse_tasks("punc")
    punctuated = switching.predict(LINES)
    assert all(len(p.split()) == len(s.split()) for p, s in zip(punctuated, LINES))
    switching.tasks = parse_tasks("none")
    assert switching.predict(LINES) == LINES
    assert Punctuator.load(SWITCHING_MODEL, tasks="disf,punc").tasks == {"disf", "punc"}  # a string works too


def test_predict_uses_the_switching_model_for_disf(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text(LINES[0] + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--tasks", "disf,punc", "--input_file",
                           str(source), "--output_file", "-"], capture_output=True, text=True,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert done.returncode == 0, done.stderr
    assert " uh " not in f" {done.stdout.lower()} " and done.stdout.strip()[-1] in ".?!"
