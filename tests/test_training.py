"""Training, saving, loading and prediction on the learnable task with a tiny random-init encoder."""
import json
import os

import numpy as np
import pytest
import torch

from conftest import TINY_ENCODER, score_text, tiny_tagger
from gector_punct.model.batch import Batch
from gector_punct.model.windows import START_TOKEN, collate
from gector_punct.scoring.evaluation import evaluate_instances
from gector_punct.model.tagger import DecodeConfig, Seq2Labels
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.decoding import member_tables
from gector_punct.text.sentences import split_sentences
from gector_punct.dataset.reader import DatasetReader, word_labels
from gector_punct.text.tags import CASE_UNKNOWN, Tag
from gector_punct.training.trainer import TrainOptions, Trainer, parameter_groups, train
from gector_punct.model.vocabulary import CASE_HEAD, HEADS, PUNCT_HEAD, Vocabulary


def dev_f1(punctuator, dev_pairs):
    return score_text([t for _, t in dev_pairs], punctuator.predict([s for s, _ in dev_pairs]))


def test_training_learns_the_task(trained_tiny, learnable_data, encoder_name):
    model_dir = trained_tiny["dir"]
    trained = Punctuator.load(model_dir, device="cpu", fragments=True)
    untrained = Punctuator([tiny_tagger(trained.models[0].vocab)], device="cpu", fragments=True)
    after = dev_f1(trained, learnable_data["dev_pairs"])
    before = dev_f1(untrained, learnable_data["dev_pairs"])
    assert after["punct"]["overall"]["f1"] > 90 > before["punct"]["overall"]["f1"] + 40
    # Case after a sentence end needs the previous word: a 2-layer toy learns most of it.
    assert after["case"]["overall"]["f1"] > max(75, before["case"]["overall"]["f1"] + 30)
    records = [json.loads(line) for line in open(os.path.join(model_dir, "metrics.jsonl"))]
    assert len(records) >= 2 and all("dev" in r for r in records)
    best_epochs = [r for r in records if r["best"]]
    assert best_epochs[-1]["selection_f1"] == max(r["selection_f1"] for r in records)  # best/ = highest dev F1
    assert all(a["selection_f1"] < b["selection_f1"] for a, b in zip(best_epochs, best_epochs[1:]))
    for sub in ("best", "last"):
        assert {"config.json", "model.safetensors", "tokenizer", "vocabulary"} <= set(os.listdir(os.path.join(model_dir, sub)))
    assert {"labels.txt", "case_tags.txt", "d_tags.txt", "non_padded_namespaces.txt"} == set(
        os.listdir(os.path.join(model_dir, "best", "vocabulary")))


def test_save_load_gives_identical_predictions(trained_tiny, learnable_data, tmp_path):
    model = Seq2Labels.load(trained_tiny["dir"])
    model.save(str(tmp_path / "copy"))
    again = Seq2Labels.load(str(tmp_path / "copy"))
    lines = [s for s, _ in learnable_data["dev_pairs"]]
    assert Punctuator([model], device="cpu").predict(lines) == Punctuator([again], device="cpu").predict(lines)
    for (k, a), (_, b) in zip(model.state_dict().items(), again.state_dict().items()):
        assert torch.equal(a, b), k


def test_lines_preserved_with_empty_and_odd_lines(trained_tiny):
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu", fragments=True)
    lines = ["", "   ", "alpha beta omega", "\t", "x", "paris\u2028london time", "ünïcödé wörds",
             "alpha " * 400, "omega"]
    out = punctuator.predict(lines)
    assert len(out) == len(lines)
    assert out[0] == "" and out[1] == "   " and out[3] == "\t"
    for before, after in zip(lines, out):
        assert [w.lower().strip(",.?") for w in after.split()] == [w.lower() for w in before.split()]


def test_ensemble_joins_models_by_label_name(trained_tiny, learnable_data, tmp_path):
    lines = [s for s, _ in learnable_data["dev_pairs"]]
    single = Punctuator.load(trained_tiny["dir"], device="cpu")
    assert Punctuator.load([trained_tiny["dir"], trained_tiny["dir"]], device="cpu").predict(lines) == single.predict(lines)
    # A copy whose vocabularies and head rows are permuted is the same model: averaged with the original,
    # every probability must stay where it was (a label mapped by position instead of name would move it).
    permuted = Seq2Labels.load(trained_tiny["dir"])
    for head in HEADS:
        tokens = permuted.vocab.tokens(head.namespace)
        order = list(reversed(range(len(tokens))))
        permuted.vocab._tokens[head.namespace] = [tokens[i] for i in order]
        layer = permuted.heads[head.name]
        layer.weight.data, layer.bias.data = layer.weight.data[order], layer.bias.data[order]
    permuted.save(str(tmp_path / "permuted"))
    assert Vocabulary.load(str(tmp_path / "permuted" / "vocabulary")).tokens("labels")[-1] == "$KEEP"
    mixed = Punctuator.load([trained_tiny["dir"], str(tmp_path / "permuted")], device="cpu")
    words = [line.split() for line in lines[:10]]
    a, b = single.probabilities(words), mixed.probabilities(words)
    for head in (h.name for h in HEADS):
        assert a[head].shape == b[head].shape and np.allclose(a[head], b[head], atol=1e-6)
    for head in (PUNCT_HEAD.name, CASE_HEAD.name):  # each member's own table, in the ensemble's columns
        members = member_tables(b, head)
        assert members.shape == (2, *a[head].shape) and np.allclose(members, a[head][None], atol=1e-6)
    assert mixed.predict(lines) == single.predict(lines)


