"""A tagger's model folder: ``Seq2Labels`` out to disk and back, with no network and no unpickling.

A model folder holds ``config.json`` (``ModelConfig`` with the decoding defaults and how the weights are
stored, ``config.WeightStorage``), ``model.safetensors``, ``tokenizer/`` and ``vocabulary/``.

* ``save(model, directory, ...)``: the folder written into a temporary one that is renamed into place
  (``files.temporary_dir`` / ``replace_dir``); ``write_folder(model, folder, ...)``: the same files into a
  folder that exists (a checkpoint adds its own). Weights in ``store_dtype`` (default: the config's).
* ``load(build, directory, vocab_path, device, light) -> model``: a model folder (or a training folder: its
  ``best/``) -> ``build(encoder, vocab, tokenizer, config)`` with the stored weights, in eval mode on ``device``.
  A folder that cannot be read raises ``ModelFolderError`` naming the folder or file.

A *partial* folder (``--train_layers`` or ``lowrank``) stores only what training changed; the rest loads from
the pretrained ``transformer_model``, whose ``storage.base_fingerprint`` the folder records: loading over an
installed encoder with another fingerprint is refused (``ModelFolderError``). With ``lowrank``, each changed
encoder matrix is stored as a rank-``lowrank`` delta over the pretrained encoder (``storage.lowrank_state``).
A frozen pretrained speech encoder (UniPunc) is never stored either (``stored_elsewhere``).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

import torch
from torch import nn
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from gector_punct.encoders.plain_torch import light_encoder_possible
from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.model.base_encoder import checked_base, encoder_for, fit_embeddings
from gector_punct.model.config import (WEIGHTS, ModelFolderError, WeightStorage, model_directory, read_config,
                                       reading_folder, tokenizer_folder, write_config)
from gector_punct.model.storage import base_fingerprint, expand_lowrank, lowrank_state
from gector_punct.model.vocabulary import Vocabulary
from gector_punct.model.windows import load_tokenizer
from gector_punct.text.files import replace_dir, temporary_dir

# A tagger (``tagger.Seq2Labels``): this module is read by it, and never imports it (one way).
Tagger = nn.Module


def save(model: Tagger, directory: str, store_dtype: str | None = None, lowrank: int | None = None,
         base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
    """``lowrank_bits`` 8 stores the low-rank factors as int8 with one scale per rank (half the bytes: twice
    the rank in the same size); ``base_tokenizer`` also leaves the tokenizer out (loading takes the base
    encoder's: multilingual-e5-small's is 17 MB)."""
    tmp = temporary_dir(directory)
    write_folder(model, tmp, store_dtype, lowrank, base_tokenizer, lowrank_bits)
    replace_dir(tmp, directory)


def write_folder(model: Tagger, folder: str, store_dtype: str | None = None, lowrank: int | None = None,
                 base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
    dtype = getattr(torch, store_dtype or model.config.store_dtype)
    if lowrank:
        state, fingerprint = _lowrank_state(model, lowrank, lowrank_bits)
    else:
        state = {k: v for k, v in model.state_dict().items() if model.stored_keys is None or k in model.stored_keys}
        fingerprint = model.base_fingerprint
    state = {k: (v.to(dtype) if v.is_floating_point() else v).detach().cpu().contiguous()
             for k, v in state.items() if not stored_elsewhere(model, k)}
    save_file(state, os.path.join(folder, WEIGHTS))
    config = replace(model.config, encoder_config=model.encoder.config.to_dict())
    partial = bool(lowrank) or model.stored_keys is not None
    write_config(folder, config, WeightStorage(partial, lowrank, fingerprint if partial else None))
    if base_tokenizer and not (lowrank and not model.config.special_tokens_fix):
        raise ValueError("only a low-rank model without added tokens can leave its tokenizer to the base encoder")
    if not base_tokenizer:
        model.tokenizer.save_pretrained(os.path.join(folder, "tokenizer"))
    model.vocab.save(os.path.join(folder, "vocabulary"))


def load(build: Callable[..., Tagger], directory: str, vocab_path: str | None = None,
         device: str | torch.device = "cpu", light: bool = False) -> Tagger:
    """``light``: for prediction only, the encoder and its tokenizer without transformers where
    ``encoders.plain_torch`` has them (BERT, MPNet)."""
    directory = model_directory(directory)
    with reading_folder(directory):
        model = _assemble(build, directory, vocab_path, light)
    return model.to(device).eval()


def stored_elsewhere(model: Tagger, key: str) -> bool:
    """A frozen pretrained speech encoder's weight: loaded from its own folder, never stored."""
    return (key.startswith("acoustic.extractor.") and model.acoustic is not None and model.acoustic.frozen
            and not model.acoustic.settings.extractor_config)


def _assemble(build: Callable[..., Tagger], directory: str, vocab_path: str | None, light: bool) -> Tagger:
    config, storage = read_config(directory)
    tokenizer_dir = tokenizer_folder(directory, config, storage, vocab_path)
    light = light and light_encoder_possible(config.encoder_config or {}, tokenizer_dir)
    encoder = encoder_for(config, pretrained=storage.partial, light=light)
    fingerprint = checked_base(directory, config, storage, encoder) if storage.partial else None
    tokenizer = LightTokenizer(tokenizer_dir) if light else load_tokenizer(tokenizer_dir)
    fit_embeddings(encoder, tokenizer)
    vocab = Vocabulary.load(vocab_path or os.path.join(directory, "vocabulary"))
    model = build(encoder, vocab, tokenizer, config)
    model.base_fingerprint = fingerprint
    _load_weights(model, directory, storage.partial)
    return model


def _load_weights(model: Tagger, directory: str, partial: bool) -> None:
    path = os.path.join(directory, WEIGHTS)
    try:
        state = load_file(path)
    except SafetensorError as err:
        raise ModelFolderError(f"{path}: cannot read the weights ({err})") from None
    own = model.state_dict()
    state = expand_lowrank(state, own)  # base weight + A @ B
    # The parameters become the loaded tensors (in the model's dtype): no second copy of the weights.
    state = {k: v.to(own[k].dtype) if k in own else v for k, v in state.items()}
    missing, unexpected = model.load_state_dict(state, strict=False, assign=True)
    missing = [k for k in missing if not stored_elsewhere(model, k)]
    if unexpected or (missing and not partial):
        raise ModelFolderError(f"{path}: weights do not match the model (missing {missing[:5]}, "
                               f"unexpected {unexpected[:5]})")
    if partial:
        model.stored_keys = set(state)


def _lowrank_state(model: Tagger, rank: int, bits: int = 16) -> tuple[dict[str, torch.Tensor], str]:
    """Heads as they are; encoder parameters as ``storage.lowrank_state`` stores them over the pretrained
    encoder; and that encoder's ``base_fingerprint``."""
    base = encoder_for(model.config, pretrained=True, light=False).state_dict()
    state = lowrank_state(model.state_dict(), {f"encoder.{k}": v for k, v in base.items()}, rank, bits)
    return state, base_fingerprint(base)
