"""Settings have one typed home: ModelConfig / DecodeConfig in the model folder, options applied to a started-from
model or refused, tuned decoding written through the model API, dev scoring with neutral decoding; one rule
for the embedding table; the reader says what it encoded."""
import ast
import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest
import torch

from conftest import ROOT, TINY_ENCODER, tiny_tagger
from gector_punct.encoders import cache as encoder_cache
from gector_punct.model import base_encoder
from gector_punct.model.windows import START_TOKEN, TextEncoder, load_tokenizer
from gector_punct.scoring.evaluation import evaluate_instances
from gector_punct.model.tagger import DecodeConfig, ModelConfig, ModelFolderError, Seq2Labels, store_decode_defaults
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.dataset.reader import DatasetReader
from gector_punct.text.tags import mark_context
from gector_punct.training.options import MODEL_SETTINGS
from gector_punct.training.trainer import TrainOptions, Trainer
from gector_punct.model.vocabulary import Vocabulary

VOCAB = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                    "d_tags": ["CORRECT", "INCORRECT"]})


def options(learnable_data, model_dir, **values) -> TrainOptions:
    return TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(model_dir),
                        n_epoch=1, batch_size=16, progress=False, updates_per_epoch=1, **values)


def test_every_model_setting_has_one_name_from_flag_to_config():
    sys.path.insert(0, ROOT)
    import train

    flags = {a.option_strings[0][2:] for a in train.build_parser()._actions if a.option_strings[0] != "-h"}
    assert set(MODEL_SETTINGS) <= TrainOptions.field_names()
    assert flags == TrainOptions.field_names() | {"config"}  # one flag per option, made from its field
    assert all(getattr(TrainOptions(), name) is None for name in MODEL_SETTINGS)  # the default is ModelConfig's


def test_config_json_round_trip_and_unknown_settings(tmp_path):
    model = tiny_tagger(VOCAB, max_len=40, window_overlap=4, decode=DecodeConfig(0.3, 0.1, -0.2))
    model.save(str(tmp_path / "m"))
    loaded = Seq2Labels.load(str(tmp_path / "m"))
    assert replace(loaded.config, encoder_config=None) == replace(model.config, encoder_config=None)
    assert loaded.config.encoder_config["hidden_size"] == 48  # the random encoder's own config, to rebuild it
    assert loaded.text_encoder().budget == 40 - 2 and loaded.text_encoder().overlap == 4
    with pytest.raises(ValueError, match=r"unknown settings \['max_length'\]"):
        ModelConfig.from_json({"max_length": 64})


def test_store_decode_defaults_changes_only_decoding(trained_tiny, tmp_path):
    folder = str(tmp_path / "m")
    shutil.copytree(os.path.join(trained_tiny["dir"], "best"), folder)
    before = Seq2Labels.load(folder).config
    store_decode_defaults(folder, DecodeConfig(0.4, 0.2, -0.3))
    after = Seq2Labels.load(folder)
    assert after.config == replace(before, decode=DecodeConfig(0.4, 0.2, -0.3))
    assert Punctuator([after]).decode_config == DecodeConfig(0.4, 0.2, -0.3)
    assert DecodeConfig(0.4, 0.2, None).overridden(additional_confidence=0.1, case_confidence=None).case_bias == 0.1


def test_dev_scoring_during_training_ignores_the_models_decoding_bias(trained_tiny, learnable_data, tmp_path):
    biased = str(tmp_path / "biased")
    shutil.copytree(os.path.join(trained_tiny["dir"], "best"), biased)
    store_decode_defaults(biased, DecodeConfig(additional_confidence=2.0))  # no edit at all, case included
    instances = DatasetReader().read(learnable_data["dev"])
    biased_scores = evaluate_instances(Punctuator.load(biased, device="cpu"), instances)
    assert biased_scores["case"]["overall"]["f1"] == biased_scores["punct"]["overall"]["f1"] == 0
    neutral = evaluate_instances(Punctuator.load(biased, device="cpu", decode=DecodeConfig.neutral()), instances)
    assert neutral["case"]["overall"]["f1"] > 50
    trainer = Trainer(options(learnable_data, tmp_path / "run", init_model=biased))
    assert trainer.evaluate() == neutral


