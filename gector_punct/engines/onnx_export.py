"""A model folder -> its ONNX graph (encoder and heads), built with torch on the ONNX engine's first use.

``build_graph(directory, precision, out, key)`` writes into the folder ``out``: ``base.GRAPH_FILE``, the
tagger's forward pass from a batch of windows to each head's probabilities (a multilingual vocabulary's
embedding table beside it, ``TABLES_FILE``, read by ONNX Runtime as the graph's external data), and then
``base.META_FILE``
(what the graph takes and gives, how its windows are tokenised, ``source``: the folder it was built from,
``key``: what it was built from; ``precision``: what the graph runs, ``asked_precision``: what was asked,
``int8_check``: ``check_int8``'s figures).

The graph's inputs are ``windows.collate_arrays``' ``input_ids``, ``attention_mask`` and ``word_starts``
(int64; batch, subwords and words of any size) and, for a model with switching tokens, ``switches``; its
outputs, one per head of ``vocabulary.HEADS`` under the head's name, are ``Seq2Labels.forward``'s
probabilities (windows x words x labels; a ``case_context`` model's case head: windows x words x mark
contexts x labels), float32. The encoder is the plain-torch one where it runs the model (BERT, MPNet:
``encoders.plain_torch``), else transformers'. The int8 precisions quantize some of the encoder's products by
a weight matrix dynamically (``int8.INT8_QUANTIZER``: 7-bit int8 weights per output channel, activations
quantized per batch; ``int8_products``): ``int8`` all but each layer's widening feed-forward product
(hidden -> intermediate), ``int8-attention`` only the attention's four (hidden -> hidden); the rest and the heads stay float32. int8 in
the widening product costs the shipped models' dev F1 more than the rest together, and some models lose
F1 even without it (``utils/report/choose_precision.py`` measures a model and picks its precision). An int8
graph is kept only when ``check_int8`` passes on the CPU that builds it; else the folder holds the float32
graph (``precision`` float32 in its META_FILE, ``int8_check.why`` saying why, which the engine prints).

``installed_base_fingerprint(config)``: the installed base encoder's fingerprint, computed (and remembered).
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import time
import warnings

import numpy as np
import torch
from torch import nn

from gector_punct.encoders.plain_torch import ENCODERS
from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.engines.base import GRAPH_FILE, META_FILE
from gector_punct.engines.int8 import (MIN_AGREEMENT, PAIR_LIMIT, check_lines, label_agreement, pair_bound,
                                       quantize_products)
from gector_punct.model.base_encoder import encoder_for, installed_fingerprint
from gector_punct.model.batch import Batch
from gector_punct.model.config import ModelConfig
from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import HEADS, PUNCT_HEAD
from gector_punct.model.windows import collate, collate_arrays
from gector_punct.text.files import atomic_write
from gector_punct.text.tags import Tag, mark_context

OPSET = 17
LARGE_TABLE = 65_536  # embedding rows from which a table is exported apart (``export``)
STAND_IN_ROWS = 4_099  # the rows of its stand-in while the graph is traced (a shape no other weight has)
TABLES_FILE = "tables.bin"  # the large tables, beside the graph (its external data)
ENCODER_SCOPE = "tagger/encoder/"  # the node names of the encoder's operations start with this


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
    meta = {**key, "inputs": list(inputs), "outputs": [head.name for head in HEADS],
            "case_contexts": model.mark_embedding is not None,
            "tokenizer": "light" if isinstance(model.tokenizer, LightTokenizer) else "transformers",
            "opset": OPSET, "torch": torch.__version__, "source": os.path.realpath(directory)}
    windows, contexts = check_windows(model) if precision != "float32" else (None, None)
    float_graph = os.path.join(out, GRAPH_FILE if precision == "float32" else "float32.onnx")
    export(model, inputs, float_graph)
    del model, inputs
    gc.collect()  # the torch weights go before the graph is quantized and checked (peak memory)
    runs, check = precision, None
    if precision != "float32":
        int8_graph = os.path.join(out, "int8.onnx")
        quantize_int8(float_graph, int8_graph, precision)
        check = check_int8(float_graph, int8_graph, windows, contexts)
        runs = precision if check["passed"] else "float32"
        os.replace(int8_graph if check["passed"] else float_graph, os.path.join(out, GRAPH_FILE))
        os.remove(float_graph if check["passed"] else int8_graph)
    meta |= {"precision": runs, "asked_precision": precision, "int8_check": check,
             "built_seconds": round(time.perf_counter() - started, 2)}
    with atomic_write(os.path.join(out, META_FILE)) as f:
        json.dump(meta, f, indent=2, sort_keys=True)


def check_windows(model: Seq2Labels) -> tuple[list[dict[str, np.ndarray]], np.ndarray | None]:
    """The check lines' windows as the graph takes them, one window each, and for a case-context model the
    context each punctuation label gives the next word (``int8.label_agreement``'s)."""
    windows = model.text_encoder().encode_lines(check_lines(), (1,) * len(model.config.switches))
    contexts = None
    if model.mark_embedding is not None:
        labels = model.vocab.tokens(PUNCT_HEAD.namespace)
        contexts = np.array([mark_context(Tag.parse(label).apply("w")) for label in labels])
    return [collate_arrays([w], model.pad_id) for w in windows], contexts


def check_int8(float_graph: str, int8_graph: str, windows: list[dict[str, np.ndarray]],
               contexts: np.ndarray | None) -> dict:
    """Whether the int8 graph may run instead of the float32 one: its products cannot saturate on any x86-64
    CPU (``int8.pair_bound``) and, on this CPU, it labels the check lines' words (``check_windows``) as
    float32 does (``int8.MIN_AGREEMENT``). Returns the figures, ``passed`` and, when it failed, ``why``."""
    bound = pair_bound(int8_graph)
    agree, words = label_agreement(float_graph, int8_graph, windows, contexts)
    check = {"pair_bound": bound, "pair_limit": PAIR_LIMIT, "words": words, "agreeing_words": agree,
             "min_agreement": MIN_AGREEMENT, "passed": bound <= PAIR_LIMIT and agree >= MIN_AGREEMENT * words}
    if bound > PAIR_LIMIT:
        check["why"] = f"its int8 products can pass 16 bits ({bound} > {PAIR_LIMIT})"
    elif not check["passed"]:
        check["why"] = (f"its int8 graph labels {words - agree} of {words} check words otherwise than float32 "
                        f"on this CPU")
    return check


def export(model: Seq2Labels, inputs: dict[str, torch.Tensor], path: str) -> None:
    """The float32 graph at ``path``; a large embedding table (``LARGE_TABLE`` rows or more: a multilingual
    vocabulary) is traced as a small stand-in and written beside the graph (``TABLES_FILE``, the graph's
    external data), which keeps the exporter's copies of the weights small."""
    graph = TaggerGraph(model).eval()
    axes = {"input_ids": {0: "windows", 1: "subwords"}, "attention_mask": {0: "windows", 1: "subwords"},
            "word_starts": {0: "windows", 1: "words"}, "switches": {0: "windows"}}
    axes = {name: axes[name] for name in inputs} | {head.name: {0: "windows", 1: "words"} for head in HEADS}
    with stand_in_tables(model) as tables, warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the exporter's notes on tracing: not the user's concern
        traced = dict(inputs, input_ids=inputs["input_ids"] % STAND_IN_ROWS) if tables else inputs
        torch.onnx.export(graph, tuple(traced.values()), path, input_names=list(inputs),
                          output_names=[head.name for head in HEADS],
                          dynamic_axes=axes,
                          opset_version=OPSET, dynamo=False)
    if tables:
        external_tables(path, tables)


@contextlib.contextmanager
def stand_in_tables(model: Seq2Labels):
    """Every embedding table of ``LARGE_TABLE`` rows or more replaced by its first ``STAND_IN_ROWS`` rows
    while the context lasts; yields the real tables (the input ids of a trace must stay below the stand-in's
    rows)."""
    large = [m for m in model.modules() if isinstance(m, nn.Embedding) and m.num_embeddings >= LARGE_TABLE]
    real = [m.weight for m in large]
    for module, weight in zip(large, real):
        module.weight = nn.Parameter(weight.detach()[:STAND_IN_ROWS].clone(), requires_grad=False)
    try:
        yield [w.detach() for w in real]
    finally:
        for module, weight in zip(large, real):
            module.weight = weight


def external_tables(path: str, tables: list[torch.Tensor]) -> None:
    """The graph at ``path`` with each stand-in table (the one initializer of its shape) pointing at the real
    table, written into ``TABLES_FILE`` beside it (ONNX external data)."""
    import onnx

    graph_model = onnx.load(path)
    with open(os.path.join(os.path.dirname(path), TABLES_FILE), "wb") as f:
        for table in tables:
            shape = [STAND_IN_ROWS, table.shape[1]]
            (init,) = [i for i in graph_model.graph.initializer if list(i.dims) == shape]
            array = np.ascontiguousarray(table.numpy(), dtype=np.float32)
            offset = f.tell()
            f.write(memoryview(array).cast("B"))
            init.ClearField("raw_data")
            del init.dims[:], init.external_data[:]
            init.dims.extend(array.shape)
            init.data_location = onnx.TensorProto.EXTERNAL
            for k, v in (("location", TABLES_FILE), ("offset", str(offset)), ("length", str(array.nbytes))):
                init.external_data.add(key=k, value=v)
    onnx.save(graph_model, path)


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
    """``source`` with its ``int8_products`` in dynamic int8 (``int8.quantize_products``), the rest as it is
    (its external tables stay where they are: ``target`` is written beside ``source``)."""
    import onnx

    model = onnx.load(source, load_external_data=False)
    quantize_products(model, int8_products(model.graph, precision))
    onnx.save(model, target)


def installed_base_fingerprint(config: ModelConfig) -> str:
    """The fingerprint of the pretrained encoder a partial folder of ``config`` goes over, as installed."""
    kind = ENCODERS.get((config.encoder_config or {}).get("model_type"))
    light = kind is not None and kind.supports(config.encoder_config)
    return installed_fingerprint(config, encoder_for(config, pretrained=True, light=light))
