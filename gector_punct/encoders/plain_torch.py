"""Prediction without transformers: the plain-torch encoders and a tokenizer on the ``tokenizers`` library.

Importing transformers costs seconds (it pulls in scikit-learn and torch.distributed); a punctuator that
restores one line should not pay that. ``light_encoder_possible(config, tokenizer_dir)`` says when the light
parts can stand in for transformers: an encoder whose ``model_type`` has a plain-torch class in
``ENCODERS`` that computes its config exactly (``bert``, ``mpnet``), and a ``tokenizer.json`` in
``tokenizer_dir``; anything else loads through transformers. ``build_encoder(config)`` -> an encoder of that
config (weights not initialised: they are loaded next); ``load_pretrained_encoder(path)`` -> a pretrained
folder's encoder. ``LightTokenizer`` (``encoders.tokenizer``, no torch) wraps a ``tokenizer.json`` with the few
calls ``windows.TextEncoder`` and ``Seq2Labels`` make. Training always uses transformers.
"""
from __future__ import annotations

import json
import os

from gector_punct.encoders.bert import BertEncoder
from gector_punct.encoders.mpnet import MPNetEncoder
from gector_punct.encoders.layers import EncoderSettings, PlainEncoder, load_pretrained

ENCODERS: dict[str, type[PlainEncoder]] = {"bert": BertEncoder, "mpnet": MPNetEncoder}  # by config model_type


def light_encoder_possible(encoder_config: dict, tokenizer_dir: str) -> bool:
    kind = ENCODERS.get(encoder_config.get("model_type"))
    return (kind is not None and kind.supports(encoder_config)
            and os.path.isfile(os.path.join(tokenizer_dir, "tokenizer.json")))


def build_encoder(config: dict) -> PlainEncoder:
    """An encoder of this config (a ``model_type`` of ``ENCODERS``), not initialised: its weights are
    whatever is loaded next."""
    return ENCODERS[config["model_type"]](EncoderSettings.from_dict(config))


def load_pretrained_encoder(path: str) -> PlainEncoder:
    """A pretrained encoder folder (``config.json`` + ``model.safetensors``) without transformers."""
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        encoder = build_encoder(json.load(f))
    return load_pretrained(encoder, path, type(encoder).PREFIX)
