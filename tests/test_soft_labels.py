"""A stored teacher (gector_punct.training.soft_labels): labelling writes shards a killed run resumes, a
share of the labelled file finds its lines' labels by their words, labels move onto the student's by name,
and a student trained on them comes closer to its teacher than one trained on the gold labels alone."""
import os
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gector_punct.dataset.reader import DatasetReader
from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import PUNCT_HEAD, Vocabulary
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.files import InputError
from gector_punct.training import soft_labels
from gector_punct.training.soft_labels import SoftLabels, label_file, soft_cross_entropy
from gector_punct.training.trainer import TrainOptions, train
from conftest import TINY_ENCODER, learnable_pairs, write_tagged


@pytest.fixture(scope="module")
def teacher(trained_tiny):
    return Punctuator([Seq2Labels.load(os.path.join(trained_tiny["dir"], "best"))], device="cpu")


def test_labelling_resumes_and_refuses_another_run_s_folder(teacher, learnable_data, tmp_path, monkeypatch):
    folder = label_file(teacher, learnable_data["train"], str(tmp_path), "tiny", k=4, shard_lines=120, log=str)
    shards = sorted(f for f in os.listdir(folder) if f.endswith(".npz"))
    assert shards == ["shard-00000.npz", "shard-00001.npz", "shard-00002.npz"]  # 300 lines
    os.remove(os.path.join(folder, shards[1]))  # as if killed while writing it
    calls = []
    real = soft_labels.shard_arrays
    monkeypatch.setattr(soft_labels, "shard_arrays", lambda p, i, k: calls.append(i[0].origin) or real(p, i, k))
    label_file(teacher, learnable_data["train"], str(tmp_path), "tiny", k=4, shard_lines=120, log=str)
    assert calls == [f"{learnable_data['train']}:121"] and len(os.listdir(folder)) == 4  # only the missing shard
    with pytest.raises(InputError, match="k differ"):
        label_file(teacher, learnable_data["train"], str(tmp_path), "tiny", k=5, shard_lines=120, log=str)
    assert set(np.load(os.path.join(folder, shards[0])).files) == set(soft_labels.ARRAYS)  # what the loader reads


def test_labelling_holds_one_shard_in_memory_and_stops_at_max_lines(teacher, learnable_data, tmp_path,
                                                                     monkeypatch):
    """A training file is larger than memory allows as instances (61,000 lines: 2.5 GB): the labeller reads it
    a shard at a time, and ``max_lines`` labels whole shards of the file's first lines."""
    monkeypatch.setattr(DatasetReader, "read", lambda *a, **k: pytest.fail("the whole file read as instances"))
    sizes = []
    real = soft_labels.shard_arrays
    monkeypatch.setattr(soft_labels, "shard_arrays", lambda p, i, k: sizes.append(len(i)) or real(p, i, k))
    folder = label_file(teacher, learnable_data["train"], str(tmp_path), "tiny", k=4, shard_lines=50,
                        max_lines=120, log=str)
    assert sizes == [50, 50, 50] and len([f for f in os.listdir(folder) if f.endswith(".npz")]) == 3
    empty = tmp_path / "empty.tagged"
    empty.write_text("\n")
    with pytest.raises(InputError, match="no instances"):
        label_file(teacher, str(empty), str(tmp_path), "tiny", log=str)


def test_a_share_finds_its_labels_on_the_student_s_labels(teacher, learnable_data, tmp_path):
    folder = label_file(teacher, learnable_data["train"], str(tmp_path), "tiny", k=64, shard_lines=100, log=str)
    instances = DatasetReader().read(learnable_data["train"])[:150]
    random.Random(0).shuffle(instances)  # a share of the file, reordered
    names = teacher.names[PUNCT_HEAD.name]
    reordered = list(reversed(names))[:-1]  # the student's labels: another order, one label missing
    vocab = Vocabulary({"labels": reordered, "case_tags": teacher.names["case"], "d_tags": ["CORRECT", "INCORRECT"]})
    stored = SoftLabels.load(folder, instances, vocab)
    assert (stored.rows >= 0).all()
    words = instances[7].words
    expected = teacher.probabilities([words])[PUNCT_HEAD.name]  # (words x teacher labels)
    row = stored.rows[7]
    for j in range(len(words)):
        index = stored.arrays["punct_index"][row + j].astype(int)
        prob = stored.arrays["punct_prob"][row + j].astype(float)
        for i, p in zip(index, prob):
            if p > 0:  # a label the student has: the teacher's probability of the same name
                assert abs(p - expected[j, names.index(reordered[i])]) < 2e-3
        assert prob.sum() == pytest.approx(1.0 - expected[j, names.index(names[0])], abs=2e-3)  # the missing one
    unknown = DatasetReader().read(learnable_data["dev"])[:3]
    assert (SoftLabels.load(folder, unknown, vocab).rows == -1).all()  # never labelled: gold alone


