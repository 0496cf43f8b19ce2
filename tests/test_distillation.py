"""Single-task teachers distilled into a switching model (gector_punct.training.distillation): the teacher reads the
student's window as its own, labels are matched by name, only the switched-on task learns from its
teacher, and a weight of 0 leaves the gold loss exactly as it was."""
import json
import os
from dataclasses import replace

import pytest
import torch

from conftest import TINY_ENCODER, tiny_tagger
from gector_punct.model.batch import Batch
from gector_punct.training.distillation import Teachers, _soft_label_loss
from gector_punct.model.windows import collate
from gector_punct.model.tagger import Seq2Labels
from gector_punct.text.tags import DELETE, KEEP
from gector_punct.training.trainer import TrainOptions, train
from gector_punct.model.vocabulary import IGNORE, NOT_DELETED, PUNCT_HEAD, Vocabulary

WORDS = [["so", "uh", "we", "went", "to", "paris", "alpha", "time"], ["omega", "london", "is", "green"]]


def vocab_of(labels):
    return Vocabulary({"labels": labels, "case_tags": [KEEP, "$TRANSFORM_CASE_CAPITAL"],
                       "d_tags": ["CORRECT", "INCORRECT"]})


def test_teacher_reads_the_window_as_if_it_had_no_switches():
    """The student's windows carry two switch slots; stripped, the teacher must give exactly the
    probabilities it gives on its own windows of the same words."""
    torch.manual_seed(0)
    teacher = tiny_tagger(vocab_of([KEEP, "$APPEND_,", "$APPEND_.", DELETE])).eval()
    student = tiny_tagger(vocab_of([KEEP, "$APPEND_.", DELETE, "$APPEND_,"]), switches=("disf", "punc"))
    teachers = Teachers({"disf": teacher}, student, weight=0.5, anneal=False)
    batch = Batch.of(collate(student.text_encoder().encode_lines(WORDS, (1, 0))))
    assert batch.input_ids.shape[1] == collate(teacher.text_encoder().encode_lines(WORDS))["input_ids"].shape[1] + 2
    through_student = teachers._teacher_probs(teacher, batch, torch.arange(2))
    own = teacher(Batch.of(collate(teacher.text_encoder().encode_lines(WORDS))))[PUNCT_HEAD.probs_key]
    mask = batch.word_mask
    assert torch.allclose(through_student[mask], own[mask], atol=1e-6)


def test_soft_labels_move_onto_the_student_labels_by_name():
    teacher_probs = torch.tensor([[[0.2, 0.5, 0.3]]])  # KEEP, $APPEND_,, $APPEND_.
    teacher = tiny_tagger(vocab_of([KEEP, "$APPEND_,", "$APPEND_."]))
    student = tiny_tagger(vocab_of([KEEP, "$APPEND_.", DELETE, "$APPEND_,"]))
    from gector_punct.training.distillation import _label_map

    label_map = _label_map(teacher, student)
    assert label_map.tolist() == [0, 3, 1]
    log_p = torch.log(torch.tensor([[[0.1, 0.6, 0.0, 0.3]]]))  # $DELETE ruled out: -inf
    loss = _soft_label_loss(log_p, teacher_probs, label_map)
    log = torch.log(torch.tensor([0.1, 0.6, 0.3]))
    expected = -(0.2 * log[0] + 0.3 * log[1] + 0.5 * log[2])
    assert torch.allclose(loss, expected.reshape(1, 1)) and torch.isfinite(loss).all()


