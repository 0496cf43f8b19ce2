"""Prediction without transformers: the plain-torch BERT and the tokenizers-only tokenizer give exactly what
transformers gives, the plain-torch MPNet the same within float rounding; the light tools do not load torch;
the package's public API as a newcomer uses it."""
import os
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, same_probabilities, tiny_tagger
from gector_punct.encoders.bert import BertEncoder
from gector_punct.encoders.plain_torch import load_pretrained_encoder
from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.model.tagger import ModelConfig, Seq2Labels
from gector_punct.encoders.mpnet import MPNetEncoder, relative_position_bucket
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.model.storage import base_fingerprint
from gector_punct.model.vocabulary import Vocabulary

LINES = ["so i went to new york last tuesday did you", "", "ünïcödé wörds and McDonald's café", "x " * 300,
         "it costs 3.5 dollars e.g. at www.example.com"]
# Runs of Chinese characters are tokenized whole and read back through the tokenizer's offsets.
CJK_LINES = ["首先我要用最快的速度为大家演示一些新技术 的基础研究成果", "我们用 iPhone 手机 鬱鬰𠀀好 ok", "北" * 400]


def test_light_encoder_equals_transformers_on_the_shipped_model():
    path = os.path.join(ROOT, "models", "default_en")  # partial: low-rank deltas over the pip encoder
    light = Punctuator.load(path, engine="torch", device="cpu")
    assert isinstance(light.models[0].encoder, BertEncoder) and isinstance(light.models[0].tokenizer, LightTokenizer)
    same_probabilities(Punctuator([Seq2Labels.load(path)], device="cpu"), light, LINES)


def test_light_encoder_equals_transformers_on_chinese_with_the_multilingual_model():
    path = os.path.join(ROOT, "models", "multilingual")
    light = Punctuator.load(path, engine="torch", device="cpu")
    assert isinstance(light.models[0].tokenizer, LightTokenizer)
    same_probabilities(Punctuator([Seq2Labels.load(path)], device="cpu"), light, CJK_LINES + LINES[:2])


def test_light_encoder_equals_transformers_on_a_full_folder_with_start_token(tmp_path):
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                        "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(0)
    tiny_tagger(vocab, special_tokens_fix=1).save(str(tmp_path / "m"))
    light = Punctuator.load(str(tmp_path / "m"), engine="torch", device="cpu")
    assert isinstance(light.models[0].encoder, BertEncoder)
    assert light.encoders[0].prefix[-1] == light.models[0].tokenizer.convert_tokens_to_ids("$START")
    same_probabilities(Punctuator([Seq2Labels.load(str(tmp_path / "m"))], device="cpu"), light, LINES)


