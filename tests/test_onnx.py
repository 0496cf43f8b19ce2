"""The ONNX back end: an exported tagger run by onnxruntime predicts what PyTorch predicts."""
import os
import subprocess
import sys

import pytest
import torch

from conftest import ROOT
from gector_punct.encoding import TextEncoder, WindowedBatcher
from gector_punct.model import Seq2Labels
from gector_punct.onnx_backend import export_onnx, onnx_file
from gector_punct.predictor import Punctuator

pytest.importorskip("onnxruntime")


def test_onnx_predictions_equal_pytorch(trained_tiny, learnable_data, tmp_path):
    model = Seq2Labels.load(trained_tiny["dir"])
    model.save(str(tmp_path / "m"))
    encoder = TextEncoder(model.tokenizer, 64, 5)
    example = next(iter(WindowedBatcher(encoder.encode_lines([["alpha", "beta"], ["omega"] * 7]), 4, pad_id=0)))[1]
    export_onnx(model, onnx_file(str(tmp_path / "m")), example)
    # Other batch sizes, lengths and a long windowed line than the traced example: the axes are dynamic.
    lines = [s for s, _ in learnable_data["dev_pairs"]] + ["alpha time omega paris " * 60, "", "x"]
    plain = Punctuator.load(str(tmp_path / "m"), device="cpu", batch_size=8, max_len=64)
    onnx = Punctuator.load(str(tmp_path / "m"), device="cpu", batch_size=8, max_len=64, onnx=True)
    assert onnx.predict(lines) == plain.predict(lines)
    words = [line.split() for line in lines]
    for a, b in zip(plain.probabilities(words), onnx.probabilities(words)):
        assert torch.allclose(a, b, atol=1e-4)


def test_predict_onnx_without_export_is_a_clear_error(trained_tiny, tmp_path):
    model = Seq2Labels.load(trained_tiny["dir"])
    model.save(str(tmp_path / "m"))
    (tmp_path / "in.txt").write_text("alpha beta\n")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(tmp_path / "in.txt"),
                           "--output_file", str(tmp_path / "out.txt"), "--model_path", str(tmp_path / "m"), "--onnx"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "utils/export_onnx.py" in done.stderr
    assert not (tmp_path / "out.txt").exists()
