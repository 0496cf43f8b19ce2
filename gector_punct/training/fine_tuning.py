"""What training does to a tagger beyond its loss: the model a run starts from, and which parts it trains.

* ``starting_model(options, train_instances, resume_from, announce) -> Seq2Labels``: the run's last checkpoint
  (``resume_from``), the ``init_model`` with the options applied (``adjust``) and the training data's new
  labels added (``grow_labels``), or a new model on the pretrained encoder.
* ``adjust(model, **settings)``: the ``ModelConfig.ADJUSTABLE`` settings change; ``acoustic``,
  ``case_context`` and ``switches`` add their part to a model that lacks it (``Seq2Labels.build_parts``);
  any other setting that differs raises ValueError.
* ``grow_labels(model, seen) -> added labels``: the labels of ``seen`` (a training set's vocabulary) that the
  model lacks, each new output starting at the lowest bias of its head (the tagger predicts as before).
* ``freeze_encoder(model, frozen, train_layers, freeze_embeddings)``: which encoder parameters train (cold
  epochs: none); ``train_only_top_layers(model, options, started_from)``: ``--train_layers``, and the partial
  storage that goes with it (``Seq2Labels.stored_keys``).
"""
from __future__ import annotations

from dataclasses import replace

import torch
from torch import nn

from gector_punct.model.base_encoder import in_top_layers, layer_count
from gector_punct.model.config import ModelConfig
from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import HEADS, IGNORE, Vocabulary
from gector_punct.training.options import TrainOptions


def starting_model(options: TrainOptions, train_instances: list, resume_from: str | None,
                   announce: bool) -> Seq2Labels:
    """``announce``: print the labels added to an ``init_model`` (the main process does)."""
    if resume_from:
        return Seq2Labels.load(resume_from)
    settings = options.model_settings()
    if options.init_model:
        model = Seq2Labels.load(options.init_model)
        adjust(model, **settings)
        added = grow_labels(model, Vocabulary.from_tags((i.tags for i in train_instances), options.min_count))
        if added and announce:
            print(f"labels added to {options.init_model}'s vocabulary: {' '.join(added)}", flush=True)
        return model
    vocab = Vocabulary.from_tags((i.tags for i in train_instances), options.min_count)
    return Seq2Labels.create(vocab, ModelConfig(**settings))


def adjust(model: Seq2Labels, **settings) -> None:
    if "switches" in settings:
        settings = dict(settings, switches=tuple(settings["switches"]))
    current = model.config
    added = {k for k in ModelConfig.ADDABLE if settings.get(k) and not getattr(current, k)}
    added |= {k for k in ModelConfig.LOWERABLE if settings.get(k) and settings[k] <= layer_count(model.encoder)}
    fixed = sorted(k for k, v in settings.items()
                   if k not in ModelConfig.ADJUSTABLE and k not in added and getattr(current, k) != v)
    if fixed:
        raise ValueError("a trained model's " + ", ".join(f"{k} ({getattr(current, k)!r}, asked {settings[k]!r})"
                                                          for k in fixed)
                         + " cannot change; leave the option out or train a new model")
    changed = {k: v for k, v in settings.items() if k in ModelConfig.ADJUSTABLE or k in added}
    model.config = replace(current, **changed)
    model.build_parts()
    model.dropout.p = model.config.dropout


def grow_labels(model: Seq2Labels, seen: Vocabulary) -> list[str]:
    """``$DELETE`` for a punctuation model fine-tuned on disfluency data, say. Returns the labels added."""
    added = []
    for head in HEADS:
        new = [t for t in seen.tokens(head.namespace) if model.vocab.index(head.namespace, t) == IGNORE]
        if not new:
            continue
        old = model.heads[head.name]
        grown = nn.Linear(old.in_features, old.out_features + len(new)).to(old.weight.device)
        with torch.no_grad():
            grown.weight.zero_()
            grown.weight[: old.out_features] = old.weight
            grown.bias.fill_(float(old.bias.min()))
            grown.bias[: old.out_features] = old.bias
        model.heads[head.name] = grown
        model.vocab = model.vocab.with_labels(head.namespace, new)
        added += new
    return added


def freeze_encoder(model: Seq2Labels, frozen: bool, train_layers: int | None = None,
                   freeze_embeddings: bool = False) -> None:
    """Freeze the whole encoder (cold steps), or train only its top ``train_layers`` layers; with
    ``freeze_embeddings`` the embedding tables stay as pretrained (a compact model then stores none).
    The pooler is never trained: no loss reaches it (and DDP requires every trained parameter to get a gradient)."""
    for name, param in model.encoder.named_parameters():
        trainable = not frozen and (train_layers is None or in_top_layers(name, model.encoder, train_layers))
        trainable = trainable and not name.startswith("pooler.")  # the tagger never reads the pooled output
        param.requires_grad = trainable and not (freeze_embeddings and name.startswith("embeddings."))


def train_only_top_layers(model: Seq2Labels, options: TrainOptions, started_from: bool) -> None:
    """With ``train_layers``: train only the top layers (+ heads) and store only what is trained, plus what a
    model the run ``started_from`` (an init_model or a checkpoint) stored already (its fine-tuned encoder)
    and a grown embedding table."""
    if options.train_layers is None:
        return
    freeze_encoder(model, False, options.train_layers, options.freeze_embeddings)
    trained = {k for k, p in model.named_parameters() if p.requires_grad}
    before = model.stored_keys if started_from else set()
    if before is None:  # a fully stored model stays fully stored
        return
    model.stored_keys = before | trained
    if model.config.special_tokens_fix:  # the $START row is new: the pretrained table lacks it
        model.stored_keys.add(model.input_embedding_key())
