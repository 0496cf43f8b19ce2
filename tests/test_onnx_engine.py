"""The onnx engine: a model folder's graph is exported once into the cache (keyed by what it is built from,
built atomically, two processes at once both succeed, one line on stderr), gives the torch engine's
probabilities and lines, runs int8 where the folder says so, and predicts without importing torch."""
import json
import multiprocessing
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from conftest import ROOT, TINY_ENCODER, tiny_tagger
from test_light import tiny_mpnet, tiny_mpnet_tagger  # noqa: F401 (fixtures: a partial folder over a tiny MPNet)
from gector_punct.encoders import cache as encoder_cache
from gector_punct.engines import onnx_export
from gector_punct.engines.base import GRAPH_FILE, META_FILE
from gector_punct.engines.onnx_runtime import OnnxTagger
from gector_punct.model.config import ModelFolderError, store_decode_defaults, store_engine_precision
from gector_punct.model.config import DecodeConfig
from gector_punct.model.vocabulary import Vocabulary
from gector_punct.prediction.punctuator import Punctuator

LINES = ["so i went to new york last tuesday did you", "", "alpha beta gamma delta " * 40, "ok",
         "it costs 3.5 dollars e.g. at www.example.com and then uh we left", "首先我要用最快的速度 ok"]
LABELS = {"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?", '$PREPEND_"', '$APPEND_"'],
          "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL", "$TRANSFORM_CASE_UPPER", "$TRANSFORM_CASE_LOWER"],
          "d_tags": ["CORRECT", "INCORRECT"]}
VARIANTS = {"plain": {}, "case_context": {"case_context": True}, "switches": {"switches": ("disf", "punc")}}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Tiny random taggers saved as model folders: plain, with case context, with switching tokens."""
    root, out = tmp_path_factory.mktemp("onnx_models"), {}
    for k, (name, settings) in enumerate(VARIANTS.items()):
        labels = dict(LABELS, labels=LABELS["labels"] + (["$DELETE"] if "switches" in settings else []))
        torch.manual_seed(k)
        tiny_tagger(Vocabulary(labels), max_len=32, **settings).save(str(root / name))
        out[name] = str(root / name)
    return out


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_onnx_gives_the_torch_engines_probabilities_and_lines(folders, cache, variant):
    tasks = "disf,punc" if variant == "switches" else "punc"
    onnx = Punctuator.load(folders[variant], engine="onnx", batch_size=3, tasks=tasks)
    reference = Punctuator.load(folders[variant], engine="torch", device="cpu", batch_size=3, tasks=tasks)
    assert onnx.engine == "onnx" and reference.engine == "torch" and onnx.device.type == "cpu"
    words = [line.split() for line in LINES if line]
    assert len(onnx.encode(words)[0]) > 8  # several windows, batches of several shapes
    a, b = onnx.probabilities(words), reference.probabilities(words)
    for head in a:
        assert a[head].dtype == np.float32 and np.allclose(a[head], b[head], rtol=0, atol=1e-5), head
    assert onnx.predict(LINES) == reference.predict(LINES)


def test_a_partial_mpnet_folder_runs_as_on_torch_and_is_keyed_by_its_base(tiny_mpnet_tagger, cache, monkeypatch):
    """MPNet's relative position bias over windows of every length; the graph's key holds the installed base
    encoder's fingerprint, and a base that is not the one the folder was written over is refused."""
    onnx = Punctuator.load(tiny_mpnet_tagger, batch_size=2)
    reference = Punctuator.load(tiny_mpnet_tagger, engine="torch", device="cpu", batch_size=2)
    words = [line.split() for line in LINES if line]
    a, b = onnx.probabilities(words), reference.probabilities(words)
    assert all(np.allclose(a[h], b[h], rtol=0, atol=1e-5) for h in a)
    assert onnx.predict(LINES) == reference.predict(LINES)
    assert onnx.models[0].meta["base_encoder"] == reference.models[0].base_fingerprint
    monkeypatch.setattr(encoder_cache, "known_fingerprint", lambda weights: "sha256:another")
    with pytest.raises(ModelFolderError, match="different"):
        Punctuator.load(tiny_mpnet_tagger)


