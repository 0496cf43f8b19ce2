"""A tagger on the encoder's first N layers (``ModelConfig.encoder_layers``): cut at creation or from a trained
model (``--encoder_layers`` with ``--init_model``), stored over the whole installed encoder (its fingerprint
the whole encoder's, so a later uncut model still loads), the same probabilities from transformers, the
plain-torch encoder and the ONNX graph, and a graph of its own in the cache."""
import os

import numpy as np
import pytest
import torch

from conftest import same_probabilities
from test_light import tiny_mpnet  # noqa: F401 (fixture: a pretrained-encoder folder, 2 layers)
from gector_punct.engines.graphs import graph_key
from gector_punct.model.config import read_config
from gector_punct.model.storage import base_fingerprint
from gector_punct.model.tagger import ModelConfig, Seq2Labels
from gector_punct.model.vocabulary import Vocabulary
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.training.fine_tuning import adjust

VOCAB = {"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
         "d_tags": ["CORRECT", "INCORRECT"]}
LINES = ["so i went to new york last tuesday did you", "x " * 90, "ok"]


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))


def trained_over(encoder_folder: str) -> Seq2Labels:
    """A tagger over the pretrained folder with every encoder weight moved (as training would)."""
    torch.manual_seed(3)
    tagger = Seq2Labels.create(Vocabulary(VOCAB), ModelConfig(transformer_model=encoder_folder, max_len=32))
    with torch.no_grad():
        for name, param in tagger.encoder.named_parameters():
            if ".layer." in name:
                param.add_(torch.randn_like(param) * 0.05)
    return tagger


def test_a_cut_model_reads_the_first_layers_and_loads_alike_everywhere(tiny_mpnet, cache, tmp_path):
    tagger = trained_over(tiny_mpnet)
    first_layer = tagger.encoder.encoder.layer[0].state_dict()
    from transformers import AutoModel

    whole = base_fingerprint(AutoModel.from_pretrained(tiny_mpnet).state_dict())  # the installed encoder's
    adjust(tagger, encoder_layers=1)
    assert len(tagger.encoder.encoder.layer) == 1 and tagger.encoder.config.num_hidden_layers == 1
    assert all(torch.equal(v, first_layer[k]) for k, v in tagger.encoder.encoder.layer[0].state_dict().items())
    folder = str(tmp_path / "cut")
    tagger.save(folder, lowrank=4)
    config, storage = read_config(folder)
    assert config.encoder_layers == 1 and storage.partial
    assert storage.base_fingerprint == whole  # stored over the whole installed encoder, not over a cut copy
    light = Punctuator.load(folder, engine="torch", device="cpu")
    heavy = Punctuator([Seq2Labels.load(folder)], device="cpu", case_forms=light.case_forms)  # transformers
    assert len(heavy.models[0].encoder.encoder.layer) == 1 and len(light.models[0].encoder.encoder.layer) == 1
    same_probabilities(heavy, light, LINES, atol=1e-5)
    onnx = Punctuator.load(folder, engine="onnx", precision="float32")
    same_probabilities(light, onnx, LINES, atol=1e-4)
    # The uncut model over the same installed encoder still loads (its fingerprint was not replaced by a cut one).
    uncut = str(tmp_path / "uncut")
    trained_over(tiny_mpnet).save(uncut, lowrank=4)
    assert len(Punctuator.load(uncut, engine="torch", device="cpu").models[0].encoder.encoder.layer) == 2
    assert graph_key(folder, config, storage, "float32")["key"] != \
        graph_key(uncut, *read_config(uncut), "float32")["key"]


def test_a_cut_differs_from_the_whole_encoder_and_a_model_cannot_grow_layers(tiny_mpnet, cache):
    tagger = trained_over(tiny_mpnet)
    batch = tagger.text_encoder().encode_lines([LINES[0].split()])
    from gector_punct.model.windows import collate

    inputs = collate(batch, tagger.pad_id)
    whole = tagger.encoder(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).last_hidden_state
    adjust(tagger, encoder_layers=2)  # as many as it has: nothing cut (a control run asks so)
    assert len(tagger.encoder.encoder.layer) == 2
    adjust(tagger, encoder_layers=1)
    cut = tagger.encoder(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).last_hidden_state
    assert not np.allclose(whole.detach().numpy(), cut.detach().numpy(), atol=1e-3)
    with pytest.raises(ValueError, match="encoder_layers"):
        adjust(tagger, encoder_layers=2)
    with pytest.raises(ValueError, match="encoder_layers 0"):
        ModelConfig(encoder_layers=0)


def test_a_new_model_on_a_cut_encoder_answers_for_the_whole_encoder(tiny_mpnet, cache):
    """The fingerprint is taken before the cut (a cut one, remembered in the cache, would refuse every uncut
    model over the same encoder)."""
    from transformers import AutoModel

    tagger = Seq2Labels.create(Vocabulary(VOCAB), ModelConfig(transformer_model=tiny_mpnet, encoder_layers=1))
    assert len(tagger.encoder.encoder.layer) == 1
    assert tagger.base_fingerprint == base_fingerprint(AutoModel.from_pretrained(tiny_mpnet).state_dict())


def test_train_cuts_an_init_models_top_layers(trained_tiny, learnable_data, tmp_path):
    from gector_punct.training.trainer import TrainOptions, train

    options = TrainOptions(train_set=learnable_data["train"], dev_set=learnable_data["dev"], model_dir=str(tmp_path / "m"),
                           init_model=os.path.join(trained_tiny["dir"], "best"), encoder_layers=1, n_epoch=1, lr=1e-3, batch_size=16,
                           progress=False, seed=3)
    train(options)
    best = os.path.join(options.model_dir, "best")
    config, _ = read_config(best)
    assert config.encoder_layers == 1 and config.encoder_config["num_hidden_layers"] == 1
    model = Seq2Labels.load(best)
    assert len(model.encoder.encoder.layer) == 1
    assert read_config(os.path.join(trained_tiny["dir"], "best"))[0].encoder_config["num_hidden_layers"] == 2
