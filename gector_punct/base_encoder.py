"""The pretrained encoder under a tagger: which one a model sits on, the check that a partial model folder is
loaded over the encoder it was written over, the embedding table's size rule, and which layers are "top".

``encoder_for(config, pretrained, light)`` -> the encoder module; ``checked_base(folder, config, storage,
encoder)`` -> its ``storage.base_fingerprint``, or ``ModelFolderError`` when the folder recorded another;
``fit_embeddings(encoder, tokenizer)``; ``in_top_layers(name, encoder, k)``.
"""
from __future__ import annotations

from torch import nn

from .bert import build_bert, load_pretrained_bert
from .config import ModelConfig, ModelFolderError, WeightStorage
from .encoding import resolve_encoder
from .runtime import quiet_transformers
from .storage import base_fingerprint


def in_top_layers(name: str, encoder: nn.Module, k: int) -> bool:
    n_layers = encoder.config.num_hidden_layers
    for part in name.split("."):
        if part.isdigit() and ".layer." in f".{name}":
            return int(part) >= n_layers - k
    return "pooler" in name


def encoder_for(config: ModelConfig, pretrained: bool, light: bool) -> nn.Module:
    """The encoder a model sits on: the installed pretrained one (a new model; a partial folder, which stores
    only what training changed), or one of ``encoder_config`` (random for a new model; a full folder's
    weights load over it). ``light``: without transformers (``bert``), for prediction."""
    if light:
        if pretrained:
            return load_pretrained_bert(resolve_encoder(config.transformer_model))
        return build_bert(config.encoder_config)
    from transformers import AutoConfig, AutoModel

    quiet_transformers()
    if pretrained:
        return AutoModel.from_pretrained(resolve_encoder(config.transformer_model))
    return AutoModel.from_config(AutoConfig.for_model(**config.encoder_config))


def checked_base(directory: str, config: ModelConfig, storage: WeightStorage, encoder: nn.Module) -> str:
    """The fingerprint of the pretrained encoder a partial folder's weights go over (as loaded, before any
    resizing); a folder that recorded another one is refused (one that recorded none is not checked)."""
    found = base_fingerprint(encoder.state_dict())
    if storage.base_fingerprint is not None and storage.base_fingerprint != found:
        raise ModelFolderError(
            f"{directory}: its weights are stored over a different {config.transformer_model!r} encoder than the one "
            f"installed (base_fingerprint {storage.base_fingerprint} in its config.json, {found} installed at "
            f"{resolve_encoder(config.transformer_model)}); install the encoder it was built on")
    return found


def fit_embeddings(encoder: nn.Module, tokenizer) -> None:
    """The one rule for the embedding table, at creation and at loading alike: grow it to hold every id of
    the tokenizer (``$START`` of ``special_tokens_fix``), never shrink it. Hub encoders often have more rows
    than their tokenizer has tokens (multilingual-e5-small: 250,037 for 250,002; tables padded to a
    multiple of 8), and the stored weights keep the encoder's own size."""
    if len(tokenizer) > encoder.get_input_embeddings().num_embeddings:
        encoder.resize_token_embeddings(len(tokenizer))

