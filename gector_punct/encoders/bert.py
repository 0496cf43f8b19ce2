"""A plain-torch BERT encoder for prediction (``plain_torch.py`` chooses it over transformers).

``BertEncoder`` computes what transformers' ``BertModel`` computes for an encoder (absolute positions, token
type 0, post-norm layers, SDPA attention over the padding mask) with the same parameter names, so the same
state dicts load into it; it reads its settings from the encoder's ``config.json`` dict. Exported to ONNX
(``engines.onnx_export``), the padding mask is additive (the lowest float where a key is padding): a boolean
mask exports as a select and a NaN check in every layer, work the Add does not need. ``supports(config)``
says which BERT configs it computes exactly.
"""
from __future__ import annotations

import torch
from torch import nn

from gector_punct.encoders.layers import (EncoderOutput, EncoderSettings, Named, NoInitEmbedding, NoInitLinear,
                          PlainEncoder, feed_forward_parts)


def _layer(s: EncoderSettings) -> nn.Module:
    h = s.hidden_size
    return Named(
        attention=Named({"self": Named(query=NoInitLinear(h, h), key=NoInitLinear(h, h), value=NoInitLinear(h, h))},
                        output=Named(dense=NoInitLinear(h, h), LayerNorm=nn.LayerNorm(h, eps=s.layer_norm_eps))),
        **feed_forward_parts(s))


class BertEncoder(PlainEncoder):
    PREFIX = "bert."

    def __init__(self, s: EncoderSettings):
        super().__init__(s, Named(layer=nn.ModuleList(_layer(s) for _ in range(s.num_hidden_layers))),
                         token_type_embeddings=NoInitEmbedding(s.type_vocab_size, s.hidden_size))

    @classmethod
    def supports(cls, config: dict) -> bool:
        return (super().supports(config) and config.get("position_embedding_type", "absolute") == "absolute"
                and not config.get("is_decoder"))

    def forward(self, input_ids: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None,
                inputs_embeds: torch.Tensor | None = None) -> EncoderOutput:
        e = self.embeddings
        if inputs_embeds is None:
            inputs_embeds = e.word_embeddings(input_ids)
        positions = torch.arange(inputs_embeds.shape[1], device=inputs_embeds.device)
        x = inputs_embeds + e.token_type_embeddings.weight[0] + e.position_embeddings(positions)
        x = e.LayerNorm(x)
        mask = attention_mask.bool()[:, None, None, :]
        if torch.onnx.is_in_onnx_export():  # an additive mask: the graph masks with one Add, as MPNet's does
            mask = torch.zeros_like(mask, dtype=x.dtype).masked_fill(~mask, torch.finfo(x.dtype).min)
        for layer in self.encoder.layer:
            att = layer.attention
            context = self.attend(x, att.self.query, att.self.key, att.self.value, mask)
            x = self.feed_forward(layer, att.output.LayerNorm(att.output.dense(context).add_(x)))
        return EncoderOutput(x)
