"""Case that follows the punctuation: the mark context of the word before (tags.mark_context), the case
head conditioned on it (ModelConfig.case_context), the decoder choosing each word's case once the word
before is punctuated, and the guarantee that a sentence end the tagger adds is followed by a capital."""
import os
from dataclasses import replace

import numpy as np
import torch
from conftest import tiny_tagger

from gector_punct.model.batch import Batch
from gector_punct.model.windows import collate
from gector_punct.model.tagger import Seq2Labels
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import (CAPITAL, END_CONTEXT, KEEP, MARK_CONTEXTS, NONE_CONTEXT, PAUSE_CONTEXT, START_CONTEXT,
                               Tag, apply_tags, capitalise_sentence_starts, mark_context)
from gector_punct.training.fine_tuning import adjust
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD, Vocabulary

PERIOD, COMMA = "$APPEND_.", "$APPEND_,"


def small_vocab() -> Vocabulary:
    return Vocabulary({PUNCT_HEAD.namespace: [KEEP, PERIOD, COMMA], CASE_HEAD.namespace: [KEEP, CAPITAL],
                       DETECT_HEAD.namespace: ["CORRECT", "INCORRECT"]})


def test_mark_context_reads_how_the_written_word_ends():
    assert [mark_context(w) for w in ("word", "word,", "word.", 'word."', "word?)", "word;", "(word")] == [
        NONE_CONTEXT, PAUSE_CONTEXT, END_CONTEXT, END_CONTEXT, END_CONTEXT, PAUSE_CONTEXT, NONE_CONTEXT]
    # A dotted acronym's own last period is part of the word: "the U.S. economy" is one sentence.
    assert [mark_context(w) for w in ("U.S.", "a.m.", "U.S.,", "U.S.?", '(U.S.)', "U.S")] == [
        NONE_CONTEXT, NONE_CONTEXT, PAUSE_CONTEXT, END_CONTEXT, PAUSE_CONTEXT, NONE_CONTEXT]


def test_a_sentence_end_the_tagger_adds_is_followed_by_a_capital():
    words = "so i went there it was e.g. fine".split()
    tags = [Tag(), Tag(), Tag(), Tag.parse(PERIOD), Tag(), Tag(), Tag(), Tag.parse(PERIOD)]
    assert apply_tags(words, capitalise_sentence_starts(words, tags)) == "so i went there. It was e.g. fine."
    deleted = [Tag.parse(PERIOD), Tag(deletes=True), Tag()]  # a deleted word hands the capital on
    assert apply_tags(["yes", "uh", "we"], capitalise_sentence_starts(["yes", "uh", "we"], deleted)) == "yes. We"
    numbers = capitalise_sentence_starts(["end", "2.1%", "rise"], [Tag.parse(PERIOD), Tag(), Tag()])
    assert numbers[1] == Tag() and numbers[2] == Tag()  # no letter to capitalise; the next word is no sentence start


def test_decode_takes_each_words_case_from_the_context_its_predecessor_gets():
    punctuator = Punctuator([tiny_tagger(small_vocab())], device="cpu")
    words = ["a", "b", "c", "d"]
    punct = np.array([[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1], [0.8, 0.1, 0.1]], dtype=np.float32)  # a. b, c d
    case = np.zeros((4, len(MARK_CONTEXTS), 2), dtype=np.float32)
    case[:, START_CONTEXT] = [0.9, 0.1]
    case[:, END_CONTEXT] = [0.2, 0.8]
    case[:, PAUSE_CONTEXT] = [0.9, 0.1]
    case[:, NONE_CONTEXT] = [0.3, 0.7]  # unnatural on purpose: shows which row was read
    detect = np.array([[0.1, 0.9]] * 4, dtype=np.float32)
    (tags,) = punctuator.decode([words], {PUNCT_HEAD.name: punct, CASE_HEAD.name: case, DETECT_HEAD.name: detect})
    assert apply_tags(words, tags) == "a. B, c D"


def test_a_case_context_model_gives_one_case_distribution_per_context(tmp_path):
    torch.manual_seed(0)
    plain = tiny_tagger(small_vocab()).eval()
    batch = Batch.of(collate([w for w in plain.text_encoder().encode_lines([["alpha", "beta", "gamma"]])]))
    before = plain(batch)[CASE_HEAD.probs_key]
    adjust(plain, case_context=True)  # switched on for a trained model: a no-op until trained
    assert plain.config.case_context and plain.mark_embedding is not None
    table = plain(batch)[CASE_HEAD.probs_key]
    assert table.shape == before.shape[:2] + (len(MARK_CONTEXTS),) + before.shape[2:]
    assert torch.allclose(table, before.unsqueeze(2).expand_as(table))
    with torch.no_grad():
        plain.mark_embedding.weight.normal_()
    given = plain(replace(batch, prev_mark=torch.full(before.shape[:2], END_CONTEXT)))[CASE_HEAD.probs_key]
    assert torch.allclose(given, plain(batch)[CASE_HEAD.probs_key][:, :, END_CONTEXT])
    assert not torch.allclose(given, before)
    plain.save(str(tmp_path / "m"))
    again = Seq2Labels.load(str(tmp_path / "m"))
    assert again.config.case_context and torch.equal(again.mark_embedding.weight, plain.mark_embedding.weight)


def test_training_batches_carry_the_gold_context_of_the_word_before(learnable_data, encoder_name):
    from gector_punct.model.windows import TextEncoder, load_tokenizer
    from gector_punct.dataset.reader import DatasetReader

    reader = DatasetReader()
    instances = reader.read(learnable_data["dev"])
    vocab = Vocabulary.from_tags(i.tags for i in instances)
    data = reader.encode(instances, TextEncoder(load_tokenizer(encoder_name), 128, 5), vocab)
    batch = collate(data.windows[:8], labels=data.labels[:8])
    for row, window in enumerate(data.windows[:8]):
        instance = data.instances[window.line]
        written = [t.apply(w) for w, t in zip(instance.words, instance.tags)][window.start: window.end]
        expected = [START_CONTEXT] + [mark_context(w) for w in written[:-1]]
        assert batch["prev_mark"][row, : len(written)].tolist() == expected
    assert (batch["prev_mark"] == END_CONTEXT).any() and (batch["prev_mark"] == PAUSE_CONTEXT).any()


def test_training_a_case_context_model_end_to_end(learnable_data, tmp_path):
    from conftest import TINY_ENCODER

    from gector_punct.training.trainer import TrainOptions, train

    best = train(TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"],
                              model_dir=str(tmp_path / "run"), encoder_config=TINY_ENCODER, case_context=True,
                              n_epoch=1, batch_size=8, lr=1e-3, progress=False, device="cpu"))
    assert "case" in best
    model = Seq2Labels.load(os.path.join(tmp_path, "run", "best"))
    assert model.config.case_context and model.mark_embedding.weight.abs().sum() > 0  # it was trained