def test_init_model_takes_the_given_settings(trained_tiny, learnable_data, tmp_path):
    given = Trainer(options(learnable_data, tmp_path / "a", init_model=trained_tiny["dir"], max_len=12, dropout=0.3,
                            label_smoothing=0.1, store_dtype="float16"))
    c = given.model.config
    assert (c.max_len, c.dropout, c.label_smoothing, c.store_dtype) == (12, 0.3, 0.1, "float16")
    assert given.model.dropout.p == 0.3
    assert max(len(w.input_ids) for w in given.data.windows) <= 12  # the windows follow the given max_len
    assert len(given.data.windows) > len(given.data.groups)  # so long lines take several
    given.train()
    saved = Seq2Labels.load(str(tmp_path / "a"))
    assert saved.config.max_len == 12 and saved.config.dropout == 0.3
    from safetensors import safe_open
    with safe_open(str(tmp_path / "a" / "best" / "model.safetensors"), "pt") as f:
        assert f.get_tensor("heads.labels.weight").dtype == torch.float16
    kept = Trainer(options(learnable_data, tmp_path / "b", init_model=trained_tiny["dir"]))
    assert kept.model.config == Seq2Labels.load(trained_tiny["dir"]).config  # nothing given: its own settings


def test_init_model_refuses_settings_fixed_at_creation(trained_tiny, learnable_data, tmp_path):
    with pytest.raises(ValueError, match=r"transformer_model .*asked 'bert-base-uncased'\) cannot change"):
        Trainer(options(learnable_data, tmp_path, init_model=trained_tiny["dir"], transformer_model="bert-base-uncased"))
    with pytest.raises(ValueError, match=r"special_tokens_fix \(0, asked 1\) cannot change"):
        Trainer(options(learnable_data, tmp_path, init_model=trained_tiny["dir"], special_tokens_fix=1))


def test_full_init_model_with_train_layers_and_start_token(learnable_data, tmp_path):
    vocab = Vocabulary.from_tags(i.tags for i in DatasetReader().read(learnable_data["train"]))
    tiny_tagger(vocab, special_tokens_fix=1).save(str(tmp_path / "full"))  # every weight stored
    trainer = Trainer(options(learnable_data, tmp_path / "run", init_model=str(tmp_path / "full"), train_layers=1,
                              special_tokens_fix=1, max_len=64))
    assert trainer.model.stored_keys is None  # a fully stored model stays fully stored
    trainer.train()
    again = Seq2Labels.load(str(tmp_path / "run"))
    assert again.tokenizer.convert_tokens_to_ids(START_TOKEN) == len(again.tokenizer) - 1
    assert torch.equal(again.heads["labels"].weight, trainer.model.heads["labels"].weight.cpu())


def test_embedding_table_larger_than_the_tokenizer_is_kept(tmp_path):
    """Hub encoders pad their tables (multilingual-e5-small: 250,037 rows, 250,002 tokens): such a model
    must save and load, with or without $START (which then takes a spare row)."""
    for fix in (0, 1):
        model = tiny_tagger(VOCAB, encoder_config=dict(TINY_ENCODER, vocab_size=30528), special_tokens_fix=fix)
        assert model.encoder.get_input_embeddings().num_embeddings == 30528 > len(model.tokenizer)
        model.save(str(tmp_path / f"m{fix}"))
        loaded = Seq2Labels.load(str(tmp_path / f"m{fix}"))
        assert loaded.encoder.get_input_embeddings().num_embeddings == 30528
        for (key, a), b in zip(model.state_dict().items(), loaded.state_dict().values()):
            assert torch.equal(a, b), key
    # A tokenizer longer than the table (a new $START) grows it, at creation and at loading alike.
    grown = tiny_tagger(VOCAB, special_tokens_fix=1)
    assert grown.encoder.get_input_embeddings().num_embeddings == len(grown.tokenizer) == 30523