def test_the_graph_is_built_once_keyed_by_weights_not_decoding(folders, cache, capsys, monkeypatch, tmp_path):
    Punctuator.load(folders["plain"])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "built the onnx float32 graph of" in line and " s (once)" in line
    (built,) = os.listdir(cache / "graphs")
    with open(cache / "graphs" / built / META_FILE, encoding="utf-8") as f:
        assert json.load(f)["precision"] == "float32"
    monkeypatch.setattr(onnx_export, "build_graph", lambda *a: pytest.fail("built the graph again"))
    store_decode_defaults(folders["plain"], DecodeConfig(additional_confidence=0.4))  # decoding: the same graph
    Punctuator.load(folders["plain"])
    assert capsys.readouterr().err == "" and os.listdir(cache / "graphs") == [built]
    monkeypatch.undo()
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(cache))
    # Retrained into the same folder with the same settings: other weights, so another graph (a key
    # without the weights' hash ran the old one).
    import shutil

    folder = tmp_path / "plain"
    shutil.copytree(folders["plain"], folder)
    words = [["so", "i", "went", "to", "new", "york"]]
    before = Punctuator.load(str(folder)).probabilities(words)
    torch.manual_seed(7)
    shutil.rmtree(folder)
    tiny_tagger(Vocabulary(LABELS), max_len=32).save(str(folder))
    after = Punctuator.load(str(folder)).probabilities(words)
    assert len(os.listdir(cache / "graphs")) == 2  # the copy ran the graph of the folder it copies
    assert any(not np.allclose(before[head], after[head]) for head in before)


def _slow_build(cache_dir: str, name: str, queue) -> None:
    os.environ["GECTOR_PUNCT_CACHE"] = cache_dir

    def build(tmp):
        with open(os.path.join(tmp, "graph.json"), "w") as f:
            f.write(str(os.getpid()))
        time.sleep(0.5)  # both builds are under way before either renames

    queue.put(encoder_cache.built_folder(name, build, "a test folder", kind="graphs", marker="graph.json"))


