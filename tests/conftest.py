"""Shared fixtures: an offline hub, a tiny randomly initialised BERT on the real MiniLM tokenizer, and a
small learnable punctuation task."""
import os
import random
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# The scripts of utils/ and of its folders by purpose, importable by their names (tests read their functions).
for _folder in ("utils", "utils/data", "utils/build", "utils/bench", "utils/report"):
    sys.path.insert(1, os.path.join(ROOT, _folder))
# Scripts run as children (python utils/x.py) import the packages of this checkout, not whichever is installed.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from hypothesis import settings  # noqa: E402

from gector_punct.encoders.registry import DEFAULT_ENCODER, resolve_encoder  # noqa: E402

SHARED = os.path.join(os.path.dirname(ROOT), "shared")
TINY_ENCODER = {"model_type": "bert", "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 2,
                "intermediate_size": 96, "vocab_size": 30522, "max_position_embeddings": 512}

torch.set_num_threads(2)

# Hypothesis: "dev" (Hypothesis's defaults: new examples every run, failures replayed from .hypothesis/) and
# "ci", loaded when CI is set: the same examples every run (derandomized, no example database, no deadline
# for a loaded machine), so a CI result depends on the code alone. A test's own @settings override the rest.
settings.register_profile("dev")
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session", autouse=True)
def graphs_of_temporary_models_removed(tmp_path_factory):
    """The onnx engine caches a graph per model folder (``engines.graphs``); those of the session's
    temporary models go with the session, those of the shipped models stay for the next one."""
    yield
    import json
    import shutil

    from gector_punct.text.files import cache_root
    from gector_punct.engines.base import META_FILE

    temporary, graphs = os.path.realpath(str(tmp_path_factory.getbasetemp())), os.path.join(cache_root(), "graphs")
    for name in os.listdir(graphs) if os.path.isdir(graphs) else []:
        try:
            with open(os.path.join(graphs, name, META_FILE), encoding="utf-8") as f:
                source = json.load(f).get("source", "")
        except (OSError, ValueError):
            continue
        if source.startswith(temporary + os.sep):
            shutil.rmtree(os.path.join(graphs, name), ignore_errors=True)


@pytest.fixture(scope="session")
def encoder_name() -> str:
    return resolve_encoder(DEFAULT_ENCODER)


def tiny_tagger(vocab, **settings):
    """A new tagger on a tiny randomly initialised BERT (the real MiniLM tokenizer); ``settings``: ModelConfig's."""
    from gector_punct.model.tagger import ModelConfig, Seq2Labels

    settings.setdefault("encoder_config", TINY_ENCODER)
    return Seq2Labels.create(vocab, ModelConfig(transformer_model=resolve_encoder(DEFAULT_ENCODER), **settings))


WORDS = ("alpha beta gamma delta omega paris london time people house water table green small quick "
         "music river chair window garden coffee letter morning yellow winter").split()


