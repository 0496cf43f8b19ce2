"""The coordinate bootstrapper of UniPunc: lexical embeddings + acoustic (or virtual) embeddings -> a hybrid
representation of the same shape as the lexical one, read by the tagger's heads.

``CoordinateBootstrapper(hidden, acoustic_dim, layers, heads, attention_dim, dropout, positions)``;
``forward(text (B, N, H), text_mask (B, N), memory (B, M, A), memory_mask (B, M), text_positions (B, N),
memory_positions (B, M)) -> (B, N, H)``. Each layer adds, with a residual connection, self-attention over
the text and cross-attention from the text to the memory: ``h = h + SelfAtt(LN(h)) + CrossAtt(LN(h), m)``.
Padded text and padded memory are masked as keys. The output projections start at zero, so a new
bootstrapper is the identity: the tagger it is added to predicts exactly as before until it is trained.

With ``positions`` the cross-attention's queries and keys also get a sinusoidal code of where they sit in
the utterance, as a fraction in [0, 1] (text: characters up to the end of the subword's word over the
line's characters, ``text_fractions``; audio: frame over frames): with little data, that is what lets a
word find the pause after it.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def fraction_code(fractions: torch.Tensor, dim: int) -> torch.Tensor:
    """(…) fractions in [0, 1] -> (…, dim) sin/cos at frequencies from 1 to ~500 cycles per utterance."""
    half = dim // 2
    freqs = math.pi * torch.exp(torch.linspace(0.0, math.log(500.0), half, device=fractions.device))
    angles = fractions.float()[..., None] * freqs
    code = torch.cat([angles.sin(), angles.cos()], -1)
    return F.pad(code, (0, dim - 2 * half))


def text_fractions(words: list[str]) -> list[float]:
    """Per word: characters up to its end (spaces counted) over the line's characters."""
    total = max(1, sum(len(w) + 1 for w in words))
    out, seen = [], 0
    for w in words:
        seen += len(w) + 1
        out.append(seen / total)
    return out


class Attention(nn.Module):
    def __init__(self, q_dim: int, kv_dim: int, inner: int, heads: int, out_dim: int):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = nn.Linear(q_dim, inner), nn.Linear(kv_dim, inner), nn.Linear(kv_dim, inner)
        self.out = nn.Linear(inner, out_dim)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, query, key, value, key_mask: torch.Tensor, dropout: float) -> torch.Tensor:
        b, n, m = query.shape[0], query.shape[1], key.shape[1]
        split = lambda x, length: x.view(b, length, self.heads, -1).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q(query), n), split(self.k(key), m), split(self.v(value), m)
        bias = torch.zeros(b, 1, 1, m, dtype=q.dtype, device=q.device).masked_fill(~key_mask[:, None, None], float("-inf"))
        att = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=dropout)
        return self.out(att.transpose(1, 2).reshape(b, n, -1))


class BootstrapLayer(nn.Module):
    def __init__(self, hidden: int, acoustic_dim: int, heads: int, inner: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.self_att = Attention(hidden, hidden, inner, heads, hidden)
        self.cross_att = Attention(hidden, acoustic_dim, inner, heads, hidden)


class CoordinateBootstrapper(nn.Module):
    def __init__(self, hidden: int, acoustic_dim: int, layers: int = 2, heads: int = 4, attention_dim: int = 128,
                 dropout: float = 0.1, positions: bool = True):
        super().__init__()
        self.layers = nn.ModuleList(BootstrapLayer(hidden, acoustic_dim, heads, attention_dim) for _ in range(layers))
        self.dropout, self.positions = dropout, positions
        self.drop = nn.Dropout(dropout)

    def forward(self, text, text_mask, memory, memory_mask, text_positions=None, memory_positions=None):
        p = self.dropout if self.training else 0.0
        text_code = mem_code = 0.0
        if self.positions and text_positions is not None and memory_positions is not None:
            text_code = fraction_code(text_positions, text.shape[-1]).to(text.dtype)
            mem_code = fraction_code(memory_positions, memory.shape[-1]).to(memory.dtype)
        keys = memory + mem_code
        h = text
        for layer in self.layers:
            x = layer.norm(h)
            s = layer.self_att(x, x, x, text_mask.bool(), p)
            c = layer.cross_att(x + text_code, keys, memory, memory_mask.bool(), p)
            h = h + self.drop(s) + self.drop(c)
        return h
