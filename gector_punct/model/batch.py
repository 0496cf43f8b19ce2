"""``Batch``: the tensors of one batch of encoder windows, what ``Seq2Labels.forward`` takes.

Every batch has ``input_ids`` / ``attention_mask`` (windows x subwords) and ``word_starts`` (windows x words:
each word's first subword) / ``word_mask`` (windows x words, False at padding). The optional features are
None unless the batch carries them; a model with the part that reads one needs it:

- ``switches`` (windows x tasks, 0 off / 1 on): a model with switching tokens (``windows.collate`` gives it
  for windows encoded with switch states);
- ``prev_mark`` (windows x words): each word's predecessor's mark context (``tags.MARK_CONTEXTS``), given
  with labels; a ``case_context`` model trains on it and, without it, returns every context's case logits;
- ``acoustic`` / ``acoustic_lengths`` / ``has_audio`` / ``text_positions``: an audio model's inputs
  (``audio_data.AudioLines.batch``; ``acoustic`` None when no window of the batch has audio);
- ``targets``: head ``target_key`` -> (windows x words) label indices; given, the model also returns its loss.

``Batch.of(tensors)`` builds one from the dicts ``windows.collate`` and ``AudioLines.batch`` return (an
unknown key raises TypeError); ``batch.to(device)`` moves every tensor.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import torch

from gector_punct.model.vocabulary import HEADS


@dataclass(frozen=True)
class Batch:
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    word_starts: torch.Tensor
    word_mask: torch.Tensor
    switches: torch.Tensor | None = None
    prev_mark: torch.Tensor | None = None
    acoustic: torch.Tensor | None = None
    acoustic_lengths: torch.Tensor | None = None
    has_audio: torch.Tensor | None = None
    text_positions: torch.Tensor | None = None
    targets: dict[str, torch.Tensor] = field(default_factory=dict)

    @classmethod
    def of(cls, tensors: dict[str, torch.Tensor]) -> Batch:
        """A batch from named tensors: the field names, and each head's ``target_key`` for its targets."""
        target_keys = {head.target_key for head in HEADS}
        names = {f.name for f in fields(cls)} - {"targets"}
        unknown = set(tensors) - names - target_keys
        if unknown:
            raise TypeError(f"unexpected inputs {sorted(unknown)}")
        return cls(**{k: v for k, v in tensors.items() if k in names},
                   targets={k: v for k, v in tensors.items() if k in target_keys})

    def to(self, device: str | torch.device) -> Batch:
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "targets"}
        moved = {k: v.to(device, non_blocking=True) for k, v in values.items() if v is not None}
        return replace(self, **moved, targets={k: v.to(device, non_blocking=True) for k, v in self.targets.items()})