def learnable_pairs(n_lines: int, seed: int, repeats: bool = True) -> list[tuple[str, str]]:
    """(source, target) lines with a rule a model can learn from the words alone: a comma after 'alpha',
    a period after 'omega' (and a capital after it), a question mark after 'time', 'paris'/'london'
    capitalised. ``repeats=False``: no word twice in a row (a disfluency wherever words may go:
    ``repeats.repeated_words``)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n_lines):
        words = []
        for _ in range(rng.randint(6, 18)):
            word = rng.choice(WORDS)
            while not repeats and words and word == words[-1]:
                word = rng.choice(WORDS)
            words.append(word)
        out, capital = [], True
        for w in words:
            t = w.capitalize() if capital or w in ("paris", "london") else w
            capital = False
            if w == "alpha":
                t += ","
            elif w in ("omega", "time"):
                t += "." if w == "omega" else "?"
                capital = True
            out.append(t)
        pairs.append((" ".join(words), " ".join(out)))
    return pairs


def score_text(targets: list[str], predicted: list[str]) -> dict:
    """Metrics of restored lines against their cased, punctuated targets (same words)."""
    from gector_punct.scoring.metrics import labels_from_words, score

    ref = [w for t in targets for w in labels_from_words(t.split(), True)]
    pred = [w for p in predicted for w in labels_from_words(p.split(), True)]
    return score(ref, pred)


def same_probabilities(heavy, light, lines: list[str], atol: float = 0.0) -> None:
    """Two Punctuators read ``lines`` as the same subwords and give the same probabilities per head: bitwise
    (``atol`` 0), or within ``atol``."""
    from gector_punct.text.units import split_units

    words = [split_units(line) for line in lines]
    assert [w.input_ids for w in heavy.encoders[0].encode_lines(words)] == \
        [w.input_ids for w in light.encoders[0].encode_lines(words)]
    a, b = heavy.probabilities(words), light.probabilities(words)
    assert a.keys() == b.keys()
    for head in a:
        assert np.array_equal(a[head], b[head]) if atol == 0 else np.allclose(a[head], b[head], rtol=0, atol=atol), head


def write_pairs(directory, name: str, pairs) -> tuple[str, str]:
    src, tgt = os.path.join(directory, f"{name}.src"), os.path.join(directory, f"{name}.tgt")
    with open(src, "w", encoding="utf-8") as f:
        f.writelines(s + "\n" for s, _ in pairs)
    with open(tgt, "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for _, t in pairs)
    return src, tgt


@pytest.fixture(scope="session")
def learnable_data(tmp_path_factory):
    """Preprocessed train/dev files of the learnable task."""
    directory = tmp_path_factory.mktemp("learnable")
    paths = {name: write_tagged(directory, name, learnable_pairs(n, seed)) for name, n, seed in (("train", 300, 1), ("dev", 60, 2))}
    paths["dev_pairs"] = learnable_pairs(60, 2)
    return paths


def write_tagged(directory, name: str, pairs, tasks: str | None = None) -> str:
    """(source, target) pairs -> DIRECTORY/NAME.tagged, preprocessed as utils/preprocess_data.py does (with
    ``tasks``, as ``--tasks`` does: NAME.tagged.tasks beside it)."""
    from gector_punct.dataset.preprocess import preprocess_files
    from gector_punct.text.tasks import parse_tasks

    lines, _ = preprocess_files(*write_pairs(directory, name, pairs), **({"tasks": parse_tasks(tasks)} if tasks else {}))
    path = os.path.join(directory, f"{name}.tagged")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)
    if tasks:
        with open(path + ".tasks", "w", encoding="utf-8") as f:
            f.write(tasks + "\n")
    return path


FILLERS = ("uh", "um", "er")


def disfluent(words: list[str], rng: random.Random) -> tuple[list[str], list[bool]]:
    """Fillers inserted before words; per word whether it was inserted."""
    out, inserted = [], []
    for w in words:
        extra = [rng.choice(FILLERS)] if rng.random() < 0.2 else []
        out += extra + [w]
        inserted += [True] * len(extra) + [False]
    return out, inserted


@pytest.fixture(scope="session")
def switching_data(tmp_path_factory):
    """The three single-task sets of the learnable task, and a joint dev set (disfluent -> restored)."""
    directory = tmp_path_factory.mktemp("switching")
    rng = random.Random(5)
    fluent = learnable_pairs(600, 11, repeats=False)
    disf_pairs = []
    for source, _ in fluent[:250]:
        words, _ = disfluent(source.split(), rng)
        disf_pairs.append((" ".join(words), source))
    joint, disf_dev = [], []
    for source, target in learnable_pairs(60, 12, repeats=False):
        words, _ = disfluent(source.split(), rng)
        joint.append((" ".join(words), target))
    for source, _ in learnable_pairs(60, 13, repeats=False):
        words, _ = disfluent(source.split(), rng)
        disf_dev.append((" ".join(words), source))
    return {"disf": write_tagged(directory, "disf", disf_pairs, "disf"),
            "punc": write_tagged(directory, "punc", fluent[250:550], "punc"),
            "none": write_tagged(directory, "none", [(t, t) for _, t in fluent[550:]], "none"),
            "dev": write_tagged(directory, "dev", learnable_pairs(60, 2, repeats=False), "punc"),
            "disf_dev": write_tagged(directory, "disf_dev", disf_dev, "disf"),
            "joint": write_tagged(directory, "joint", joint, "disf,punc"), "joint_pairs": joint}


@pytest.fixture(scope="session")
def trained_tiny(learnable_data, encoder_name, tmp_path_factory):
    """A tiny random-init tagger trained on the learnable task (shared by several tests)."""
    from gector_punct.training.trainer import TrainOptions, train

    model_dir = str(tmp_path_factory.mktemp("tiny_model"))
    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=model_dir,
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, n_epoch=6, lr=3e-3,
                           batch_size=16, max_len=64, patience=6, progress=False, seed=3)
    best = train(options)
    return {"dir": model_dir, "best": best, "options": options}


@pytest.fixture(scope="session")
def random_editor():
    """A tiny untrained tagger whose random heads propose every kind of edit (quotes and case included)."""
    from gector_punct.prediction.punctuator import Punctuator
    from gector_punct.model.vocabulary import Vocabulary

    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?", '$PREPEND_"', '$APPEND_"'],
                        "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL", "$TRANSFORM_CASE_UPPER",
                                      "$TRANSFORM_CASE_LOWER", "$TRANSFORM_CASE_CHARS_0,2"],
                        "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(0)
    return Punctuator([tiny_tagger(vocab, max_len=48)], batch_size=8, device="cpu")