def test_light_tools_and_prediction_do_not_import_what_they_do_not_need(tmp_path):
    probe = ("import sys; import gector_punct.text.tags, gector_punct.dataset.preprocess, gector_punct.text.files; "
             "print('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT).stdout.strip() == "False"
    probe = ("import sys; from gector_punct import Punctuator; Punctuator.load().predict(['hello there']); "
             "print(sorted(m for m in ('transformers', 'sklearn') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert run.stdout.strip() == "[]", run.stderr


def test_public_api_defaults():
    shipped = Punctuator.load()  # the shipped model
    assert shipped.predict(["i think we should leave now"])[0].startswith("I think")


TINY_MPNET = {"model_type": "mpnet", "hidden_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
              "intermediate_size": 96, "vocab_size": 30527, "max_position_embeddings": 514, "layer_norm_eps": 1e-5,
              "relative_attention_num_buckets": 32}


@pytest.fixture(scope="module")
def tiny_mpnet(tmp_path_factory, encoder_name) -> str:
    """A pretrained-encoder folder: a random tiny MPNet whose relative position bias is large enough to
    matter, with an MPNet tokenizer (``<s> <pad> </s> <unk>`` first, padding id 1) on MiniLM's vocabulary."""
    from transformers import MPNetConfig, MPNetModel, MPNetTokenizer

    folder = str(tmp_path_factory.mktemp("tiny_mpnet"))
    torch.manual_seed(0)
    model = MPNetModel(MPNetConfig(**TINY_MPNET))
    with torch.no_grad():
        model.encoder.relative_attention_bias.weight.normal_(0.0, 1.0)
    model.save_pretrained(folder)
    with open(os.path.join(encoder_name, "vocab.txt"), encoding="utf-8") as f:
        words = [w for w in f.read().split("\n") if w]
    tokens = ["<s>", "<pad>", "</s>", "<unk>", *words, "<mask>"]
    MPNetTokenizer(vocab={w: i for i, w in enumerate(tokens)}).save_pretrained(folder)
    return folder


def test_plain_mpnet_equals_transformers_mpnet(tiny_mpnet):
    from transformers import MPNetModel

    heavy, light = MPNetModel.from_pretrained(tiny_mpnet).eval(), load_pretrained_encoder(tiny_mpnet).eval()
    assert isinstance(light, MPNetEncoder) and light.state_dict().keys() == heavy.state_dict().keys()
    assert base_fingerprint(light.state_dict()) == base_fingerprint(heavy.state_dict())
    offsets = torch.arange(-600, 600)
    assert torch.equal(relative_position_bucket(offsets), heavy.encoder.relative_position_bucket(offsets))
    # 300 tokens: offsets beyond max_distance 128, so every bucket; right padding (id 1) of two lengths.
    torch.manual_seed(1)
    ids, mask = torch.randint(5, 30000, (3, 300)), torch.ones(3, 300, dtype=torch.long)
    for row, length in ((1, 200), (2, 12)):
        ids[row, length:], mask[row, length:] = 1, 0
    with torch.inference_mode():
        for inputs in ({"input_ids": ids}, {"inputs_embeds": heavy.embeddings.word_embeddings(ids)}):
            expected = heavy(**inputs, attention_mask=mask).last_hidden_state
            assert torch.allclose(light(**inputs, attention_mask=mask).last_hidden_state, expected, rtol=0, atol=1e-5)


@pytest.fixture(scope="module")
def tiny_mpnet_tagger(tiny_mpnet, tmp_path_factory) -> str:
    """A partial model folder: a tagger over ``tiny_mpnet`` whose encoder changed, stored as rank-4 deltas."""
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                        "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(2)
    tagger = Seq2Labels.create(vocab, ModelConfig(transformer_model=tiny_mpnet, max_len=64))
    with torch.no_grad():
        for name, param in tagger.encoder.named_parameters():
            if ".layer." in name:
                param.add_(torch.randn_like(param) * 0.05)
    folder = str(tmp_path_factory.mktemp("tiny_mpnet_tagger") / "model")
    tagger.save(folder, lowrank=4)
    return folder


def test_light_mpnet_equals_transformers_on_a_partial_folder(tiny_mpnet, tiny_mpnet_tagger, tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))  # the base fingerprint computed afresh
    weights = os.path.join(tiny_mpnet, "model.safetensors")
    with open(weights, "rb") as f:
        pretrained = f.read()
    light = Punctuator.load(tiny_mpnet_tagger, engine="torch", device="cpu")
    assert isinstance(light.models[0].encoder, MPNetEncoder) and isinstance(light.models[0].tokenizer, LightTokenizer)
    heavy = Punctuator([Seq2Labels.load(tiny_mpnet_tagger)], device="cpu", case_forms=light.case_forms)
    same_probabilities(heavy, light, LINES, atol=1e-5)  # LINES[3]: several 64-subword windows
    assert light.predict(LINES) == heavy.predict(LINES)
    with open(weights, "rb") as f:  # loading maps the encoder file; what goes over it never writes to it
        assert f.read() == pretrained


def test_prediction_with_mpnet_does_not_import_transformers(tiny_mpnet_tagger, tmp_path):
    probe = (f"import sys; from gector_punct import Punctuator; Punctuator.load({tiny_mpnet_tagger!r}).predict(['hello']); "
             "print(sorted(m for m in ('transformers', 'sklearn') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                         env=dict(os.environ, PYTHONPATH=ROOT, GECTOR_PUNCT_CACHE=str(tmp_path / "cache")))
    assert run.stdout.strip() == "[]", run.stderr