def test_two_processes_building_one_folder_at_once_both_succeed(tmp_path):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_slow_build, args=(str(tmp_path), "g", queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert queue.get(timeout=5) == queue.get(timeout=5) == str(tmp_path / "graphs" / "g")
    assert os.listdir(tmp_path / "graphs") == ["g"]  # the loser's temporary folder is gone
    with open(tmp_path / "graphs" / "g" / "graph.json") as f:
        assert int(f.read()) in {worker.pid for worker in workers}


def test_int8_is_the_folders_choice(folders, cache, tmp_path):
    import logging

    root = logging.getLogger()
    before = (root.level, list(root.handlers))
    import shutil

    import onnx

    folder = str(tmp_path / "int8")
    shutil.copytree(folders["case_context"], folder)
    store_engine_precision(folder, "int8")
    int8 = Punctuator.load(folder)
    assert int8.models[0].meta["precision"] == "int8"
    # Building it left logging as it was (a service started with a cold cache logged nothing after it).
    assert (root.level, list(root.handlers)) == before
    graph = onnx.load(os.path.join(int8.models[0].graph, GRAPH_FILE))
    kinds = {node.op_type for node in graph.graph.node}
    assert "MatMulInteger" in kinds or "DynamicQuantizeMatMul" in kinds
    floats = Punctuator.load(folder, precision="float32")
    float_graph = onnx.load(os.path.join(floats.models[0].graph, GRAPH_FILE)).graph
    shapes = {init.name: list(init.dims) for init in float_graph.initializer}
    hidden, wide, layers = (TINY_ENCODER[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers"))
    for precision, count in (("int8", 5), ("int8-attention", 4)):  # q k v o (and the feed-forward's narrowing)
        products = onnx_export.int8_products(float_graph, precision)
        weights = [shapes[node.input[1]] for node in float_graph.node if node.name in products]
        assert len(weights) == count * layers and [hidden, wide] not in weights, precision
    assert all(w == [hidden, hidden] for w in weights)
    words = [line.split() for line in LINES if line]
    a, b = int8.probabilities(words), floats.probabilities(words)
    assert all(np.abs(a[h] - b[h]).max() < 0.2 for h in a)  # close, not equal
    assert any(not np.array_equal(a[h], b[h]) for h in a)
    with pytest.raises(ValueError, match="precision"):
        Punctuator.load(folder, precision="int8-nope")


def test_an_int8_windows_output_does_not_depend_on_its_batch(folders, cache, tmp_path):
    """Dynamic int8 scales by the largest value of a whole batch: each window runs alone, so a line's
    probabilities are the same whatever lines share its batch."""
    import shutil

    folder = str(tmp_path / "int8")
    shutil.copytree(folders["plain"], folder)
    store_engine_precision(folder, "int8")
    together = Punctuator.load(folder, batch_size=4)
    words = [line.split() for line in LINES if line]
    batched, start = together.probabilities(words), 0
    for line in words:
        alone = together.probabilities([line])
        assert all(np.array_equal(alone[h], batched[h][start: start + len(line)]) for h in alone)
        start += len(line)


def test_the_onnx_engine_runs_on_the_cpu_only(folders, cache):
    with pytest.raises(ValueError, match="--engine torch"):
        Punctuator.load(folders["plain"], device="cuda")
    with pytest.raises(ValueError, match="engine"):
        Punctuator.load(folders["plain"], engine="tensorflow")


def test_an_incomplete_folder_is_named(folders, cache, tmp_path):
    import shutil

    folder = tmp_path / "broken"
    shutil.copytree(folders["plain"], folder)
    os.remove(folder / "model.safetensors")
    with pytest.raises(ModelFolderError, match="model.safetensors: missing"):
        OnnxTagger.load(str(folder))


PROBE = """
import runpy, sys
sys.argv = ["predict.py", "--model_path", MODEL, "--input_file", INPUT, "--output_file", OUTPUT]
try:
    runpy.run_path(PREDICT, run_name="__main__")
except SystemExit as stop:
    assert not stop.code, stop.code
from gector_punct.prediction.folders import ChunkRestorer, LineFormat
from gector_punct.prediction.settings import PredictionSettings
settings = PredictionSettings(model_path=[MODEL], engine="onnx", batch_size=8, device="cpu")
restored = ChunkRestorer(settings, LineFormat(), threads=1)({"name": ["a"], "chunk": [0], "chunks": [1],
                                                           "items": [["so i went there"]], "endings": [["\\n"]], "words": [4],
                                                           "error": [""]})
assert len(restored["output"][0]) == 1
from gector_punct.prediction.loading import load_punctuator
from gector_punct.service.app import Service
import gector_punct.service.workers
sys.path.insert(0, ROOT)
import serve
settings = serve.parse_settings(["--model_path", MODEL])
Service(settings, load_punctuator(settings.prediction(), threads=settings.worker_threads or None))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers")))
"""


def test_prediction_imports_no_torch_once_the_graph_is_cached(folders, cache, tmp_path):
    """predict.py, a Ray actor's restorer and the service, on the onnx engine, load neither torch nor
    transformers (the graph built beforehand, here in this process)."""
    Punctuator.load(folders["plain"])
    source, output = tmp_path / "in.txt", tmp_path / "out.txt"
    source.write_text("so i went to new york\n\nok\n", encoding="utf-8")
    values = {"MODEL": folders["plain"], "INPUT": str(source), "OUTPUT": str(output),
              "PREDICT": os.path.join(ROOT, "predict.py"), "ROOT": ROOT}
    probe = "".join(f"{k} = {v!r}\n" for k, v in values.items()) + PROBE
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                         env=dict(os.environ, PYTHONPATH=ROOT, GECTOR_PUNCT_CACHE=str(cache)))
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout[-3000:]
    assert len(output.read_text(encoding="utf-8").splitlines()) == 3


def test_the_threads_setting_reaches_the_engine(folders, cache):
    """``--threads`` (PredictionSettings.threads, one home) is the engine's intra-op threads."""
    from gector_punct.prediction.loading import load_punctuator
    from gector_punct.prediction.settings import PredictionSettings

    for threads in (1, 2):
        punctuator = load_punctuator(PredictionSettings(model_path=folders["plain"], threads=threads))
        assert punctuator.models[0].session.get_session_options().intra_op_num_threads == threads
