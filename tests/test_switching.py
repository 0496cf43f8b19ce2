"""Switching tokens (seed 001): one tagger trained on disfluency-only, punctuation-only and no-conversion data
does each task alone, both at once (never trained), and leaves alone what is switched off."""
import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import torch

from conftest import FILLERS, ROOT, TINY_ENCODER, tiny_tagger, write_pairs
from gector_punct.model.batch import Batch
from gector_punct.model.windows import collate
from gector_punct.scoring.evaluation import score_conversion
from gector_punct.model.tagger import Seq2Labels
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.dataset.preprocess import preprocess_files
from gector_punct.dataset.reader import DatasetReader, Instance, read_tasks
from gector_punct.text.tags import DELETE, KEEP, Tag, parse_tagged, tags_from_pair
from gector_punct.text.tasks import parse_tasks, switch_states
from gector_punct.training.trainer import Trainer, TrainOptions, train
from gector_punct.model.vocabulary import PUNCT_HEAD, Vocabulary

@pytest.fixture(scope="session")
def trained_switching(switching_data, encoder_name, tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("switching_model"))
    d = switching_data
    train(TrainOptions(train_set=",".join([d["disf"], d["punc"], d["none"]]), dev_set=d["dev"] + "," + d["disf_dev"],
                       model_dir=model_dir,
                       transformer_model=encoder_name, encoder_config=TINY_ENCODER, switches=("disf", "punc"),
                       n_epoch=8, lr=3e-3, batch_size=16, max_len=64, patience=8, progress=False, seed=3))
    return model_dir


def test_zero_shot_joint_deletes_and_punctuates(trained_switching, switching_data):
    """disf,punc was never trained; it must do both: delete the fillers, punctuate the rest."""
    instances = DatasetReader().read(switching_data["joint"])
    punctuator = Punctuator.load(trained_switching, tasks=parse_tasks("disf,punc"), device="cpu")
    result = score_conversion(instances, punctuator.predict_tags([i.words for i in instances]))
    assert result["deletion"]["f1"] > 95, result["deletion"]
    assert result["punct"]["overall"]["f1"] > 80, result["punct"]["overall"]
    # The same model with the disf switch off and deletion masked deletes nothing and scores far lower.
    punc_only = Punctuator.load(trained_switching, tasks=parse_tasks("punc"), device="cpu")
    without = score_conversion(instances, punc_only.predict_tags([i.words for i in instances]))
    assert without["deletion"]["f1"] == 0.0


def test_a_task_switched_off_changes_nothing(trained_switching, switching_data):
    sources = [s for s, _ in switching_data["joint_pairs"]] + ["Hello, World. so I went: Paris!"]
    model = Seq2Labels.load(trained_switching)
    none = Punctuator([model], tasks=parse_tasks("none"), device="cpu").predict(sources)
    assert none == sources
    disf_only = Punctuator([model], tasks=parse_tasks("disf"), device="cpu").predict(sources)
    for source, out in zip(sources, disf_only):
        kept = iter(source.split())
        assert all(any(w == k for k in kept) for w in out.split()), (source, out)  # a subsequence, words as they were
    assert any(len(o.split()) < len(s.split()) for s, o in zip(sources, disf_only))  # and it does delete
    punc = Punctuator([model], tasks=parse_tasks("punc"), device="cpu").predict(sources)
    assert all(len(o.split()) == len(s.split()) for s, o in zip(sources, punc))


