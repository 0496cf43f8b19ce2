"""Prediction without transformers: the plain-torch BERT and the tokenizers-only tokenizer give exactly what
transformers gives; the light tools do not load torch; the package's public API as a newcomer uses it."""
import os
import subprocess
import sys

import torch

from conftest import ROOT, tiny_tagger
from gector_punct.bert import BertEncoder, WordPieceTokenizer
from gector_punct.model import Seq2Labels
from gector_punct.predictor import Punctuator
from gector_punct.units import split_units
from gector_punct.vocabulary import Vocabulary

LINES = ["so i went to new york last tuesday did you", "", "ünïcödé wörds and McDonald's café", "x " * 300,
         "it costs 3.5 dollars e.g. at www.example.com"]
# Runs of Chinese characters are tokenized whole and read back through the tokenizer's offsets.
CJK_LINES = ["首先我要用最快的速度为大家演示一些新技术 的基础研究成果", "我们用 iPhone 手机 鬱鬰𠀀好 ok", "北" * 400]


def same_probabilities(heavy: Punctuator, light: Punctuator, lines: list[str] = LINES) -> None:
    words = [split_units(line) for line in lines]
    assert [w.input_ids for w in heavy.encoders[0].encode_lines(words)] == \
        [w.input_ids for w in light.encoders[0].encode_lines(words)]
    a, b = heavy.probabilities(words), light.probabilities(words)
    assert a.keys() == b.keys() and all(torch.equal(a[head], b[head]) for head in a)


def test_light_encoder_equals_transformers_on_the_shipped_model():
    path = os.path.join(ROOT, "models", "default_en")  # partial: low-rank deltas over the pip encoder
    light = Punctuator.load(path, device="cpu")
    assert isinstance(light.models[0].encoder, BertEncoder) and isinstance(light.models[0].tokenizer, WordPieceTokenizer)
    same_probabilities(Punctuator([Seq2Labels.load(path)], device="cpu"), light)


def test_light_encoder_equals_transformers_on_chinese_with_the_multilingual_model():
    path = os.path.join(ROOT, "models", "multilingual")
    light = Punctuator.load(path, device="cpu")
    assert isinstance(light.models[0].tokenizer, WordPieceTokenizer)
    same_probabilities(Punctuator([Seq2Labels.load(path)], device="cpu"), light, CJK_LINES + LINES[:2])


def test_light_encoder_equals_transformers_on_a_full_folder_with_start_token(tmp_path):
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_."], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                        "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(0)
    tiny_tagger(vocab, special_tokens_fix=1).save(str(tmp_path / "m"))
    light = Punctuator.load(str(tmp_path / "m"), device="cpu")
    assert isinstance(light.models[0].encoder, BertEncoder)
    assert light.encoders[0].prefix[-1] == light.models[0].tokenizer.convert_tokens_to_ids("$START")
    same_probabilities(Punctuator([Seq2Labels.load(str(tmp_path / "m"))], device="cpu"), light)


def test_light_tools_and_prediction_do_not_import_what_they_do_not_need(tmp_path):
    probe = ("import sys; import gector_punct.tags, gector_punct.preprocess, gector_punct.io; "
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
