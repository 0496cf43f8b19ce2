"""Prediction without transformers: the plain-torch encoders and a tokenizer on the ``tokenizers`` library.

Importing transformers costs seconds (it pulls in scikit-learn and torch.distributed); a punctuator that
restores one line should not pay that. ``light_encoder_possible(config, tokenizer_dir)`` says when the light
parts can stand in for transformers: an encoder whose ``model_type`` has a plain-torch class in
``ENCODERS`` that computes its config exactly (``bert``, ``mpnet``), and a ``tokenizer.json`` in
``tokenizer_dir``; anything else loads through transformers. ``build_encoder(config)`` -> an encoder of that
config (weights not initialised: they are loaded next); ``load_pretrained_encoder(path)`` -> a pretrained
folder's encoder. ``LightTokenizer`` wraps a ``tokenizer.json`` with the few calls ``encoding.TextEncoder``
and ``Seq2Labels`` make. Training always uses transformers.
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


class LightTokenizer:
    """The calls ``TextEncoder`` and ``Seq2Labels`` make of a transformers fast tokenizer, on ``tokenizers``
    (any ``tokenizer.json``: WordPiece, SentencePiece ...); the unknown and padding tokens are read from
    ``special_tokens_map.json`` / ``tokenizer_config.json`` (BERT's ``[UNK]`` / ``[PAD]`` where neither names them)."""

    def __init__(self, directory: str):
        from tokenizers import Tokenizer

        self.directory = directory
        self._tok = Tokenizer.from_file(os.path.join(directory, "tokenizer.json"))
        self._tok.no_truncation()
        self._tok.no_padding()
        special = {}
        for name in ("special_tokens_map.json", "tokenizer_config.json"):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    special = {**json.load(f), **special}
        token = lambda key: special[key]["content"] if isinstance(special.get(key), dict) else special.get(key)  # noqa: E731
        self.unk_token_id = self._tok.token_to_id(token("unk_token") or "[UNK]")
        self.pad_token_id = self._tok.token_to_id(token("pad_token") or "[PAD]")

    def __len__(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def get_vocab(self) -> dict[str, int]:
        return self._tok.get_vocab(with_added_tokens=True)

    def convert_tokens_to_ids(self, token: str) -> int:
        return self._tok.token_to_id(token)

    def __call__(self, text, is_split_into_words: bool = False, add_special_tokens: bool = True,
                 return_offsets_mapping: bool = False):
        if is_split_into_words:  # offsets, as transformers gives them for split words: within each word
            encodings = self._tok.encode_batch(text, is_pretokenized=True, add_special_tokens=add_special_tokens)
            return _Batch(encodings, return_offsets_mapping)
        return {"input_ids": self._tok.encode(text, add_special_tokens=add_special_tokens).ids}


class _Batch(dict):
    def __init__(self, encodings, offsets: bool = False):
        super().__init__(input_ids=[e.ids for e in encodings])
        if offsets:
            self["offset_mapping"] = [e.offsets for e in encodings]
        self._encodings = encodings

    def word_ids(self, row: int) -> list[int | None]:
        return self._encodings[row].word_ids