def test_encoded_data_lists_what_it_encoded(learnable_data, encoder_name):
    reader = DatasetReader(targets=True)
    instances = reader.read(learnable_data["dev"])
    vocab = Vocabulary.from_tags(i.tags for i in instances)
    data = reader.encode(instances, TextEncoder(load_tokenizer(encoder_name), 16, 5), vocab)
    assert data.instances[: len(instances)] == instances and len(data.instances) == 2 * len(instances)
    assert all(not any(t.is_edit for t in i.tags) for i in data.instances[len(instances):])  # the restored copies
    assert len(data.windows) > len(data.instances)  # 16-subword windows: long lines have several
    for window, labels in zip(data.windows, data.labels):
        instance = data.instances[window.line]
        tags, words = instance.tags[window.start: window.end], instance.words[window.start: window.end]
        assert labels == [vocab.encode_tag(t) + (mark_context(t.apply(w)),) for w, t in zip(words, tags)]


def test_iteration_count_tags_changed_lines_again(trained_tiny, learnable_data):
    lines = [s for s, _ in learnable_data["dev_pairs"]]
    eager = DecodeConfig(additional_confidence=-0.5, case_confidence=-0.5)  # a second pass still finds edits
    first = Punctuator.load(trained_tiny["dir"], device="cpu", decode=eager).predict(lines)
    # The second pass tags the changed lines again, in batches of them alone, reading the tagger's own marks
    # (no line of it taken as written: DecodeConfig.written; tests/test_decoding_rules.py checks that part).
    changed = [i for i, (line, out) in enumerate(zip(lines, first)) if line != out]
    again = Punctuator.load(trained_tiny["dir"], device="cpu", decode=replace(eager, written=math.inf))
    second = list(first)
    for i, out in zip(changed, again.predict([first[i] for i in changed])):
        second[i] = out
    assert second != first
    twice = Punctuator.load(trained_tiny["dir"], device="cpu", decode=eager, iteration_count=2)
    assert twice.predict(lines) == second


def test_predict_special_tokens_fix_must_match_the_model(trained_tiny, tmp_path, capsys):
    sys.path.insert(0, ROOT)
    import predict

    (tmp_path / "in.txt").write_text("alpha beta omega\n")
    args = ["--model_path", trained_tiny["dir"], "--input_file", str(tmp_path / "in.txt"),
            "--output_file", str(tmp_path / "out.txt"), "--device", "cpu"]
    assert predict.main(args + ["--special_tokens_fix", "1"]) == 2
    assert "was trained with special_tokens_fix 0" in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()
    assert predict.main(args + ["--special_tokens_fix", "0"]) == 0 and (tmp_path / "out.txt").exists()


def _edited_copy(source: str, folder, **changes) -> str:
    """A copy of a model folder whose config.json has ``changes`` (None: the key removed)."""
    shutil.copytree(source, folder)
    path = os.path.join(folder, "config.json")
    with open(path, encoding="utf-8") as f:
        values = json.load(f)
    values.update({k: v for k, v in changes.items() if v is not None})
    for key in [k for k, v in changes.items() if v is None]:
        del values[key]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(values, f)
    return str(folder)


def test_a_partial_folder_over_another_base_encoder_is_refused(tmp_path):
    shipped = os.path.join(ROOT, "models", "default_en")
    with open(os.path.join(shipped, "config.json"), encoding="utf-8") as f:
        recorded = json.load(f)
    assert recorded["base_fingerprint"].startswith("sha256:") and "_name_or_path" not in recorded["encoder_config"]
    other = "sha256:" + "0" * 64
    folder = _edited_copy(shipped, tmp_path / "other_base", base_fingerprint=other)
    with pytest.raises(ModelFolderError) as refused:
        Seq2Labels.load(folder)
    message = str(refused.value)
    assert folder in message and other in message and recorded["base_fingerprint"] in message
    # A folder written before fingerprints were recorded is not checked; a new partial folder records its base.
    unrecorded = Seq2Labels.load(_edited_copy(shipped, tmp_path / "old", base_fingerprint=None))
    assert unrecorded.base_fingerprint == recorded["base_fingerprint"]
    unrecorded.save(str(tmp_path / "resaved"))
    with open(tmp_path / "resaved" / "config.json", encoding="utf-8") as f:
        resaved = json.load(f)
    assert resaved["base_fingerprint"] == recorded["base_fingerprint"]
    assert "_name_or_path" not in resaved["encoder_config"]  # the encoder by name only, no path of this machine