def test_switch_states_reach_the_encoder(encoder_name):
    """The switch vectors replace the placeholder slots: other states, other probabilities."""
    vocab = Vocabulary({"labels": [KEEP, "$APPEND_.", DELETE], "case_tags": [KEEP], "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(0)
    model = tiny_tagger(vocab, switches=("disf", "punc")).eval()
    encoder = model.text_encoder()
    assert encoder.prefix[encoder.switch_offset: encoder.switch_offset + 2] == [encoder.unk_id] * 2
    probs = []
    for states in ((0, 1), (1, 1), (0, 0)):
        batch = collate(encoder.encode_lines([["so", "we", "went"]], states))
        assert batch["switches"].tolist() == [list(states)]
        probs.append(model(Batch.of(batch))["probs_labels"])
    assert not torch.allclose(probs[0], probs[1]) and not torch.allclose(probs[0], probs[2])
    with pytest.raises(ValueError, match="switches"):
        model(replace(Batch.of(collate(encoder.encode_lines([["so"]], (0, 1)))), switches=None))
    assert switch_states(parse_tasks("disf,punc"), ("punc",)) == (1,)
    with pytest.raises(ValueError, match="unknown task"):
        parse_tasks("disf,commas")


def test_deletion_is_neither_predicted_nor_taught_with_disf_off(switching_data):
    """With disf off $DELETE leaves the punctuation head's distribution: probability 0, and no gradient
    reaches its output (a punctuation or no-conversion set teaches nothing about deletion); with disf on the
    same words teach it."""
    reader = DatasetReader()
    instances = {name: reader.read(switching_data[name])[:8] for name in ("punc", "none", "disf")}
    vocab = Vocabulary.from_tags(i.tags for part in instances.values() for i in part)
    torch.manual_seed(0)
    model = tiny_tagger(vocab, switches=("disf", "punc"))
    delete = vocab.index(PUNCT_HEAD.namespace, DELETE)
    grads = {}
    for name, part in instances.items():
        data = reader.encode(part, model.text_encoder(), vocab, model.config.switches)
        if name == "none":  # it teaches nothing by default, so it has no windows; taught "unchanged", it has
            assert not data.windows
            data = DatasetReader(off_tasks="unchanged").encode(part, model.text_encoder(), vocab, model.config.switches)
        out = model(Batch.of(collate(data.windows, labels=data.labels)))
        model.zero_grad()
        out["loss"].backward()
        grads[name] = float(model.heads[PUNCT_HEAD.name].bias.grad[delete].abs())
        if name != "disf":
            assert float(out[PUNCT_HEAD.probs_key][..., delete].detach().max()) == 0.0
    assert grads["punc"] == 0.0 and grads["none"] == 0.0 and grads["disf"] > 0.0, grads
    from gector_punct.dataset.reader import word_labels
    from gector_punct.model.vocabulary import IGNORE
    none = instances["none"][0]
    assert {lab[:3] for lab in word_labels(vocab, none.words, none.tags, none.tasks)} == {(IGNORE,) * 3}


def test_a_file_named_twice_is_drawn_twice_as_often(switching_data, encoder_name, tmp_path):
    d = switching_data
    options = TrainOptions(train_set=",".join([d["disf"], d["disf"], d["punc"]]), dev_set=d["dev"],
                           model_dir=str(tmp_path), transformer_model=encoder_name, encoder_config=TINY_ENCODER,
                           switches=("disf", "punc"), max_len=64, progress=False)
    counts = Counter(i.origin.rsplit(":", 1)[0] for i in Trainer(options).train_instances)
    disf, punc = (len(DatasetReader().read(d[name])) for name in ("disf", "punc"))
    assert sorted(counts.values()) == sorted([2 * disf, punc]), counts


def test_light_encoder_reads_switches_like_transformers(trained_switching):
    lines = [["uh", "so", "we", "went", "to", "paris", "um", "alpha", "time"]]
    outs = []
    for light in (False, True):
        punctuator = Punctuator([Seq2Labels.load(trained_switching, light=light)], tasks=parse_tasks("disf,punc"),
                                device="cpu")
        outs.append(punctuator.probabilities(lines))
    assert outs[0].keys() == outs[1].keys()
    for head in outs[0]:
        assert np.allclose(outs[0][head], outs[1][head], atol=1e-5)


def test_init_model_gains_delete_and_switches(trained_tiny, switching_data, tmp_path):
    """A punctuation model (no $DELETE, no switches) fine-tuned on disfluency data grows both."""
    before = Seq2Labels.load(trained_tiny["dir"])
    assert DELETE not in before.vocab.tokens(PUNCT_HEAD.namespace)
    train(TrainOptions(train_set=switching_data["disf"], dev_set=switching_data["dev"], model_dir=str(tmp_path),
                       init_model=trained_tiny["dir"], switches=("disf", "punc"), n_epoch=1, updates_per_epoch=2,
                       batch_size=8, progress=False))
    after = Seq2Labels.load(str(tmp_path))
    assert DELETE in after.vocab.tokens(PUNCT_HEAD.namespace) and after.config.switches == ("disf", "punc")
    assert after.vocab.tokens(PUNCT_HEAD.namespace)[: before.vocab.size(PUNCT_HEAD.namespace)] == \
        before.vocab.tokens(PUNCT_HEAD.namespace)  # old labels keep their indices


def test_tasks_travel_with_the_data(switching_data, tmp_path):
    assert read_tasks(switching_data["disf"]) == parse_tasks("disf")
    assert read_tasks(str(tmp_path / "plain.tagged")) == parse_tasks("punc")
    instances = DatasetReader().read(switching_data["none"])
    assert instances[0].tasks == frozenset() and not any(t.is_edit for i in instances for t in i.tags)
    # Without punc a target that changes marks is refused, naming the line.
    src, tgt = write_pairs(tmp_path, "bad", [("so we went", "so we went"), ("uh so we went", "So we went.")])
    with pytest.raises(Exception, match=r"bad\.src:2.*punc task is off"):
        preprocess_files(src, tgt, tasks=parse_tasks("disf"))
    lines, _ = preprocess_files(src, tgt, tasks=parse_tasks("disf,punc"))
    assert "$DELETE" in lines[1]


def test_deleted_words_pass_on_their_context():
    instance = Instance("it ends uh so".split(), tags_from_pair("it ends uh so".split(), "it ends. So", deletions=True))
    from gector_punct.dataset.reader import word_labels
    from gector_punct.text.tags import END_CONTEXT
    vocab = Vocabulary.from_tags([instance.tags])
    contexts = [lab[-1] for lab in word_labels(vocab, instance.words, instance.tags)]
    assert contexts[1] == contexts[2] == END_CONTEXT  # "so" is told a sentence ended, across the deleted "uh"
    assert instance.tags[2] == Tag(deletes=True)


def test_kept_disfluencies_teach_punctuation_around_them(tmp_path):
    """A punctuation set over disfluent speech (--kept_disfluencies): the disfluent word is aligned as
    $DELETE, but with the disf task off it teaches nothing (every head unknown), and the words around it get
    the fluent target's marks."""
    from gector_punct.dataset.reader import word_labels
    from gector_punct.model.vocabulary import IGNORE
    src, tgt = write_pairs(tmp_path, "kept", [("it ends uh so we went", "It ends. So we went.")])
    with pytest.raises(Exception, match=r"kept\.src:1"):
        preprocess_files(src, tgt, tasks=parse_tasks("punc"))  # without the flag, a left-out word is an error
    with pytest.raises(ValueError, match="punctuation set"):
        preprocess_files(src, tgt, tasks=parse_tasks("disf,punc"), kept_disfluencies=True)
    lines, _ = preprocess_files(src, tgt, tasks=parse_tasks("punc"), kept_disfluencies=True)
    words, tags = parse_tagged(lines[0])
    assert tags[2] == Tag(deletes=True)
    vocab = Vocabulary.from_tags([tags])
    punc = word_labels(vocab, words, tags, parse_tasks("punc"))
    assert punc[2][:3] == (IGNORE, IGNORE, IGNORE)
    assert punc[1][:3] == vocab.encode_tag(tags[1]) and tags[1].punct.endswith(".")  # "ends." before the "uh"
    assert punc[3][:3] == vocab.encode_tag(tags[3]) and tags[3].case != KEEP  # "So" capitalised after it
    joint = word_labels(vocab, words, tags, parse_tasks("disf,punc"))
    assert joint[2][0] == vocab.encode_tag(Tag(deletes=True))[0]  # with disf on, the same word is deleted


def test_cli_tasks(trained_switching, tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("uh so we went to paris um alpha time\n\nomega omega\n", encoding="utf-8")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    run = lambda *extra: subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(source),  # noqa: E731
                                         "--output_file", "-", *extra], capture_output=True, text=True, env=env)
    done = run("--model_path", trained_switching, "--tasks", "disf,punc")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 3 and done.stdout.splitlines()[1] == ""
    refused = run("--model_path", os.path.join(ROOT, "models", "default_en"), "--tasks", "disf")
    assert refused.returncode == 2 and "needs a model that deletes words" in refused.stderr
    bad = run("--tasks", "commas")
    assert bad.returncode == 2 and "unknown task 'commas'" in bad.stderr


def test_cascades_map_back_to_source_words(trained_switching, switching_data):
    from gector_punct_data.conversion import convert, text_scores

    lines = [s.split() for s, _ in switching_data["joint_pairs"][:20]]
    model = Punctuator.load(trained_switching, device="cpu")
    deleted, _ = convert("disf", model, None, lines)
    cascade, seconds = convert("disf>punc", model, model, lines)
    assert seconds > 0
    for line, first, final in zip(lines, deleted, cascade):
        assert [f is None for f in first] == [f is None for f in final]  # the second pass deletes nothing more
        assert [f.lower().strip(",.?") for f in final if f] == [w for w, f in zip(line, first) if f]
    rule, _ = convert("rule", None, None, [["uh", "so", "Um,", "we"]])
    assert rule == [[None, "so", None, "we"]]
    assert text_scores(["So we went."], ["So we went."])["bleu"] == pytest.approx(100.0)
    assert text_scores(["so we went"], ["So we went."])["bleu"] < 50


def test_evaluate_switching_script(trained_switching, switching_data, tmp_path):
    """The Table 2 script on a tiny data folder: every row scored, figures written."""
    import json

    pairs = switching_data["joint_pairs"][:12]
    for name, targets in (("joint.dev", [t for _, t in pairs]), ("swbd.dev", None)):
        (tmp_path / f"{name}.src").write_text("".join(s + "\n" for s, _ in pairs), encoding="utf-8")
        fluent = targets or [" ".join(w for w in s.split() if w not in FILLERS) for s, _ in pairs]
        (tmp_path / f"{name}.tgt").write_text("".join(t + "\n" for t in fluent), encoding="utf-8")
        (tmp_path / f"{name}.del").write_text("".join(" ".join("1" if w in FILLERS else "0" for w in s.split()) + "\n"
                                                      for s, _ in pairs), encoding="utf-8")
    out = tmp_path / "table.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "report", "evaluate_switching.py"), "--data", str(tmp_path),
                           "--switching", trained_switching, "--punc_model", trained_switching, "--swbd_sets", "swbd.dev",
                           "--ted_dev", switching_data["dev"], "--tune_data", str(tmp_path), "--tune_lines", "6",
                           "--oracle", "--out", str(out)], capture_output=True, text=True,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    rows = {r["row"]: r for r in report["joint"]}
    assert rows["switching joint (zero-shot)"]["deletion"]["f1"] > 90
    assert {"bleu", "gleu", "words_per_s", "punct"} <= set(rows["switching cascade disf>punc"])
    assert [r["row"] for r in report["deletion"]["swbd.dev"]] == ["switching", "uh/um rule"]
    assert report["deletion"]["swbd.dev"][1]["deletion"]["f1"] < 100  # "er" is not uh/um
    assert report["ted_dev"]["switching"]["f1"] > 80
    assert set(report["tuned"]) == {r["row"] for r in report["joint"]} - {"switching cascade punc>disf"}
    assert len(report["oracle"]) == 4 and all(r["deletion"]["f1"] == 100.0 for r in report["oracle"])


