"""What the plain-torch encoders (``bert.BertEncoder``, ``mpnet.MPNetEncoder``) share.

Each computes what its transformers model computes for an encoder at inference, with transformers' parameter
names, so the same state dicts load into it; they differ in embeddings, attention bias and the names of the
attention block, and share the rest: ``EncoderSettings`` (the config fields they read), the layers without
initialisation (every weight is loaded from a file), ``Named`` containers, the feed-forward block and SDPA
attention (``PlainEncoder``), and ``load_pretrained`` (a pretrained folder's ``model.safetensors``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

# In place: the feed-forward activation is the largest buffer of a layer; computing it where the dense
# output already is (and adding the residuals in place) keeps a batch's working set small.
ACTIVATIONS = {"gelu": torch._C._nn.gelu_, "relu": torch.relu_,
               "gelu_new": lambda x: torch._C._nn.gelu_(x, approximate="tanh")}


@dataclass
class EncoderSettings:
    """The fields of a transformers BertConfig / MPNetConfig that inference reads (``to_dict`` for saving:
    the whole config dict it was read from, with the current vocabulary size and layer count)."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int = 2  # BERT
    relative_attention_num_buckets: int = 32  # MPNet
    hidden_act: str = "gelu"
    layer_norm_eps: float = 1e-12
    raw: dict | None = None

    @classmethod
    def from_dict(cls, values: dict) -> EncoderSettings:
        names = set(cls.__dataclass_fields__) - {"raw"}
        return cls(**{k: values[k] for k in names if k in values}, raw=dict(values))

    def to_dict(self) -> dict:
        return dict(self.raw or {}, vocab_size=self.vocab_size, num_hidden_layers=self.num_hidden_layers)


class NoInitLinear(nn.Linear):
    def reset_parameters(self) -> None:  # every weight is loaded from a file: no initialisation to pay for
        pass


class NoInitEmbedding(nn.Embedding):
    def reset_parameters(self) -> None:
        pass


class Named(nn.Module):
    """A container whose children carry transformers' names (``attention.self.query`` ...)."""

    def __init__(self, children: dict[str, nn.Module] | None = None, **named: nn.Module):
        super().__init__()
        for name, child in {**(children or {}), **named}.items():
            self.add_module(name, child)


def feed_forward_parts(s: EncoderSettings) -> dict[str, nn.Module]:
    """A layer's ``intermediate`` and ``output`` blocks (the same in BERT and MPNet)."""
    h, i = s.hidden_size, s.intermediate_size
    return {"intermediate": Named(dense=NoInitLinear(h, i)),
            "output": Named(dense=NoInitLinear(i, h), LayerNorm=nn.LayerNorm(h, eps=s.layer_norm_eps))}


@dataclass
class EncoderOutput:
    last_hidden_state: torch.Tensor


class PlainEncoder(nn.Module):
    """The base of the plain-torch encoders: settings (``config``); the ``embeddings`` (word and position
    tables, a subclass's own ``extra_embeddings``, LayerNorm), the subclass's ``encoder`` (its layers) and
    the ``pooler`` (never read; its weights load); SDPA attention and the feed-forward block.

    ``forward(input_ids, attention_mask) -> object with last_hidden_state`` (batch x tokens x hidden);
    ``inputs_embeds`` instead of ``input_ids`` gives the word embeddings directly (switching tokens)."""

    PREFIX = ""  # of the encoder's keys in a task model's checkpoint (``bert.`` in BertForMaskedLM ...)

    def __init__(self, settings: EncoderSettings, encoder: nn.Module, **extra_embeddings: nn.Module):
        super().__init__()
        s = self.config = settings
        self.embeddings = Named(word_embeddings=NoInitEmbedding(s.vocab_size, s.hidden_size),
                                position_embeddings=NoInitEmbedding(s.max_position_embeddings, s.hidden_size),
                                **extra_embeddings, LayerNorm=nn.LayerNorm(s.hidden_size, eps=s.layer_norm_eps))
        self.encoder = encoder
        self.pooler = Named(dense=NoInitLinear(s.hidden_size, s.hidden_size))
        self.act = ACTIVATIONS[settings.hidden_act]
        self.heads, self.head_dim = settings.num_attention_heads, settings.hidden_size // settings.num_attention_heads

    @classmethod
    def supports(cls, config: dict) -> bool:
        """Whether this class computes what transformers computes for an encoder of ``config``."""
        return config.get("hidden_act", "gelu") in ACTIVATIONS

    def get_input_embeddings(self) -> nn.Embedding:
        return self.embeddings.word_embeddings

    def resize_token_embeddings(self, n: int) -> None:
        old = self.embeddings.word_embeddings
        new = NoInitEmbedding(n, old.embedding_dim, device=old.weight.device, dtype=old.weight.dtype)
        nn.init.zeros_(new.weight)
        with torch.no_grad():
            new.weight[: min(n, old.num_embeddings)] = old.weight[:n]
        self.embeddings.word_embeddings, self.config.vocab_size = new, n

    def attend(self, x: torch.Tensor, query: nn.Module, key: nn.Module, value: nn.Module,
               mask: torch.Tensor) -> torch.Tensor:
        """Multi-head scaled dot-product attention of ``x`` (batch x tokens x hidden) -> the heads' context,
        batch x tokens x hidden. ``mask``: bool (True: attend) or float (added to the scores), broadcast
        to batch x heads x tokens x tokens."""
        b, n = x.shape[0], x.shape[1]
        split = lambda t: t.view(b, n, self.heads, self.head_dim).transpose(1, 2)  # noqa: E731
        context = F.scaled_dot_product_attention(split(query(x)), split(key(x)), split(value(x)), attn_mask=mask,
                                                 scale=self.head_dim ** -0.5)
        return context.transpose(1, 2).reshape(b, n, -1)

    def feed_forward(self, layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
        """A layer's feed-forward block on the attention block's output ``x``, post-norm, residual in place."""
        return layer.output.LayerNorm(layer.output.dense(self.act(layer.intermediate.dense(x))).add_(x))


def load_pretrained(encoder: PlainEncoder, path: str, prefix: str) -> PlainEncoder:
    """``encoder`` with the weights of a pretrained folder's ``model.safetensors`` (keys with or without the
    task model's ``prefix``, e.g. ``bert.``); what the file lacks (a sentence encoder ships no pooler) is
    zeros, never garbage; what the encoder lacks (an MLM head, buffers) is left out. The parameters become
    the file's tensors (safetensors maps the file copy-on-write: nothing is read before it is used, and
    the file never changes), cast where the encoder's dtype differs."""
    from safetensors.torch import load_file

    state = {k.removeprefix(prefix): v for k, v in load_file(os.path.join(path, "model.safetensors")).items()}
    own = encoder.state_dict()
    state = {k: v.to(own[k].dtype) for k, v in state.items() if k in own}
    missing, _ = encoder.load_state_dict(state, strict=False, assign=True)
    with torch.no_grad():
        for key in missing:
            encoder.get_parameter(key).zero_()
    return encoder