def test_each_window_s_words_find_their_own_labels(teacher, tmp_path):
    """Long lines take several windows: word j of a window is word start + j of its line."""
    pairs = learnable_pairs(40, 7)
    long_pairs = [tuple(" ".join(p[k] for p in pairs[i: i + 10]) for k in (0, 1)) for i in range(0, 40, 10)]
    path = write_tagged(str(tmp_path), "long", long_pairs)
    folder = label_file(teacher, path, str(tmp_path), "tiny", k=64, log=str)
    instances = DatasetReader().read(path)
    model = teacher.models[0]
    stored = SoftLabels.load(folder, instances, model.vocab)
    windows = model.text_encoder(24).encode_lines([i.words for i in instances])
    assert len(windows) > 2 * len(instances)
    rows = stored.word_rows(windows, max(len(w.word_starts) for w in windows))
    expected = teacher.probabilities([i.words for i in instances])[PUNCT_HEAD.name]
    offsets = np.cumsum([0] + [len(i.words) for i in instances])
    for r, w in enumerate(windows):
        for j, owned in enumerate(w.owned):
            assert (rows[r, j] >= 0) == owned
            if owned:
                best = stored.arrays["punct_index"][rows[r, j], 0]
                assert best == expected[offsets[w.line] + w.start + j].argmax()


def test_soft_cross_entropy_is_cross_entropy_for_one_hot_and_leaves_out_ruled_out_labels():
    logits = torch.tensor([[[2.0, 0.5, -1.0, 0.0]]])
    index, one_hot = torch.tensor([[[1, 0]]]), torch.tensor([[[1.0, 0.0]]])
    assert soft_cross_entropy(logits, index, one_hot, 1.0).item() == pytest.approx(
        F.cross_entropy(logits[0], torch.tensor([1])).item(), abs=1e-6)
    q = torch.tensor([[[0.6, 0.4]]])
    t = 2.0
    log_p = (logits / t).log_softmax(-1)[0, 0, [1, 0]]
    q_t = q[0, 0] ** (1 / t) / (q[0, 0] ** (1 / t)).sum()
    assert soft_cross_entropy(logits, index, q, t).item() == pytest.approx(-(q_t * log_p).sum().item() * t * t, abs=1e-5)
    ruled_out = logits.clone()
    ruled_out[0, 0, 1] = float("-inf")
    loss = soft_cross_entropy(ruled_out, index, q, 1.0)
    assert torch.isfinite(loss).all() and loss.item() == pytest.approx(-ruled_out.log_softmax(-1)[0, 0, 0].item(), abs=1e-5)


def mean_kl(teacher: Punctuator, student_dir: str, lines: list[list[str]]) -> float:
    """KL(teacher || student) of the punctuation head per word, labels matched by name (prediction's path);
    the student's last weights: its best by dev F1 depends on decoding rules that the pull of the soft labels
    has nothing to do with."""
    student = Punctuator([Seq2Labels.load(os.path.join(student_dir, "last"))], device="cpu")
    p, q = teacher.probabilities(lines)[PUNCT_HEAD.name], student.probabilities(lines)[PUNCT_HEAD.name]
    names_s = student.names[PUNCT_HEAD.name]
    q = q[:, [names_s.index(n) for n in teacher.names[PUNCT_HEAD.name]]]
    return float((p * (np.log(p + 1e-9) - np.log(q + 1e-9))).sum(-1).mean())


def test_a_student_on_soft_labels_comes_closer_to_its_teacher(teacher, learnable_data, encoder_name, tmp_path):
    folder = label_file(teacher, learnable_data["train"], str(tmp_path / "labels"), "tiny", k=8, log=str)
    lines = [i.words for i in DatasetReader().read(learnable_data["dev"])]
    kl = {}
    for weight in (0.0, 1.0):
        model_dir = str(tmp_path / f"w{weight}")
        train(TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=model_dir,
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, n_epoch=3, lr=3e-3,
                           batch_size=16, max_len=64, patience=6, progress=False, seed=5, soft_labels=folder,
                           distill_weight=weight))
        kl[weight] = mean_kl(teacher, model_dir, lines)
    assert kl[1.0] < 0.7 * kl[0.0], kl


def test_the_teacher_is_told_by_its_members_weights_not_its_name():
    """Labels of ensemble_en were resumed after default_en, one of its members, had been replaced: the same
    name, another teacher. The manifest now names the teacher by its members' weights."""
    import sys
    from conftest import ROOT
    from gector_punct.prediction.settings import PredictionSettings
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    import label_teacher

    def identity(*paths):
        return label_teacher.teacher_identity(PredictionSettings(model_path=list(paths)))

    models = os.path.join(ROOT, "models")
    pair = identity(os.path.join(models, "accurate_en"), os.path.join(models, "default_en"))
    assert identity("ensemble_en") == pair != identity(os.path.join(models, "accurate_en"))
    assert pair.count("sha256:") == 2
