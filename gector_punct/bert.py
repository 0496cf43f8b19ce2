"""A plain-torch BERT encoder for prediction, and a tokenizer on the ``tokenizers`` library alone.

Importing transformers costs seconds (it pulls in scikit-learn and torch.distributed); a punctuator that
restores one line should not pay that. ``BertEncoder`` computes what transformers' ``BertModel`` computes
for an encoder (absolute positions, token type 0, GELU, post-norm layers, SDPA attention over the padding
mask) with the same parameter names, so the same state dicts load into it; it reads its settings from the
encoder's ``config.json`` dict. ``WordPieceTokenizer`` wraps a ``tokenizer.json`` with the few calls
``encoding.TextEncoder`` makes. ``light_encoder_possible(config)`` says when both can stand in for
transformers: a BERT-type encoder whose folder has a ``tokenizer.json``; anything else loads through
transformers as before. Training always uses transformers.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

# In place: the feed-forward activation is the largest buffer of a layer; computing it where the dense
# output already is (and adding the residuals in place) keeps a batch's working set small.
_ACTIVATIONS = {"gelu": torch._C._nn.gelu_, "relu": torch.relu_,
                "gelu_new": lambda x: torch._C._nn.gelu_(x, approximate="tanh")}


@dataclass
class BertSettings:
    """The fields of a transformers BertConfig that inference reads (``to_dict`` for saving)."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int = 2
    hidden_act: str = "gelu"
    layer_norm_eps: float = 1e-12
    raw: dict | None = None

    @classmethod
    def from_dict(cls, values: dict) -> BertSettings:
        names = set(cls.__dataclass_fields__) - {"raw"}
        return cls(**{k: values[k] for k in names if k in values}, raw=dict(values))

    def to_dict(self) -> dict:
        return dict(self.raw or {}, vocab_size=self.vocab_size)


def light_encoder_possible(encoder_config: dict, tokenizer_dir: str) -> bool:
    return (encoder_config.get("model_type") == "bert" and encoder_config.get("hidden_act", "gelu") in _ACTIVATIONS
            and encoder_config.get("position_embedding_type", "absolute") == "absolute"
            and not encoder_config.get("is_decoder") and os.path.isfile(os.path.join(tokenizer_dir, "tokenizer.json")))


class _Linear(nn.Linear):
    def reset_parameters(self) -> None:  # every weight is loaded from a file: no initialisation to pay for
        pass


class _Embedding(nn.Embedding):
    def reset_parameters(self) -> None:
        pass


class _Named(nn.Module):
    """A container whose children carry transformers' names (``attention.self.query`` ...)."""

    def __init__(self, children: dict[str, nn.Module] | None = None, **named: nn.Module):
        super().__init__()
        for name, child in {**(children or {}), **named}.items():
            self.add_module(name, child)


def _layer(s: BertSettings) -> nn.Module:
    h, i = s.hidden_size, s.intermediate_size
    return _Named(
        attention=_Named({"self": _Named(query=_Linear(h, h), key=_Linear(h, h), value=_Linear(h, h))},
                         output=_Named(dense=_Linear(h, h), LayerNorm=nn.LayerNorm(h, eps=s.layer_norm_eps))),
        intermediate=_Named(dense=_Linear(h, i)),
        output=_Named(dense=_Linear(i, h), LayerNorm=nn.LayerNorm(h, eps=s.layer_norm_eps)))


class BertEncoder(nn.Module):
    """``forward(input_ids, attention_mask) -> object with last_hidden_state`` (batch x tokens x hidden);
    ``inputs_embeds`` instead of ``input_ids`` gives the word embeddings directly (switching tokens)."""

    def __init__(self, settings: BertSettings):
        super().__init__()
        s = self.config = settings
        self.embeddings = _Named(word_embeddings=_Embedding(s.vocab_size, s.hidden_size),
                                 position_embeddings=_Embedding(s.max_position_embeddings, s.hidden_size),
                                 token_type_embeddings=_Embedding(s.type_vocab_size, s.hidden_size),
                                 LayerNorm=nn.LayerNorm(s.hidden_size, eps=s.layer_norm_eps))
        self.encoder = _Named(layer=nn.ModuleList(_layer(s) for _ in range(s.num_hidden_layers)))
        self.pooler = _Named(dense=_Linear(s.hidden_size, s.hidden_size))  # never read; its weights load
        self.act = _ACTIVATIONS[s.hidden_act]
        self.heads, self.head_dim = s.num_attention_heads, s.hidden_size // s.num_attention_heads

    def get_input_embeddings(self) -> nn.Embedding:
        return self.embeddings.word_embeddings

    def resize_token_embeddings(self, n: int) -> None:
        old = self.embeddings.word_embeddings
        new = _Embedding(n, old.embedding_dim, device=old.weight.device, dtype=old.weight.dtype)
        nn.init.zeros_(new.weight)
        with torch.no_grad():
            new.weight[: min(n, old.num_embeddings)] = old.weight[:n]
        self.embeddings.word_embeddings, self.config.vocab_size = new, n

    def forward(self, input_ids: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None,
                inputs_embeds: torch.Tensor | None = None):
        e = self.embeddings
        if inputs_embeds is None:
            inputs_embeds = e.word_embeddings(input_ids)
        positions = torch.arange(inputs_embeds.shape[1], device=inputs_embeds.device)
        x = inputs_embeds + e.token_type_embeddings.weight[0] + e.position_embeddings(positions)
        x = e.LayerNorm(x)
        mask = attention_mask.bool()[:, None, None, :]
        for layer in self.encoder.layer:
            x = self._layer(layer, x, mask)
        return _Output(x)

    def _layer(self, layer: nn.Module, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        att, b, n = layer.attention, x.shape[0], x.shape[1]
        split = lambda t: t.view(b, n, self.heads, self.head_dim).transpose(1, 2)  # noqa: E731
        q, k, v = split(att.self.query(x)), split(att.self.key(x)), split(att.self.value(x))
        context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=self.head_dim ** -0.5)
        context = context.transpose(1, 2).reshape(b, n, -1)
        x = att.output.LayerNorm(att.output.dense(context).add_(x))
        return layer.output.LayerNorm(layer.output.dense(self.act(layer.intermediate.dense(x))).add_(x))


@dataclass
class _Output:
    last_hidden_state: torch.Tensor


def load_pretrained_bert(path: str) -> BertEncoder:
    """A pretrained BERT folder (``config.json`` + ``model.safetensors``) without transformers."""
    from safetensors.torch import load_file

    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        encoder = build_bert(json.load(f))
    state = {k.removeprefix("bert."): v for k, v in load_file(os.path.join(path, "model.safetensors")).items()}
    own = encoder.state_dict()
    missing, _ = encoder.load_state_dict({k: v for k, v in state.items() if k in own}, strict=False)
    with torch.no_grad():
        for key in missing:  # a sentence encoder ships no pooler: zeros, never garbage
            encoder.get_parameter(key).zero_()
    return encoder


def build_bert(config: dict) -> BertEncoder:
    """An encoder of this config, not initialised: its weights are whatever is loaded next."""
    return BertEncoder(BertSettings.from_dict(config))


class WordPieceTokenizer:
    """The calls ``TextEncoder`` and ``Seq2Labels`` make of a transformers fast tokenizer, on ``tokenizers``."""

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