def test_the_installed_encoder_fingerprint_is_remembered_until_its_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    shipped = os.path.join(ROOT, "models", "default_en")  # partial: its base encoder is checked at loading
    with open(os.path.join(shipped, "config.json"), encoding="utf-8") as f:
        recorded = json.load(f)["base_fingerprint"]
    assert Seq2Labels.load(shipped, light=True).base_fingerprint == recorded
    monkeypatch.setattr(base_encoder, "base_fingerprint", lambda state: pytest.fail("hashed the encoder again"))
    assert Seq2Labels.load(shipped, light=True).base_fingerprint == recorded
    weights, calls = tmp_path / "model.safetensors", []
    compute = lambda: calls.append(1) or f"sha256:{len(calls)}"  # noqa: E731
    weights.write_bytes(b"first")
    assert [encoder_cache.remembered_fingerprint(str(weights), compute) for _ in range(2)] == ["sha256:1"] * 2
    weights.write_bytes(b"second")  # another size
    assert encoder_cache.remembered_fingerprint(str(weights), compute) == "sha256:2"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 1))  # same size, rewritten
    assert encoder_cache.remembered_fingerprint(str(weights), compute) == "sha256:3"
    hub_name = str(tmp_path / "no-such-file")  # not a file: not remembered
    assert [encoder_cache.remembered_fingerprint(hub_name, compute) for _ in range(2)] == ["sha256:4", "sha256:5"]


def test_train_flags_come_from_the_options(tmp_path, capsys):
    sys.path.insert(0, ROOT)
    import train

    parser = train.build_parser()
    given = train.parse_flags(parser, ["--resume", "1", "--progress", "0", "--targets", "--no-skip_bad",
                                       "--case_context=1", "--lr", "0.1", "--switches", "disf,punc"])
    assert given == {"resume": True, "progress": False, "targets": True, "skip_bad": False, "case_context": True,
                     "lr": 0.1, "switches": ("disf", "punc")}  # --resume 1, the recipes' spelling, still works
    assert "AdamW weight decay (default 0.01; at least 0.0)" in " ".join(parser.format_help().split())
    assert "(default: 128 for a new model, an init model keeps its own unless given; at least 8)" in " ".join(
        parser.format_help().split())  # --max_len: ModelConfig's default, shown
    paths = ["--train_set", "t", "--dev_set", "d", "--model_dir", str(tmp_path / "m")]
    for bad, message in ((["--lr", "-1"], "error: argument --lr: must be at least 0.0, not -1.0"),
                         (["--tn_prob", "1.5"], "error: argument --tn_prob: must be between 0.0 and 1.0, not 1.5")):
        with pytest.raises(SystemExit) as stop:
            train.main(paths + bad)
        assert stop.value.code == 2 and capsys.readouterr().err.splitlines() == [message]
    (tmp_path / "bad.json").write_text('{"lr": -1, "n_epoch": 1}')
    assert train.main(paths + ["--config", str(tmp_path / "bad.json")]) == 2  # a preset is checked alike
    assert capsys.readouterr().err.splitlines() == ["error: lr: must be at least 0.0, not -1.0"]
    assert not os.path.exists(tmp_path / "m")  # refused before anything was written
    (tmp_path / "bom.json").write_bytes('\ufeff{"lr": -2}'.encode())  # as some editors save it: read, then checked
    assert train.main(paths + ["--config", str(tmp_path / "bom.json")]) == 2
    assert capsys.readouterr().err.splitlines() == ["error: lr: must be at least 0.0, not -2.0"]
    (tmp_path / "list.json").write_text('[{"lr": 1}]')
    with pytest.raises(SystemExit) as stop:
        train.main(paths + ["--config", str(tmp_path / "list.json")])
    assert stop.value.code == 2 and capsys.readouterr().err.splitlines() == [f"error: --config {tmp_path / 'list.json'}: not a JSON object"]
    with pytest.raises(ValueError, match="batch_size: must be at least 1, not 0"):
        TrainOptions(batch_size=0)
    assert TrainOptions(case_context=1, acoustic={"dim": 16}).acoustic.dim == 16  # as a --config JSON gives them