def test_only_the_switched_on_task_learns_from_its_teacher():
    torch.manual_seed(1)
    labels = [KEEP, "$APPEND_,", "$APPEND_.", DELETE]
    teachers_by_task = {t: tiny_tagger(vocab_of(labels)).eval() for t in ("disf", "punc")}
    student = tiny_tagger(vocab_of(labels), switches=("disf", "punc"))
    teachers = Teachers(teachers_by_task, student, weight=0.5, anneal=False)
    encoder = student.text_encoder()
    counts = {}
    for states in ((1, 0), (0, 1), (0, 0)):
        batch = Batch.of(collate(encoder.encode_lines(WORDS, states)))
        target = torch.zeros_like(batch.word_starts).masked_fill(~batch.word_mask, IGNORE)
        out = student(batch)
        total, counts[states] = teachers.loss_sum(replace(batch, targets={PUNCT_HEAD.target_key: target}), out)
        if states != (0, 0):
            student.zero_grad()
            total.backward()
            assert student.switch_embedding.weight.grad.abs().sum() > 0
    words = int(sum(len(w) for w in WORDS))
    assert counts == {(1, 0): words, (0, 1): words, (0, 0): 0}
    assert teachers.term_weights(3, 0, 0.3).tolist() == [0.5, 1.0, 1.0, 0.5]
    annealed = Teachers(teachers_by_task, student, weight=0.8, anneal=True)
    assert torch.allclose(annealed.term_weights(3, 0, 0.25), torch.tensor([0.4, 1.0, 1.0, 0.6]))
    with pytest.raises(ValueError, match="switches"):
        Teachers(teachers_by_task, tiny_tagger(vocab_of(labels)), weight=0.5, anneal=False)


def test_teachers_weigh_the_training_loss(switching_data, encoder_name, tmp_path):
    """Trained with teachers at weight 0 the run is the run without them, loss for loss; at weight 1 the
    punctuation loss is the teachers' alone, and the losses differ."""
    d = switching_data
    teacher_dirs = []
    for task in ("disf", "punc"):
        torch.manual_seed(7)
        folder = str(tmp_path / task)
        tiny_tagger(vocab_of([KEEP, "$APPEND_,", "$APPEND_.", "$APPEND_?", DELETE])).save(folder)
        teacher_dirs.append(f"{task}={folder}")
    losses = {}
    for name, extra in (("plain", {}), ("w0", {"teachers": ",".join(teacher_dirs), "distill_weight": 0.0}),
                        ("w1", {"teachers": ",".join(teacher_dirs), "distill_weight": 1.0})):
        model_dir = str(tmp_path / name)
        train(TrainOptions(train_set=",".join([d["disf"], d["punc"], d["none"]]), dev_set=d["dev"], model_dir=model_dir,
                           transformer_model=encoder_name, encoder_config=TINY_ENCODER, switches=("disf", "punc"),
                           n_epoch=1, updates_per_epoch=3, lr=3e-3, batch_size=8, max_len=64, progress=False, seed=3,
                           **extra))
        with open(os.path.join(model_dir, "metrics.jsonl"), encoding="utf-8") as f:
            losses[name] = json.loads(f.readline())["train_loss"]
    assert losses["w0"] == pytest.approx(losses["plain"], rel=1e-6)
    assert losses["w1"] != pytest.approx(losses["plain"], rel=1e-3)
    assert Seq2Labels.load(os.path.join(str(tmp_path / "w1"), "best")).config.switches == ("disf", "punc")


def test_marks_with_disf_teach_the_words_that_stay():
    """With ``marks_with_disf`` the punc teacher also teaches, in a window with disf on, the marks of the
    words whose gold target is NOT_DELETED (never of a deleted word), given that the word stays: the student's
    $DELETE is out of that distribution, so its mass cannot absorb the teacher's marks."""
    torch.manual_seed(2)
    labels = [KEEP, "$APPEND_,", "$APPEND_.", DELETE]
    punc = tiny_tagger(vocab_of([KEEP, "$APPEND_,", "$APPEND_."])).eval()
    student = tiny_tagger(vocab_of(labels), switches=("disf", "punc"))
    batch = Batch.of(collate(student.text_encoder().encode_lines(WORDS, (1, 0))))
    delete = student.vocab.index(PUNCT_HEAD.namespace, DELETE)
    target = torch.full_like(batch.word_starts, NOT_DELETED).masked_fill(~batch.word_mask, IGNORE)
    target[0, 1] = delete  # "uh"
    out = student(batch)
    batch = replace(batch, targets={PUNCT_HEAD.target_key: target})
    plain = Teachers({"punc": punc}, student, weight=0.5, anneal=False)
    assert plain.loss_sum(batch, out)[1] == 0  # punc is off in this window: nothing to teach
    marks = Teachers({"punc": punc}, student, weight=0.5, anneal=False, marks_with_disf=True)
    total, count = marks.loss_sum(batch, out)
    assert count == sum(len(w) for w in WORDS) - 1 and torch.isfinite(total)
    student.zero_grad()
    total.backward()
    assert student.heads[PUNCT_HEAD.name].bias.grad[delete] == 0  # the deletion decision is not touched


