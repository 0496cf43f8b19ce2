"""A model folder -> its ONNX graph (encoder and heads), built with torch on the ONNX engine's first use.

``build_graph(directory, precision, out, key)`` writes into the folder ``out``: ``base.GRAPH_FILE``, the
tagger's forward pass from a batch of windows to each head's probabilities, and then ``base.META_FILE``
(what the graph takes and gives, how its windows are tokenised, ``source``: the folder it was built from,
``key``: what it was built from).

The graph's inputs are ``windows.collate_arrays``' ``input_ids``, ``attention_mask`` and ``word_starts``
(int64; batch, subwords and words of any size) and, for a model with switching tokens, ``switches``; its
outputs, one per head of ``vocabulary.HEADS`` under the head's name, are ``Seq2Labels.forward``'s
probabilities (windows x words x labels; a ``case_context`` model's case head: windows x words x mark
contexts x labels), float32. The encoder is the plain-torch one where it runs the model (BERT, MPNet:
``encoders.plain_torch``), else transformers'. The int8 precisions quantize some of the encoder's products by
a weight matrix dynamically (``INT8``: int8 weights per output channel, activations quantized per batch;
``int8_products``): ``int8`` all but each layer's widening feed-forward product (hidden -> intermediate),
``int8-attention`` only the attention's four (hidden -> hidden); the rest and the heads stay float32. int8 in
the widening product costs the shipped models' dev F1 more than the rest together, and some models lose
F1 even without it (``utils/report/choose_precision.py`` measures a model and picks its precision).

``installed_base_fingerprint(config)``: the installed base encoder's fingerprint, computed (and remembered).
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import warnings

import torch
from torch import nn

from gector_punct.encoders.plain_torch import ENCODERS
from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.engines.base import GRAPH_FILE, META_FILE
from gector_punct.model.base_encoder import encoder_for, installed_fingerprint
from gector_punct.model.batch import Batch
from gector_punct.model.config import ModelConfig
from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import HEADS
from gector_punct.model.windows import collate
from gector_punct.text.files import atomic_write

OPSET = 17
ENCODER_SCOPE = "tagger/encoder/"  # the node names of the encoder's operations start with this
# Dynamic int8 of the encoder's matrix products (onnxruntime.quantization.quantize_dynamic's settings).
INT8 = {"per_channel": True, "reduce_range": False, "op_types_to_quantize": ["MatMul"]}


class TaggerGraph(nn.Module):
    """``Seq2Labels.forward`` on the graph's inputs, the heads' probabilities out (in ``HEADS`` order)."""

    def __init__(self, tagger: Seq2Labels):
        super().__init__()
        self.tagger = tagger

    def forward(self, input_ids, attention_mask, word_starts, switches=None):
        batch = Batch(input_ids=input_ids, attention_mask=attention_mask, word_starts=word_starts, word_mask=None,
                      switches=switches)
        out = self.tagger(batch)
        return tuple(out[head.probs_key] for head in HEADS)


def example_inputs(model: Seq2Labels) -> dict[str, torch.Tensor]:
    """A batch of two windows of different lengths, as prediction makes them (the shapes the export traces;
    the graph takes any)."""
    lines = [["so", "i", "went", "to", "new", "york"], ["did", "you"]]
    switches = (1,) * len(model.config.switches)
    batch = collate(model.text_encoder().encode_lines(lines, switches), model.pad_id)
    names = ["input_ids", "attention_mask", "word_starts"] + (["switches"] if switches else [])
    return {name: batch[name] for name in names}


def build_graph(directory: str, precision: str, out: str, key: dict) -> None:
    started = time.perf_counter()
    model = Seq2Labels.load(directory, light=True)
    if model.acoustic is not None:
        raise ValueError(f"{directory} has an acoustic part, which the onnx engine does not run (use the torch engine)")
    inputs = example_inputs(model)
    float_graph = os.path.join(out, GRAPH_FILE if precision == "float32" else "float32.onnx")
    export(model, inputs, float_graph)
    if precision != "float32":
        quantize_int8(float_graph, os.path.join(out, GRAPH_FILE), precision)
        os.remove(float_graph)
    meta = {"inputs": list(inputs), "outputs": [head.name for head in HEADS], "precision": precision,
            "case_contexts": model.mark_embedding is not None,
            "tokenizer": "light" if isinstance(model.tokenizer, LightTokenizer) else "transformers",
            "opset": OPSET, "torch": torch.__version__, "built_seconds": round(time.perf_counter() - started, 2),
            "source": os.path.realpath(directory), **key}
    with atomic_write(os.path.join(out, META_FILE)) as f:
        json.dump(meta, f, indent=2, sort_keys=True)


def export(model: Seq2Labels, inputs: dict[str, torch.Tensor], path: str) -> None:
    graph = TaggerGraph(model).eval()
    axes = {"input_ids": {0: "windows", 1: "subwords"}, "attention_mask": {0: "windows", 1: "subwords"},
            "word_starts": {0: "windows", 1: "words"}, "switches": {0: "windows"}}
    axes = {name: axes[name] for name in inputs} | {head.name: {0: "windows", 1: "words"} for head in HEADS}
    with warnings.catch_warnings(), torch.no_grad():  # the exporter's notes on tracing: not the user's concern
        warnings.simplefilter("ignore")
        torch.onnx.export(graph, tuple(inputs.values()), path, input_names=list(inputs),
                          output_names=[head.name for head in HEADS],
                          dynamic_axes=axes,
                          opset_version=OPSET, dynamo=False)


def int8_products(graph, precision: str) -> list[str]:
    """The names of the matrix products ``quantize_int8`` quantizes in ``precision``: the encoder's products by a
    weight matrix (inputs x outputs) with no more outputs than inputs (``int8``: all but the feed-forward's
    widening one) or as many (``int8-attention``: the attention's query, key, value and output)."""
    shapes = {init.name: list(init.dims) for init in graph.initializer}
    keep = (lambda rows, cols: cols == rows) if precision == "int8-attention" else (lambda rows, cols: cols <= rows)
    return [node.name for node in graph.node
            if node.op_type == "MatMul" and node.name.lstrip("/").startswith(ENCODER_SCOPE)
            and len(shapes.get(node.input[1], [])) == 2 and keep(*shapes[node.input[1]])]


def quantize_int8(source: str, target: str, precision: str) -> None:
    """``source`` with its ``int8_products`` in dynamic int8 (``INT8``), the rest as it is."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    products = int8_products(onnx.load(source).graph, precision)
    with root_logger_silenced():
        quantize_dynamic(source, target, weight_type=QuantType.QInt8, nodes_to_quantize=products, **INT8)


@contextlib.contextmanager
def root_logger_silenced():
    """The quantizer's advice on pre-processing (``logging.warning``, the root logger) not shown, and the
    root logger as it was afterwards: its level, and its handlers (``logging.warning`` on a root logger
    without handlers would install one for the rest of the process)."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    root.addHandler(logging.NullHandler())
    root.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def installed_base_fingerprint(config: ModelConfig) -> str:
    """The fingerprint of the pretrained encoder a partial folder of ``config`` goes over, as installed."""
    kind = ENCODERS.get((config.encoder_config or {}).get("model_type"))
    light = kind is not None and kind.supports(config.encoder_config)
    return installed_fingerprint(config, encoder_for(config, pretrained=True, light=light))
