"""The onnx engine's int8: how it is quantized (``INT8_QUANTIZER``), whether a graph is right on the CPU that
built it, and why it cannot be wrong on any x86-64 CPU. No torch: numpy, onnx and ONNX Runtime.

Dynamic int8 (``quantize_products``) multiplies u8 activations (0..255, from ``DynamicQuantizeLinear``) by
s8 weights. On an x86-64 CPU without VNNI, ONNX Runtime's kernel adds each pair of neighbouring products in
16 bits with saturation (``vpmaddubsw``): with 8-bit weights a pair can pass 32,767, is clipped, and the
output goes wrong without a warning (a comma after every other word). With weights in 7 bits
(``WEIGHT_MAX``: |w| <= 64, zero point 0) a pair is at most 2 x 255 x 64 = 32,640: nothing can saturate, on
any CPU, and the integer products are exact on every CPU alike. A CPU with VNNI adds in 32 bits either way.

``quantize_products(model, products)``: the named MatMul nodes of an ONNX model (float activations by a
constant weight matrix) put in dynamic int8.
``pair_bound(path)`` -> the largest pair of products the graph's int8 products can form (``PAIR_LIMIT``:
what 16 bits hold), after checking that each reads u8 activations and symmetric s8 weights (else
``ValueError``). ``label_agreement(float32_path, int8_path, windows, next_context)`` -> (words whose labels
agree, words): a word agrees when every head's likeliest label is the same in both graphs (a case-context
head's in the context decoding would read); each window runs alone, as an int8 graph runs at prediction
(``OnnxTagger.max_batch``).
``check_lines()``: the fixed sample the check reads (``CHECK_LINES``: everyday lines in the shipped models'
languages, lower-case and unpunctuated as a recogniser writes them).
"""
from __future__ import annotations

import os

import numpy as np

from gector_punct.engines.base import new_session
from gector_punct.model.vocabulary import CASE_HEAD, HEADS, PUNCT_HEAD
from gector_punct.text.tags import START_CONTEXT

WEIGHT_MAX = 64  # |w| of a quantized weight: 7 bits (see above)
# What ``quantize_products`` writes (the graph cache's key holds it): dynamic int8 as ONNX Runtime's
# ``quantize_dynamic(per_channel=True, reduce_range=True)`` writes it, vectorised.
INT8_QUANTIZER = {"activations": "uint8, per tensor, computed per run (DynamicQuantizeLinear)",
                  "weights": f"int8, symmetric per output column, |w| <= {WEIGHT_MAX}", "products": "MatMul"}
MIN_AGREEMENT = 0.99  # of the check words: below it, a model's int8 graph is not used (float32 runs instead)
CHECK_LINES = os.path.join(os.path.dirname(__file__), "check_lines.txt")
PAIR_LIMIT = 32767  # a signed 16-bit sum
ACTIVATION_MAX = 255  # u8
INT8_PRODUCTS = ("MatMulInteger", "DynamicQuantizeMatMul")


def check_lines() -> list[list[str]]:
    with open(CHECK_LINES, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip()]