def test_min_error_probability_and_additional_confidence(trained_tiny, learnable_data):
    lines = [s for s, _ in learnable_data["dev_pairs"]]

    def restore(decode=None):  # the dev lines are fragments: nothing is forced at their edges
        return Punctuator.load(trained_tiny["dir"], device="cpu", fragments=True, decode=decode).predict(lines)

    plain = restore()
    assert plain != lines
    assert restore(DecodeConfig(min_error_probability=1.01)) == lines
    assert restore(DecodeConfig(additional_confidence=2.0)) == lines
    some = restore(DecodeConfig(min_error_probability=0.95))
    edits = lambda out: sum(a != b for x, y in zip(lines, out) for a, b in zip(x.split(), y.split()))  # noqa: E731
    assert edits(lines) == 0 < edits(some) <= edits(plain)
    # The case head's own bias: the same marks, and no case changes but the capital that a sentence end the
    # tagger added always gives the next word.
    assert lines == [ln.lower() for ln in lines] and plain != [ln.lower() for ln in plain]
    no_case = restore(DecodeConfig(case_confidence=2.0))
    assert no_case == [sentence_starts_only(ln) for ln in plain]


def sentence_starts_only(line: str) -> str:
    words = line.lower().split()
    return " ".join(w.capitalize() if k and words[k - 1][-1] in ".?!" else w for k, w in enumerate(words))


def test_predicting_own_output_changes_little(trained_tiny, learnable_data):
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu", fragments=True)
    once = punctuator.predict([s for s, _ in learnable_data["dev_pairs"]])
    twice = punctuator.predict(once)
    changed = sum(a != b for x, y in zip(once, twice) for a, b in zip(x.split(), y.split()))
    assert changed / sum(len(x.split()) for x in once) < 0.03
    assert ",," not in " ".join(twice) and ".." not in " ".join(twice)  # marks are not added twice


def test_resume_continues_a_run(learnable_data, encoder_name, tmp_path):
    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path),
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, n_epoch=1, lr=3e-3,
                           batch_size=16, max_len=64, progress=False, updates_per_epoch=5)
    train(options)
    options.n_epoch, options.resume = 2, True
    trainer = Trainer(options)
    assert trainer.state["epoch"] == 1 and trainer.optimizer.state  # optimizer moments came back
    trainer.train()
    records = [json.loads(line) for line in open(tmp_path / "metrics.jsonl")]
    assert [r["epoch"] for r in records] == [1, 2]
    options.n_epoch, options.decay_norms = 3, not options.decay_norms  # other parameter groups: refused, clearly
    with pytest.raises(ValueError, match="was trained with --(no-)?decay_norms: resume it with"):
        Trainer(options)


def test_cold_steps_train_only_heads(learnable_data, encoder_name, tmp_path):
    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path),
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, n_epoch=1,
                           cold_steps_count=1, batch_size=16, max_len=64, progress=False, updates_per_epoch=3)
    trainer = Trainer(options)
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    trainer.train()
    after = trainer.model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before if k.startswith("encoder."))
    assert not torch.equal(before["heads.labels.weight"], after["heads.labels.weight"])


def test_dev_metrics_match_evaluate(trained_tiny, learnable_data):
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu", fragments=True)
    instances = DatasetReader().read(learnable_data["dev"])
    from_instances = evaluate_instances(punctuator, instances)
    from_text = dev_f1(punctuator, learnable_data["dev_pairs"])
    assert from_instances["punct"]["overall"]["f1"] == pytest.approx(from_text["punct"]["overall"]["f1"])


def test_split_sentences():
    assert split_sentences("Hi there. How are you? Fine") == ["Hi there.", "How are you?", "Fine"]
    assert split_sentences("") == []


def test_unknown_case_labels_teach_nothing(encoder_name):
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                        "d_tags": ["CORRECT", "INCORRECT"]})
    model = tiny_tagger(vocab)
    encoder = model.text_encoder(32)
    windows = encoder.encode_lines([["so", "i", "went", "home"]])
    words = ["so", "i", "went", "home"]
    unknown = [word_labels(vocab, words, [Tag(append="." if i == 3 else "", case=CASE_UNKNOWN) for i in range(4)])]
    assert all(case == -100 for _, case, _, _ in unknown[0])
    batch = collate(windows, labels=unknown)
    model(Batch.of(batch))["loss"].backward()
    assert model.heads["case"].weight.grad.abs().sum() == 0  # no gradient from unknown case
    assert model.heads["labels"].weight.grad.abs().sum() > 0


