"""The pretrained encoder under a tagger: which one a model sits on, the check that a partial model folder is
loaded over the encoder it was written over, the embedding table's size rule, and which layers are "top".

``encoder_for(config, pretrained, light)`` -> the encoder module; ``installed_fingerprint(config, encoder)`` ->
the fingerprint of the installed pretrained encoder (remembered in the cache folder, ``encoders.cache``);
``checked_base(folder, config, storage, encoder)`` -> the
same, or ``ModelFolderError`` when the folder recorded another;
``fit_embeddings(encoder, tokenizer)``; ``in_top_layers(name, encoder, k)``; ``cut_layers(encoder, n)``.
"""
from __future__ import annotations


from torch import nn

from gector_punct.model.config import ModelConfig, ModelFolderError, WeightStorage
from gector_punct.encoders.cache import encoder_fingerprint
from gector_punct.encoders.registry import resolve_encoder
from gector_punct.encoders.plain_torch import build_encoder, load_pretrained_encoder
from gector_punct.encoders.runtime import quiet_transformers
from gector_punct.model.storage import base_fingerprint


def in_top_layers(name: str, encoder: nn.Module, k: int) -> bool:
    n_layers = encoder.config.num_hidden_layers
    for part in name.split("."):
        if part.isdigit() and ".layer." in f".{name}":
            return int(part) >= n_layers - k
    return "pooler" in name


def layer_count(encoder: nn.Module) -> int:
    return len(encoder.encoder.layer)


def cut_layers(encoder: nn.Module, n: int) -> None:
    """Keep the encoder's first ``n`` layers (BERT and MPNet, plain-torch or transformers: ``encoder.layer``),
    its config saying so. The fingerprint of a pretrained encoder is taken before (``installed_fingerprint``
    answers for the whole installed encoder, whose first layers a cut model's partial folder goes over)."""
    layers = encoder.encoder.layer
    if n > len(layers):
        raise ValueError(f"encoder_layers {n}: the encoder has {len(layers)} layers")
    encoder.encoder.layer = nn.ModuleList(list(layers)[:n])
    encoder.config.num_hidden_layers = n


def encoder_for(config: ModelConfig, pretrained: bool, light: bool) -> nn.Module:
    """The encoder a model sits on: the installed pretrained one (a new model; a partial folder, which stores
    only what training changed), or one of ``encoder_config`` (random for a new model; a full folder's
    weights load over it). ``light``: without transformers (``plain_torch.py``), for prediction."""
    if light:
        if pretrained:
            return load_pretrained_encoder(resolve_encoder(config.transformer_model))
        return build_encoder(config.encoder_config)
    from transformers import AutoConfig, AutoModel

    quiet_transformers()
    if pretrained:
        return AutoModel.from_pretrained(resolve_encoder(config.transformer_model))
    return AutoModel.from_config(AutoConfig.for_model(**config.encoder_config))


def installed_fingerprint(config: ModelConfig, encoder: nn.Module) -> str:
    """The fingerprint of the installed pretrained encoder (as loaded, before any resizing). A folder with a
    ``stand_in.json`` is a compact copy of an encoder carried to another machine (float16, int8 embeddings:
    close, not equal): it answers for the encoder it was made from, whose fingerprint the file records, so
    the models trained over it are stored, and checked here, against the real one."""
    return encoder_fingerprint(resolve_encoder(config.transformer_model), lambda: base_fingerprint(encoder.state_dict()))


def checked_base(directory: str, config: ModelConfig, storage: WeightStorage, encoder: nn.Module) -> str:
    """The fingerprint of the pretrained encoder a partial folder's weights go over (``installed_fingerprint``);
    a folder that recorded another one is refused (one that recorded none is not checked)."""
    found = installed_fingerprint(config, encoder)
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