def test_oracle_modes_take_the_gold_deletions(trained_switching, switching_data):
    """With gold deletions imposed, every oracle mode deletes exactly the gold words, whatever the model or the
    line's error probability (a threshold no word reaches); the joint pass keeps its own marks elsewhere."""
    from gector_punct.model.config import DecodeConfig
    from gector_punct_data.conversion import convert
    lines = [s.split() for s, _ in switching_data["joint_pairs"][:20]]
    gold = [[w in FILLERS for w in line] for line in lines]
    gold[0] = [True] + gold[0][1:]  # a word the model would keep
    model = Punctuator.load(trained_switching, device="cpu")
    joint, _ = convert("joint", model, None, lines)
    for mode in ("gold>punc", "joint@gold", "punc@gold"):
        forms, _ = convert(mode, model, None, lines, gold)
        assert [[f is None for f in line] for line in forms] == gold, mode
    forms, _ = convert("joint@gold", model, None, lines, gold)
    same = [(a, b) for fl, jl, gl in zip(forms, joint, gold) for a, b, g in zip(fl, jl, gl) if not g and b is not None]
    assert sum(a == b for a, b in same) > 0.9 * len(same)
    model.decode_config = DecodeConfig(min_error_probability=1.01)
    forms, _ = convert("punc@gold", model, None, lines, gold)
    assert [[f is None for f in line] for line in forms] == gold
    with pytest.raises(ValueError, match="gold"):
        convert("joint@gold", model, None, lines)