def test_the_disf_teacher_teaches_its_deletion_probability():
    """The disf term is the binary cross-entropy of the teacher's P($DELETE) against the student's, word by
    word (labels in other orders in the two vocabularies)."""
    torch.manual_seed(3)
    teacher = tiny_tagger(vocab_of([KEEP, DELETE, "$APPEND_,"])).eval()
    student = tiny_tagger(vocab_of([KEEP, "$APPEND_,", "$APPEND_.", DELETE]), switches=("disf", "punc"))
    teachers = Teachers({"disf": teacher}, student, weight=0.5, anneal=False)
    batch = Batch.of(collate(student.text_encoder().encode_lines(WORDS, (1, 0))))
    out = student(batch)
    batch = replace(batch, targets={PUNCT_HEAD.target_key: torch.zeros_like(batch.word_starts).masked_fill(
        ~batch.word_mask, IGNORE)})
    total, count = teachers.loss_sum(batch, out)
    q = teachers._teacher_probs(teacher, batch, torch.arange(2))[..., 1]
    p = out[PUNCT_HEAD.probs_key][..., 3]
    mask = batch.word_mask
    expected = -(q * p.log() + (1 - q) * (1 - p).log())[mask].sum()
    assert count == int(mask.sum()) and torch.allclose(total, expected, rtol=1e-4)


def test_punc_teacher_reads_a_disf_window_fluent():
    """With ``marks_with_disf`` the punc teacher reads a disf window without the words the gold data deletes:
    at every word that stays it gives exactly what it gives on the fluent line itself; a deleted word gets
    nothing (and is not taught)."""
    torch.manual_seed(4)
    labels = [KEEP, "$APPEND_,", "$APPEND_.", DELETE]
    teacher = tiny_tagger(vocab_of(labels)).eval()
    student = tiny_tagger(vocab_of(labels), switches=("disf", "punc"))
    teachers = Teachers({"punc": teacher}, student, weight=0.5, anneal=False, marks_with_disf=True)
    batch = Batch.of(collate(student.text_encoder().encode_lines(WORDS, (1, 0))))
    dropped = torch.zeros_like(batch.word_mask)
    dropped[0, 1] = dropped[1, 0] = True  # "uh"; "omega"
    through_student = teachers._teacher_probs(teacher, batch, torch.arange(2), dropped)
    fluent = [[w for j, w in enumerate(line) if not dropped[i, j]] for i, line in enumerate(WORDS)]
    own = teacher(Batch.of(collate(teacher.text_encoder().encode_lines(fluent))))[PUNCT_HEAD.probs_key]
    for i, line in enumerate(WORDS):
        kept = [j for j in range(len(line)) if not dropped[i, j]]
        assert torch.allclose(through_student[i, kept], own[i, :len(kept)], atol=1e-6)
        assert float(through_student[i, dropped[i]].abs().sum()) == 0.0
    # loss_sum reads it fluent too: the words that stay (gold NOT_DELETED) learn the fluent probabilities
    delete = student.vocab.index(PUNCT_HEAD.namespace, DELETE)
    out = student(batch)
    batch = replace(batch, targets={PUNCT_HEAD.target_key: torch.full_like(batch.word_starts, NOT_DELETED).masked_fill(
        dropped, delete).masked_fill(~batch.word_mask, IGNORE)})
    total, count = teachers.loss_sum(batch, out)
    from gector_punct.training.distillation import _label_map, _without
    taught = batch.word_mask & ~dropped
    expected = _soft_label_loss(_without(out[PUNCT_HEAD.logits_key], delete).log_softmax(-1), through_student,
                                _label_map(teacher, student))[taught].sum()
    assert count == int(taught.sum()) and torch.allclose(total, expected, rtol=1e-5)
