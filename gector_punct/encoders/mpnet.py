"""A plain-torch MPNet encoder for prediction (``plain_torch.py`` chooses it over transformers).

``MPNetEncoder`` computes what transformers' ``MPNetModel`` computes for an encoder, with the same parameter
names (``encoder.relative_attention_bias.weight``, ``attention.attn.q`` ...), so the same state dicts load:

* embeddings: word + absolute position, then LayerNorm, no token types. Positions count from
  ``PADDING_IDX + 1`` over the non-padding tokens; a padding token (id ``PADDING_IDX``) takes position
  ``PADDING_IDX``. Given ``inputs_embeds`` the positions are ``PADDING_IDX + 1`` ... in order.
* one relative position bias per head, from T5-style buckets of the key's offset from the query
  (``relative_position_bucket``: 32 buckets, half per direction, exact below 8, logarithmic up to 128),
  computed once per forward and shared by every layer; it depends on token order only, not on padding.
* post-norm layers; SDPA attention with the bias and the padding mask (-inf) added to the scores.

(``pip_mpnet.py`` assembles all-mpnet-base-v2 from its pip packages.)
"""
from __future__ import annotations

import math

import torch
from torch import nn

from gector_punct.encoders.layers import (EncoderOutput, EncoderSettings, Named, NoInitEmbedding, NoInitLinear,
                          PlainEncoder, feed_forward_parts)

PADDING_IDX = 1  # fixed in MPNet's embeddings, whatever the config's pad_token_id
BUCKETS, MAX_DISTANCE = 32, 128  # transformers buckets with these whatever the config says


def relative_position_bucket(relative_position: torch.Tensor, num_buckets: int = BUCKETS,
                             max_distance: int = MAX_DISTANCE) -> torch.Tensor:
    """Key position minus query position (long) -> bucket in ``[0, num_buckets)``: keys before the query in
    the upper half; offsets below ``num_buckets // 4`` exact, larger ones logarithmic up to ``max_distance``
    (farther ones share the last bucket)."""
    n = -relative_position
    half = num_buckets // 2
    ret = (n < 0).long() * half
    n = n.abs()
    exact = half // 2
    large = exact + (torch.log(n.float() / exact) / math.log(max_distance / exact) * (half - exact)).long()
    large = large.clamp(max=half - 1)
    return ret + torch.where(n < exact, n, large)


def _layer(s: EncoderSettings) -> nn.Module:
    h = s.hidden_size
    return Named(attention=Named(attn=Named(q=NoInitLinear(h, h), k=NoInitLinear(h, h), v=NoInitLinear(h, h),
                                            o=NoInitLinear(h, h)),
                                 LayerNorm=nn.LayerNorm(h, eps=s.layer_norm_eps)),
                 **feed_forward_parts(s))


class MPNetEncoder(PlainEncoder):
    PREFIX = "mpnet."

    def __init__(self, s: EncoderSettings):
        super().__init__(s, Named(layer=nn.ModuleList(_layer(s) for _ in range(s.num_hidden_layers)),
                                  relative_attention_bias=NoInitEmbedding(s.relative_attention_num_buckets,
                                                                          s.num_attention_heads)))

    @classmethod
    def supports(cls, config: dict) -> bool:
        return super().supports(config) and config.get("relative_attention_num_buckets", BUCKETS) >= BUCKETS

    def forward(self, input_ids: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None,
                inputs_embeds: torch.Tensor | None = None) -> EncoderOutput:
        e = self.embeddings
        if inputs_embeds is None:
            real = input_ids.ne(PADDING_IDX).long()
            positions = real.cumsum(1) * real + PADDING_IDX
            inputs_embeds = e.word_embeddings(input_ids)
        else:
            positions = torch.arange(inputs_embeds.shape[1], device=inputs_embeds.device) + PADDING_IDX + 1
        x = e.LayerNorm(inputs_embeds + e.position_embeddings(positions))
        mask = self.position_bias(x.shape[1], x.device, x.dtype).masked_fill(
            ~attention_mask.bool()[:, None, None, :], float("-inf"))  # batch x heads x tokens x tokens
        for layer in self.encoder.layer:
            att = layer.attention
            context = self.attend(x, att.attn.q, att.attn.k, att.attn.v, mask)
            x = self.feed_forward(layer, att.LayerNorm(att.attn.o(context).add_(x)))
        return EncoderOutput(x)

    def position_bias(self, n: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor:
        """The relative position bias of ``n`` tokens: 1 x heads x queries x keys."""
        positions = torch.arange(n, device=device)
        buckets = relative_position_bucket(positions[None, :] - positions[:, None])
        return self.encoder.relative_attention_bias(buckets).to(dtype).permute(2, 0, 1).unsqueeze(0)