def test_deletion_is_decided_against_everything_else(encoder_name):
    """With disf a word goes when P($DELETE) beats all the other labels together (the decision the
    disfluency data teaches: a kept word's target is only "not deleted"), not when it beats the likeliest
    single label, and not against $KEEP with its confidence bonus; ``deletion_threshold`` moves the bar."""
    from gector_punct.model.config import DecodeConfig

    names = [KEEP, "$APPEND_,", "$APPEND_.", DELETE]
    vocab = Vocabulary({"labels": names, "case_tags": [KEEP], "d_tags": ["CORRECT", "INCORRECT"]})
    model = tiny_tagger(vocab, switches=("disf", "punc")).eval()
    words = [["so", "uh", "we", "went"]]
    for tasks in ("disf,punc", "disf"):
        punctuator = Punctuator([model], tasks=parse_tasks(tasks), device="cpu")
        probs = punctuator.probabilities(words)
        labels = probs[PUNCT_HEAD.name].copy()
        columns = [punctuator.names[PUNCT_HEAD.name].index(n) for n in names]
        rows = {0: [0.6, 0.0, 0.0, 0.4], 1: [0.3, 0.25, 0.0, 0.45], 2: [0.4, 0.05, 0.0, 0.55], 3: [1.0, 0.0, 0.0, 0.0]}
        for k, values in rows.items():
            labels[k, columns] = values
        decode = DecodeConfig(additional_confidence=0.2, min_error_probability=0.0)
        probs = dict(probs, **{PUNCT_HEAD.name: labels})
        deleted = [t.deletes for t in punctuator.decode(words, probs, decode)[0]]
        assert deleted == [False, False, True, False], (tasks, deleted)
        strict = punctuator.decode(words, probs, decode.overridden(deletion_threshold=0.6))[0]
        assert not any(t.deletes for t in strict)