def test_special_tokens_fix_adds_start_token(encoder_name, tmp_path):
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_."], "case_tags": ["$KEEP"], "d_tags": ["CORRECT", "INCORRECT"]})
    model = tiny_tagger(vocab, special_tokens_fix=1)
    start = model.tokenizer.convert_tokens_to_ids(START_TOKEN)
    assert start == len(model.tokenizer) - 1 == model.encoder.get_input_embeddings().num_embeddings - 1
    window = model.text_encoder(32).encode_lines([["hello", "world"]])[0]
    assert window.input_ids[1] == start and window.word_starts[0] == 2
    model.save(str(tmp_path / "m"))
    loaded = Seq2Labels.load(str(tmp_path / "m"))
    assert loaded.tokenizer.convert_tokens_to_ids(START_TOKEN) == start
    assert Punctuator([loaded], device="cpu").predict(["hello world"]) == Punctuator([model], device="cpu").predict(["hello world"])


def test_int8_quantized_encoder_keeps_the_task(trained_tiny, learnable_data):
    plain = Punctuator.load(trained_tiny["dir"], engine="torch", device="cpu")
    quantized = Punctuator.load(trained_tiny["dir"], engine="torch", device="cpu", quantize=True)
    layers = [type(m) for m in quantized.models[0].encoder.modules()]
    assert torch.nn.Linear not in layers and torch.ao.nn.quantized.dynamic.Linear in layers  # all swapped for int8
    lines = [s for s, _ in learnable_data["dev_pairs"]]
    out = quantized.predict(lines)
    assert len(out) == len(lines)
    f1_plain = dev_f1(plain, learnable_data["dev_pairs"])["punct"]["overall"]["f1"]
    f1_int8 = dev_f1(quantized, learnable_data["dev_pairs"])["punct"]["overall"]["f1"]
    assert f1_int8 > f1_plain - 5
    with pytest.raises(ValueError, match="int8 quantisation runs on the CPU only"):
        Punctuator.load(trained_tiny["dir"], engine="torch", device="meta", quantize=True)


def test_class_weights_weight_the_loss_and_favour_rare_marks(learnable_data, encoder_name, tmp_path):
    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path),
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, n_epoch=1, batch_size=16,
                           max_len=64, progress=False, updates_per_epoch=1, class_weight_power=0.5)
    trainer = Trainer(options)
    weights, vocab = trainer.model.class_weights["labels"], trainer.model.vocab
    assert weights[vocab.index("labels", "$KEEP")] == 1.0 and (weights >= 1).all() and (weights <= 10).all()
    keep, comma, period = (vocab.index("labels", t) for t in ("$KEEP", "$APPEND_,", "$APPEND_."))
    assert weights[comma] > 1 and weights[period] > 1
    # The loss is the weighted mean cross-entropy, exactly as PyTorch defines it.
    batch = collate(trainer.data.windows[:8], labels=trainer.data.labels[:8])
    out = trainer.model(Batch.of(batch))
    target = batch[PUNCT_HEAD.target_key].masked_fill(~batch["word_mask"], -100)
    expected = torch.nn.functional.cross_entropy(out["logits_labels"].transpose(1, 2), target, weight=weights)
    assert (out["loss_sums"][0] / out["loss_counts"][0]).item() == pytest.approx(expected.item(), rel=1e-5)
    trainer.model.class_weights = {}
    unweighted = trainer.model(Batch.of(batch))
    assert unweighted["loss_counts"][0] == (target != -100).sum()


def test_weight_decay_can_leave_layer_norms_and_biases_alone():
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_."], "case_tags": ["$KEEP"], "d_tags": ["CORRECT", "INCORRECT"]})
    model = tiny_tagger(vocab)
    ids = lambda group: {id(p) for p in group["params"]}  # noqa: E731
    (everything,) = parameter_groups(model, 0.01, decay_norms=True)
    assert everything["weight_decay"] == 0.01 and ids(everything) == {id(p) for p in model.parameters()}
    decayed, kept = parameter_groups(model, 0.01, decay_norms=False)
    assert (decayed["weight_decay"], kept["weight_decay"]) == (0.01, 0.0)
    norm, head = model.encoder.embeddings.LayerNorm.weight, model.heads["labels"]
    bias, matrix = head.bias, head.weight
    assert {id(norm), id(bias)} <= ids(kept) and id(matrix) in ids(decayed) and not ids(kept) & ids(decayed)
    assert all(p.dim() == 1 for p in kept["params"]) and all(p.dim() == 2 for p in decayed["params"])  # BERT's vectors
