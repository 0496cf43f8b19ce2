"""ONNX back end for prediction: a text tagger's forward pass exported to ONNX and run with onnxruntime.

``export_onnx(model, path)`` writes the graph ``(input_ids, attention_mask, word_starts) -> (probs_labels,
probs_case, probs_d)`` with dynamic batch, subword and word axes. ``OnnxTagger(path)`` is called like
``Seq2Labels`` at prediction time: the same batch dict in (torch tensors), a dict of the three
probability tensors out. The model folder still provides the tokenizer, vocabulary and config; only the
forward pass moves to onnxruntime, so windowing, batching and decoding are the same code as with PyTorch.
Audio (UniPunc) models are not exported.
"""
from __future__ import annotations

import os
import warnings

import numpy as np
import torch
from torch import nn

from .model import Seq2Labels

INPUTS = ("input_ids", "attention_mask", "word_starts")
OUTPUTS = ("probs_labels", "probs_case", "probs_d")
FILENAME = "model.onnx"


def onnx_file(model_dir: str) -> str:
    """Where a model folder keeps its exported graph (a training folder's is under best/)."""
    if not os.path.exists(os.path.join(model_dir, "config.json")) and os.path.isdir(os.path.join(model_dir, "best")):
        model_dir = os.path.join(model_dir, "best")
    return os.path.join(model_dir, FILENAME)


class _Probabilities(nn.Module):
    def __init__(self, model: Seq2Labels):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, word_starts):
        out = self.model(input_ids, attention_mask, word_starts, None)
        return tuple(out[name] for name in OUTPUTS)


def export_onnx(model: Seq2Labels, path: str, example: dict[str, torch.Tensor]) -> None:
    """Trace ``model`` on the ``example`` batch (any real batch) and write the graph atomically."""
    if model.config.get("acoustic"):
        raise ValueError("audio models cannot be exported to ONNX")
    wrapper = _Probabilities(model.cpu()).eval()  # eval: dropout off in the traced graph
    axes = {"input_ids": {0: "batch", 1: "subwords"}, "attention_mask": {0: "batch", 1: "subwords"},
            "word_starts": {0: "batch", 1: "words"}}
    axes.update({name: {0: "batch", 1: "words"} for name in OUTPUTS})
    tmp = path + ".tmp"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on shape-dependent Python code in transformers
        torch.onnx.export(wrapper, tuple(example[k] for k in INPUTS), tmp, input_names=list(INPUTS),
                          output_names=list(OUTPUTS), dynamic_axes=axes, opset_version=17, dynamo=False)
    os.replace(tmp, path)


class OnnxTagger:
    def __init__(self, path: str, threads: int | None = None):
        import onnxruntime

        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no exported graph (run utils/export_onnx.py --model_path MODEL)")
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads or torch.get_num_threads()
        self.session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def __call__(self, **batch) -> dict[str, torch.Tensor]:
        feed = {name: np.ascontiguousarray(batch[name].cpu().numpy()) for name in INPUTS}
        return {name: torch.from_numpy(value) for name, value in zip(OUTPUTS, self.session.run(list(OUTPUTS), feed))}