def test_off_tasks_unchanged_teaches_the_words_that_stay_their_tags(switching_data):
    """With punc off a word that stays is taught only "not deleted" (NOT_DELETED) by default; with
    off_tasks="unchanged" its whole tag (no mark added: seed 001's reading of an off switch). A deleted word
    is taught $DELETE either way, and a disfluency kept in a punctuation set teaches nothing either way."""
    from gector_punct.dataset.reader import word_labels
    from gector_punct.model.vocabulary import IGNORE, NOT_DELETED
    disf = DatasetReader().read(switching_data["disf"])
    vocab = Vocabulary.from_tags(i.tags for i in disf)
    line = next(i for i in disf if any(t.deletes for t in i.tags))
    expected = [vocab.encode_tag(t) for t in line.tags]
    untaught = word_labels(vocab, line.words, line.tags, line.tasks)
    unchanged = word_labels(vocab, line.words, line.tags, line.tasks, "unchanged")
    for tag, want, a, b in zip(line.tags, expected, untaught, unchanged):
        if tag.deletes:
            assert a[:3] == b[:3] == (want[0], IGNORE, IGNORE)
        else:
            assert a[:3] == (NOT_DELETED, IGNORE, IGNORE) and b[:3] == want
            assert want[0] == vocab.index(PUNCT_HEAD.namespace, KEEP)
    kept_disfluency = word_labels(vocab, line.words, line.tags, parse_tasks("punc"), "unchanged")
    assert all(lab[:3] == (IGNORE,) * 3 for lab, t in zip(kept_disfluency, line.tags) if t.deletes)
    with pytest.raises(ValueError, match="off_tasks"):
        DatasetReader(off_tasks="kept")