def test_each_default_has_one_home():
    """The flags' defaults are the settings' fields: predict.py, the service, Ray, training and the
    Punctuator read the same ones (a default changed there changes everywhere)."""
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    import predict
    import predict_ray
    from gector_punct.prediction.settings import DEFAULTS
    from gector_punct.prediction.streaming import StreamingPunctuator
    from gector_punct.service.contract import DEFAULT_LOOKAHEAD
    from gector_punct.service.settings import ServiceSettings

    flags = vars(predict.build_parser().parse_args(["--input_file", "-", "--output_file", "-"]))
    assert {k: v for k, v in flags.items() if k in DEFAULTS.field_names()} == vars(DEFAULTS)
    ray = predict_ray.build_parser().parse_args(["--input_dir", "i", "--output_dir", "o"])
    assert ray.batch_size == DEFAULTS.batch_size and ray.existing == DEFAULTS.existing
    service = ServiceSettings()
    assert (service.batch_size, service.device, service.model_path) == (DEFAULTS.batch_size, None, None)
    assert TrainOptions().device is DEFAULTS.device
    assert StreamingPunctuator.__init__.__defaults__[0] == DEFAULT_LOOKAHEAD == DEFAULTS.lookahead
    signature = Punctuator.__init__.__kwdefaults__ or dict(zip(Punctuator.__init__.__code__.co_varnames[2:],
                                                                Punctuator.__init__.__defaults__))
    assert (signature["batch_size"], signature["tasks"], signature["existing"], signature["fragments"]) == (
        DEFAULTS.batch_size, DEFAULTS.tasks, DEFAULTS.existing, DEFAULTS.fragments)


def test_one_way_from_settings_to_a_model(tmp_path):
    """predict.py, serve.py and utils/predict_ray.py choose the model by ``shipped.model_paths``, as
    ``Punctuator.load`` does: --tasks disf,punc without --model_path is switch_en; a shipped name is its folder."""
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    import predict
    import predict_ray
    from gector_punct.prediction.shipped import SWITCHING_MODEL, model_paths
    from gector_punct.service.settings import ServiceSettings

    chosen = [predict.parse_args(["--input_file", "-", "--output_file", "-", "--tasks", "disf,punc"]),
              predict_ray.parse_args(["--input_dir", ROOT, "--output_dir", str(tmp_path), "--tasks", "disf,punc"]),
              ServiceSettings(tasks="disf,punc").prediction()]
    assert [model_paths(s.model_path, s.tasks) for s in chosen] == [[SWITCHING_MODEL]] * 3
    assert model_paths(["switch_en"], frozenset()) == [SWITCHING_MODEL]
    (tmp_path / "switch_en").mkdir()  # a folder of that name where the program runs is what it means
    assert model_paths(["switch_en", "no_such"], frozenset()) == [SWITCHING_MODEL, "no_such"]
    os.chdir(tmp_path)
    try:
        assert model_paths(["switch_en"], frozenset()) == ["switch_en"]
    finally:
        os.chdir(ROOT)


def test_the_readme_python_example_runs_from_any_folder(tmp_path):
    """README's "From Python" lines, run outside the checkout: shipped models load by name, and
    ``tasks="disf,punc"`` without a model picks the one that deletes words."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    example = readme.split("From Python:\n\n```python\n", 1)[1].split("```", 1)[0]
    probe = "\n".join(f"print(repr({line.split('#')[0].strip()}))"
                      if isinstance(ast.parse(line).body[0], ast.Expr) else line for line in example.splitlines())
    probe += "\nprint(repr(Punctuator.load(tasks='disf,punc').predict(['so uh we went to the the store'])))"
    env = dict(os.environ, PYTHONPATH=ROOT, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    restored = run.stdout.splitlines()
    assert restored[0].startswith("['So I went to New York") and restored[1] == restored[-1]
    quoted = [line.split("# ", 1)[1].strip() for line in example.splitlines() if "# [" in line]
    assert quoted and all(q in restored for q in quoted)  # an output the README quotes is what the line prints
    assert "uh" not in restored[1] and "the the" not in restored[1]
