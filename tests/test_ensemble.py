"""Ensemble folders (config.EnsembleConfig): an ensemble.json that names member model folders and holds the
ensemble's own decoding defaults, usable wherever a model folder is (Punctuator.load, predict.py)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import ROOT, tiny_tagger
from gector_punct.model.config import (DecodeConfig, EnsembleConfig, ModelFolderError, model_folders, read_config,
                                       read_ensemble, store_decode_defaults, store_engine_precision, write_ensemble)
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import KEEP
from gector_punct.model.vocabulary import HEADS, PUNCT_HEAD, Vocabulary


def make_ensemble(tmp_path, members, decode=DecodeConfig()):
    folder = tmp_path / "ens"
    write_ensemble(str(folder), EnsembleConfig(tuple(members), decode))
    return str(folder)


def test_ensemble_folder_is_its_members_with_its_own_decoding(trained_tiny, learnable_data, tmp_path):
    lines = [s for s, _ in learnable_data["dev_pairs"]]
    member = os.path.relpath(trained_tiny["dir"], tmp_path / "ens")
    folder = make_ensemble(tmp_path, [member, member])
    assert model_folders([folder]) == [os.path.normpath(trained_tiny["dir"])] * 2
    single = Punctuator.load(trained_tiny["dir"], device="cpu", fragments=True)
    ensemble = Punctuator.load(folder, device="cpu", fragments=True)
    assert len(ensemble.models) == 2 and ensemble.predict(lines) == single.predict(lines) != lines
    # Its decoding defaults are the ensemble file's, not the first member's; storing them leaves the member alone.
    member_config = read_config(os.path.join(trained_tiny["dir"], "best"))[0]
    store_decode_defaults(folder, DecodeConfig(min_error_probability=1.01))
    assert read_ensemble(folder).decode.min_error_probability == 1.01
    assert read_config(os.path.join(trained_tiny["dir"], "best"))[0] == member_config
    assert Punctuator.load(folder, device="cpu", fragments=True).predict(lines) == lines
    assert Punctuator.load(folder, device="cpu", fragments=True, decode=DecodeConfig()).predict(lines) == single.predict(lines)


def test_bad_ensemble_files_are_named(trained_tiny, tmp_path):
    missing = make_ensemble(tmp_path, ["../nowhere"])
    with pytest.raises(ModelFolderError, match="ensemble.json: member '../nowhere'.*not a folder"):
        Punctuator.load(missing, device="cpu")
    nested = tmp_path / "outer"
    write_ensemble(str(nested), EnsembleConfig(("../ens",)))
    with pytest.raises(ModelFolderError, match="itself an ensemble"):
        model_folders([str(nested)])
    with open(os.path.join(missing, "ensemble.json"), "w") as f:
        json.dump({"format": "gector-punct-ensemble/1", "members": [], "min_error_probability": 0.2}, f)
    with pytest.raises(ModelFolderError, match="non-empty list"):
        model_folders([missing])
    with open(os.path.join(missing, "ensemble.json"), "w") as f:
        json.dump({"format": "gector-punct-ensemble/1", "members": ["a"], "temperature": 2}, f)
    with pytest.raises(ModelFolderError, match="unknown settings"):
        read_ensemble(missing)


def test_predict_cli_takes_an_ensemble_folder(trained_tiny, learnable_data, tmp_path):
    member = os.path.relpath(trained_tiny["dir"], tmp_path / "ens")
    folder = make_ensemble(tmp_path, [member, member])
    lines = [s for s, _ in learnable_data["dev_pairs"]][:20]
    source = tmp_path / "in.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", folder,
                          "--input_file", str(source), "--output_file", "-", "--device", "cpu"],
                         capture_output=True, text=True, check=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert out.stdout.splitlines() == Punctuator.load(trained_tiny["dir"], device="cpu").predict(lines)


def test_ensemble_probabilities_are_the_members_mean_by_label_name():
    """Two different tiny taggers whose label sets differ (and list shared labels in another order): each
    head's ensemble probability of a label is the mean of the members' (0 where a member lacks it)."""
    torch.manual_seed(1)
    first = tiny_tagger(Vocabulary({"labels": [KEEP, "$APPEND_,", "$APPEND_."], "case_tags": [KEEP, "$TRANSFORM_CASE_CAPITAL"],
                                    "d_tags": ["CORRECT", "INCORRECT"]}), case_context=True)
    second = tiny_tagger(Vocabulary({"labels": ["$APPEND_.", KEEP, "$APPEND_?", "$APPEND_,"],
                                     "case_tags": ["$TRANSFORM_CASE_UPPER", KEEP], "d_tags": ["INCORRECT", "CORRECT"]}))
    lines = [["so", "we", "went", "to", "paris"], ["did", "you", "go"]]
    ensemble = Punctuator([first, second], device="cpu")
    members = [Punctuator([model], device="cpu") for model in (first, second)]
    got = ensemble.probabilities(lines)
    alone = [member.probabilities(lines) for member in members]
    assert {h.name for h in HEADS} <= got.keys() and {h.name for h in HEADS} == alone[0].keys()
    for head, names in ensemble.names.items():
        for j, name in enumerate(names):
            columns = [p[head][..., m.names[head].index(name)] if name in m.names[head] else 0.0
                       for p, m in zip(alone, members)]
            assert np.allclose(got[head][..., j], (columns[0] + columns[1]) / 2, atol=1e-6), (head, name)
    assert not np.allclose(alone[0][PUNCT_HEAD.name][:, 0], alone[1][PUNCT_HEAD.name][:, 1], atol=1e-3)  # the members differ


def test_an_ensembles_precision_runs_every_member_and_a_bad_one_is_refused(tmp_path, monkeypatch):
    """``engine_precision`` in ensemble.json sets the onnx precision of every member (the shipped ensemble_en:
    float32, over default_en's own int8); ``precision=`` still overrides it; an unknown one is named."""
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    labels = {"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
              "d_tags": ["CORRECT", "INCORRECT"]}
    torch.manual_seed(0)
    tiny_tagger(Vocabulary(labels), max_len=32).save(str(tmp_path / "a"))
    store_engine_precision(str(tmp_path / "a"), "int8")
    write_ensemble(str(tmp_path / "ens"), EnsembleConfig(("../a",), engine_precision="float32"))
    assert read_ensemble(str(tmp_path / "ens")).engine_precision == "float32"
    assert [m.meta["precision"] for m in Punctuator.load(str(tmp_path / "ens")).models] == ["float32"]
    assert [m.meta["precision"] for m in Punctuator.load(str(tmp_path / "ens"), precision="int8").models] == ["int8"]
    assert [m.meta["precision"] for m in Punctuator.load(str(tmp_path / "a")).models] == ["int8"]
    raw = json.loads((tmp_path / "ens" / "ensemble.json").read_text())
    (tmp_path / "ens" / "ensemble.json").write_text(json.dumps(dict(raw, engine_precision="int4")))
    with pytest.raises(ModelFolderError, match="engine_precision 'int4'"):
        read_ensemble(str(tmp_path / "ens"))
    assert read_ensemble(os.path.join(ROOT, "models", "ensemble_en")).engine_precision == "float32"