def quantize_products(model, products: list[str]) -> None:
    """Each MatMul of the ``onnx.ModelProto`` ``model`` named in ``products`` (input 0: float activations,
    input 1: a constant K x N matrix) becomes DynamicQuantizeLinear (one per activation tensor, shared by its
    products) -> MatMulInteger -> Cast -> Mul by the activations' scale times each column's, in place: ONNX
    Runtime fuses the four at load time. A weight matrix no other node reads is dropped."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    constants = {init.name: init for init in graph.initializer}
    wanted, quantized_inputs, quantized_weights, nodes, added = set(products), {}, set(), [], []
    for node in graph.node:
        if node.name not in wanted:
            nodes.append(node)
            continue
        a, w_name = node.input
        if a not in quantized_inputs:
            quantized_inputs[a] = [f"{a}_u8", f"{a}_u8_scale", f"{a}_u8_zero"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [a], quantized_inputs[a], name=f"{a}_quantize"))
        a_u8, a_scale, a_zero = quantized_inputs[a]
        names = [f"{w_name}_int8", f"{w_name}_int8_scale", f"{w_name}_int8_zero"]
        if names[0] not in quantized_weights:  # a matrix two products read is quantized once
            quantized_weights.add(names[0])
            w = numpy_helper.to_array(constants[w_name]).astype(np.float32)
            scale = (np.abs(w).max(axis=0) / WEIGHT_MAX).astype(np.float32)
            scale[scale == 0] = 1.0
            q = np.clip(np.rint(w / scale), -WEIGHT_MAX, WEIGHT_MAX).astype(np.int8)
            added += [numpy_helper.from_array(q, names[0]), numpy_helper.from_array(scale, names[1]),
                      numpy_helper.from_array(np.zeros(w.shape[1], dtype=np.int8), names[2])]
        out = node.output[0]
        nodes += [helper.make_node("MatMulInteger", [a_u8, names[0], a_zero, names[2]], [f"{out}_int32"],
                                   name=f"{node.name}_int8"),
                  helper.make_node("Cast", [f"{out}_int32"], [f"{out}_float"], to=TensorProto.FLOAT,
                                   name=f"{node.name}_cast"),
                  helper.make_node("Mul", [a_scale, names[1]], [f"{out}_scale"], name=f"{node.name}_scales"),
                  helper.make_node("Mul", [f"{out}_float", f"{out}_scale"], [out], name=f"{node.name}_rescale")]
    read = {name for node in nodes for name in node.input}
    kept = [init for init in graph.initializer if init.name in read] + added
    del graph.node[:], graph.initializer[:]
    graph.node.extend(nodes)
    graph.initializer.extend(kept)


def pair_bound(path: str) -> int:
    """2 x 255 x the largest |weight| of the graph's int8 products; ValueError for a product whose
    activations are not ``DynamicQuantizeLinear``'s u8 or whose weights are not symmetric s8 constants."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path, load_external_data=False).graph
    constants = {init.name: init for init in graph.initializer}
    producers = {out: node.op_type for node in graph.node for out in node.output}
    largest = 0
    for node in graph.node:
        if node.op_type not in INT8_PRODUCTS:
            continue
        activations, weights = node.input[0], node.input[1]
        if producers.get(activations) != "DynamicQuantizeLinear" or weights not in constants:
            raise ValueError(f"{node.name}: not u8 activations by an s8 constant")
        w = numpy_helper.to_array(constants[weights])
        zero = node.input[3] if len(node.input) > 3 else ""
        if w.dtype != np.int8 or (zero and np.any(numpy_helper.to_array(constants[zero]) != 0)):
            raise ValueError(f"{node.name}: weights are not symmetric int8")
        largest = max(largest, int(np.abs(w.astype(np.int32)).max()))
    return 2 * ACTIVATION_MAX * largest


def label_agreement(float32_path: str, int8_path: str, windows: list[dict[str, np.ndarray]],
                    next_context: np.ndarray | None = None) -> tuple[int, int]:
    """(words whose labels are the same in both graphs, words), over ``windows`` (each ``collate_arrays`` of
    one window). A word's labels: each head's likeliest, the case head's in the mark context that float32's
    punctuation label of the word before gives (``next_context``: punctuation label -> context; a window's
    first word: ``start``), as decoding reads it; None: a case head without contexts. Each int8 window runs
    alone, as at prediction (``OnnxTagger.max_batch``); one graph is loaded at a time."""
    reference = [likeliest(outputs) for outputs in graph_outputs(float32_path, windows)]
    agree = total = 0
    for x, y in zip(reference, (likeliest(outputs) for outputs in graph_outputs(int8_path, windows))):
        same = x[PUNCT_HEAD.name] == y[PUNCT_HEAD.name]
        for head in HEADS[1:]:
            a, b = x[head.name], y[head.name]
            if head is CASE_HEAD and next_context is not None:
                contexts = np.concatenate([[START_CONTEXT], next_context[x[PUNCT_HEAD.name][:-1]]])
                a, b = (z[np.arange(len(z)), contexts] for z in (a, b))
            same &= a == b
        agree, total = agree + int(same.sum()), total + same.size
    return agree, total


def graph_outputs(path: str, windows: list[dict[str, np.ndarray]]):
    """Per window, the graph's outputs by name (one window's rows), the session closed after the last."""
    session = new_session(path)
    names, outputs = [i.name for i in session.get_inputs()], [o.name for o in session.get_outputs()]
    for arrays in windows:
        yield dict(zip(outputs, (p[0] for p in session.run(outputs, {name: arrays[name] for name in names}))))


def likeliest(outputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: probabilities.argmax(-1) for name, probabilities in outputs.items()}
