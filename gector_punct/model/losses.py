"""The tagger's training loss, one head at a time: logits and targets in, a summed loss and its normaliser out.

``head_loss(logits, target, word_mask, weight, label_smoothing, delete) -> (total, count)``: the summed
(class-weighted, label-smoothed) cross-entropy over the words whose label is known (``IGNORE`` is skipped, so
an uncased corpus teaches nothing about case; padding is masked by ``word_mask``), and its normaliser: the
known words' count, or their summed weights, so that ``total / count`` is the weighted mean PyTorch's
``reduction="mean"`` would give, and distributed training can average over the global batch
(``Seq2Labels.forward``'s ``loss_sums`` / ``loss_counts``).

A target ``NOT_DELETED`` (a word that stays while the punc task is off) is scored as -log P(not ``$DELETE``)
(``kept_loss``; ``delete`` is ``$DELETE``'s index in the punctuation head, ``IGNORE`` when it has none): that
the word stays is all such a target says, so which mark it would take is not taught.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from gector_punct.model.vocabulary import IGNORE, NOT_DELETED


def head_loss(logits: torch.Tensor, target: torch.Tensor, word_mask: torch.Tensor, weight: torch.Tensor | None,
              label_smoothing: float, delete: int) -> tuple[torch.Tensor, torch.Tensor]:
    target = target.masked_fill(~word_mask, IGNORE)
    kept = target == NOT_DELETED
    target = target.masked_fill(kept, IGNORE)
    total = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=IGNORE, reduction="sum",
                            label_smoothing=label_smoothing, weight=weight)
    known = target != IGNORE
    if weight is None:
        count = known.sum().to(total.dtype)
    else:
        count = weight[target.clamp(min=0)].masked_fill(~known, 0).sum().to(total.dtype)
    if kept.any():
        total, count = total + kept_loss(logits, kept, delete), count + kept.sum()
    return total, count


def kept_loss(logits: torch.Tensor, kept: torch.Tensor, delete: int) -> torch.Tensor:
    """-log P(not ``$DELETE``) summed over the ``kept`` words (none without a ``$DELETE`` label: zero)."""
    if delete == IGNORE:
        return logits.new_zeros(())
    rest = logits.clone()
    rest[..., delete] = float("-inf")
    return (logits.logsumexp(-1) - rest.logsumexp(-1))[kept].sum()