def test_taught_unchanged_the_joint_mode_punctuates_nothing(switching_data, encoder_name, tmp_path):
    """Why an off task is untaught by default: taught "unchanged" (every kept word of the disfluency set
    teaches no mark, seed 001's way, its no-conversion set drawn in full), the model learns that disf on
    means no marks, and the zero-shot joint mode punctuates almost nothing (the default: > 80, above)."""
    d = switching_data
    train(TrainOptions(train_set=",".join([d["disf"], d["punc"], d["none"]]), dev_set=d["dev"] + "," + d["disf_dev"],
                       model_dir=str(tmp_path), transformer_model=encoder_name, encoder_config=TINY_ENCODER,
                       switches=("disf", "punc"), off_tasks="unchanged", n_epoch=8, lr=3e-3, batch_size=16,
                       max_len=64, patience=8, progress=False, seed=3))
    instances = DatasetReader().read(d["joint"])
    punctuator = Punctuator.load(str(tmp_path / "best"), tasks=parse_tasks("disf,punc"), device="cpu")
    result = score_conversion(instances, punctuator.predict_tags([i.words for i in instances]))
    assert result["deletion"]["f1"] > 95 and result["punct"]["overall"]["f1"] < 30, result["punct"]["overall"]

def test_no_conversion_lines_are_drawn_when_they_teach(switching_data):
    """A no-conversion line (no task on) teaches nothing by default and is never drawn; taught "unchanged" it
    is drawn every epoch whatever tn_prob, while lines with a task on and nothing to change keep GECToR's
    tn_prob (0 here: never)."""
    import random
    instances = [i for name in ("none", "disf") for i in DatasetReader().read(switching_data[name])[:20]]
    instances[-1] = Instance(instances[-1].words, [Tag() for _ in instances[-1].words], tasks=parse_tasks("disf"))
    vocab = Vocabulary.from_tags(i.tags for i in instances)
    model = tiny_tagger(vocab, switches=("disf", "punc"))
    drawn = {}
    for off in ("untaught", "unchanged"):
        reader = DatasetReader(tn_prob=0.0, off_tasks=off)
        data = reader.encode(instances, model.text_encoder(), vocab, ("disf", "punc"))
        chosen = set(data.sample(random.Random(0)))
        drawn[off] = [bool(set(group) & chosen) for group in data.groups]
    with_deletion = [any(t.deletes for t in i.tags) for i in instances[20:]]
    assert any(with_deletion) and not with_deletion[-1]
    assert drawn["untaught"] == [False] * 20 + with_deletion
    assert drawn["unchanged"] == [True] * 20 + with_deletion


def test_class_weights_do_not_depend_on_what_off_tasks_teach(switching_data):
    """The punctuation labels' class weights count marks where punc is on: teaching "unchanged" with punc off
    (many more $KEEP targets) must not change them."""
    from gector_punct.training.trainer import label_weights
    instances = [i for name in ("disf", "punc", "none") for i in DatasetReader().read(switching_data[name])[:40]]
    vocab = Vocabulary.from_tags(i.tags for i in instances)
    model = tiny_tagger(vocab, switches=("disf", "punc"))
    weights = [label_weights(DatasetReader(off_tasks=off).encode(instances, model.text_encoder(), vocab,
                                                                ("disf", "punc")), vocab, 0.5)
               for off in ("untaught", "unchanged")]
    assert torch.equal(weights[0], weights[1])
    assert float(weights[0][vocab.index(PUNCT_HEAD.namespace, DELETE)]) > 1.0
