"""The Seq2Labels tagger: encoder -> first subword of each word -> dropout -> three heads.

``Seq2Labels.forward(input_ids, attention_mask, word_starts, word_mask[, labels, case_labels, d_labels])``
returns a dict with per-word ``logits_labels`` / ``logits_case`` / ``logits_d`` (batch x words x classes),
their softmaxes ``probs_labels`` / ``probs_case`` / ``probs_d``, and, when labels are given, ``loss``: the
sum of the three cross-entropies, each averaged over the words whose label is known (-100 is skipped, so
an uncased corpus teaches nothing about case; ``class_weights``, set by the trainer, weights the classes),
with its parts ``loss_sums`` / ``loss_counts`` (per head: summed cross-entropy, known words or their summed
weights) so that distributed training can average over the global batch. The heads are GECToR's:
``labels`` (punctuation/deletion edit), ``d_tags`` (detection: CORRECT / INCORRECT), plus ``case_tags``
(case edit) so that a word keeps both its case and its punctuation edit.

``save(dir)`` writes ``config.json``, ``model.safetensors``, ``tokenizer/`` and ``vocabulary/``;
``Seq2Labels.load(dir)`` reads them with no network and no unpickling. A *partial* folder (``--train_layers``
or ``lowrank``) stores only what training changed; the rest loads from the pretrained ``transformer_model``;
``store_dtype: float16`` in the config stores them at half size (loading casts back to float32), and
``save(dir, lowrank=r)`` stores each fine-tuned encoder matrix as a rank-r delta over the pretrained one.

UniPunc (audio): a config with ``acoustic`` settings (see ``acoustic.DEFAULTS``; ``add_acoustic`` adds them
to a text model) puts an acoustic assistant and a coordinate bootstrapper between the encoder and the heads.
``forward`` then also takes ``acoustic`` / ``acoustic_lengths`` / ``has_audio`` / ``text_positions`` (from
``audio_data.AudioLines.batch``); a window with no audio gets the virtual embedding. A frozen pretrained
speech encoder is never stored: it loads from its folder (``extractor_model``) like the text encoder.
"""
from __future__ import annotations

import json
import os
import tempfile

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

from .acoustic import AcousticAssistant, settings_of
from .bootstrapper import CoordinateBootstrapper
from .encoding import load_tokenizer, quiet_transformers, resolve_encoder
from .io import atomic_write, replace_dir
from .vocabulary import IGNORE, Vocabulary

FORMAT = "gector-punct/1"
HEADS = (("labels", "labels"), ("case", "case_tags"), ("d", "d_tags"))
LOWRANK_A, LOWRANK_B = ".lowrank_A", ".lowrank_B"


class Seq2Labels(nn.Module):
    def __init__(self, encoder: nn.Module, vocab: Vocabulary, tokenizer, config: dict):
        super().__init__()
        self.encoder, self.vocab, self.tokenizer = encoder, vocab, tokenizer
        self.config = dict(config)
        hidden = encoder.config.hidden_size
        self.dropout = nn.Dropout(self.config.get("dropout", 0.1))
        self.heads = nn.ModuleDict({name: nn.Linear(hidden, vocab.size(ns)) for name, ns in HEADS})
        self.label_smoothing = self.config.get("label_smoothing", 0.0)
        self.class_weights: dict[str, torch.Tensor] = {}  # head -> cross-entropy weight per class (training only)
        self.stored_keys: set[str] | None = None  # None: store everything
        self.acoustic = self.bootstrapper = None
        if self.config.get("acoustic"):
            self.add_acoustic(self.config["acoustic"])

    def add_acoustic(self, settings: dict) -> None:
        """Make this a UniPunc tagger. The new bootstrapper starts as the identity (zero output projections),
        so until it is trained the tagger predicts exactly as the text model it was added to."""
        s = settings_of(settings)
        self.config["acoustic"] = dict(settings)
        self.acoustic = AcousticAssistant(s)
        self.bootstrapper = CoordinateBootstrapper(self.encoder.config.hidden_size, s["dim"], s["layers"], s["heads"],
                                                   s["attention_dim"], s["dropout"], s["positions"])
        if self.stored_keys is not None:
            self.stored_keys |= {k for k in self.state_dict() if k.startswith(("acoustic.", "bootstrapper."))}

    def _external(self, key: str) -> bool:
        """A frozen pretrained speech encoder's weight: loaded from its own folder, never stored."""
        return (key.startswith("acoustic.extractor.") and self.acoustic is not None and self.acoustic.frozen
                and not self.acoustic.settings["extractor_config"])

    @classmethod
    def create(cls, transformer_model: str, vocab: Vocabulary, special_tokens_fix: int = 0,
               encoder_config: dict | None = None, **config) -> "Seq2Labels":
        """A new tagger on a pretrained encoder (or, with ``encoder_config``, a randomly initialised one)."""
        from transformers import AutoConfig, AutoModel

        quiet_transformers()
        tokenizer = load_tokenizer(transformer_model, special_tokens_fix)
        if encoder_config is not None:
            encoder = AutoModel.from_config(AutoConfig.for_model(**encoder_config))
        else:
            encoder = AutoModel.from_pretrained(resolve_encoder(transformer_model))
        if len(tokenizer) > encoder.get_input_embeddings().num_embeddings:
            encoder.resize_token_embeddings(len(tokenizer))
        config.update(transformer_model=transformer_model, special_tokens_fix=special_tokens_fix)
        return cls(encoder, vocab, tokenizer, config)

    def forward(self, input_ids, attention_mask, word_starts, word_mask, labels=None, case_labels=None,
                d_labels=None, acoustic=None, acoustic_lengths=None, has_audio=None,
                text_positions=None) -> dict[str, torch.Tensor]:
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        if self.bootstrapper is not None:
            if text_positions is None:
                raise ValueError("an audio model needs text_positions (gector_punct.audio_data.AudioLines.batch)")
            if has_audio is None:
                has_audio = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
            memory, memory_mask, memory_positions = self.acoustic(acoustic, acoustic_lengths, has_audio)
            hidden = self.bootstrapper(hidden, attention_mask.bool(), memory, memory_mask, text_positions.to(hidden.dtype),
                                       memory_positions)
        index = word_starts.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
        words = self.dropout(hidden.gather(1, index))
        out: dict[str, torch.Tensor] = {}
        for name, _ in HEADS:
            logits = self.heads[name](words).float()
            out[f"logits_{name}"] = logits
            out[f"probs_{name}"] = logits.softmax(-1)
        if labels is not None:
            targets = {"labels": labels, "case": case_labels, "d": d_labels}
            parts = [self._loss_sum(out[f"logits_{n}"], targets[n], word_mask, self.class_weights.get(n))
                     for n, _ in HEADS]
            out["loss_sums"] = torch.stack([total for total, _ in parts])
            out["loss_counts"] = torch.stack([known for _, known in parts])
            out["loss"] = (out["loss_sums"] / out["loss_counts"].clamp(min=1)).sum()
        return out

    def _loss_sum(self, logits: torch.Tensor, target: torch.Tensor, word_mask: torch.Tensor,
                  weight: torch.Tensor | None = None):
        """Summed (class-weighted) cross-entropy and its normaliser: the known words' count, or their summed
        weights, so that sum / normaliser is the weighted mean PyTorch's reduction="mean" would give."""
        target = target.masked_fill(~word_mask, IGNORE)
        total = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=IGNORE, reduction="sum",
                                label_smoothing=self.label_smoothing, weight=weight)
        known = target != IGNORE
        if weight is None:
            return total, known.sum().to(total.dtype)
        return total, weight[target.clamp(min=0)].masked_fill(~known, 0).sum().to(total.dtype)

    # ---- files ------------------------------------------------------------------------------------

    def save(self, directory: str, store_dtype: str | None = None, lowrank: int | None = None) -> None:
        """Write the model folder atomically (a temporary folder renamed into place). With ``lowrank``,
        each changed encoder matrix is stored as a rank-``lowrank`` delta over the pretrained encoder."""
        parent = os.path.dirname(os.path.abspath(directory))
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=parent, prefix=f".{os.path.basename(directory)}.")
        os.chmod(tmp, 0o755)
        dtype = getattr(torch, store_dtype or self.config.get("store_dtype", "float32"))  # float16 halves a shipped model
        if lowrank:
            state = self._lowrank_state(lowrank)
        else:
            state = {k: v for k, v in self.state_dict().items() if self.stored_keys is None or k in self.stored_keys}
        state = {k: v for k, v in state.items() if not self._external(k)}
        state = {k: (v.to(dtype) if v.is_floating_point() else v).detach().cpu().contiguous() for k, v in state.items()}
        save_file(state, os.path.join(tmp, "model.safetensors"))
        config = dict(self.config, format=FORMAT, encoder_config=self.encoder.config.to_dict(),
                      partial=bool(lowrank) or self.stored_keys is not None, lowrank=lowrank)
        with atomic_write(os.path.join(tmp, "config.json")) as out:
            json.dump(config, out, indent=2, sort_keys=True, default=str)
        self.tokenizer.save_pretrained(os.path.join(tmp, "tokenizer"))
        self.vocab.save(os.path.join(tmp, "vocabulary"))
        replace_dir(tmp, directory)

    @classmethod
    def load(cls, directory: str, vocab_path: str | None = None, device: str | torch.device = "cpu") -> "Seq2Labels":
        from transformers import AutoConfig, AutoModel

        quiet_transformers()
        if not os.path.exists(os.path.join(directory, "config.json")) and os.path.isdir(os.path.join(directory, "best")):
            directory = os.path.join(directory, "best")  # a training folder: take its best checkpoint
        with open(os.path.join(directory, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
        if config.get("format") != FORMAT:
            raise ValueError(f"{directory}: not a gector-punct model folder (format {config.get('format')!r})")
        encoder_config = dict(config.pop("encoder_config"))
        partial = config.pop("partial", False)
        config.pop("format")
        if partial:  # the unchanged parameters come from the installed encoder
            encoder = AutoModel.from_pretrained(resolve_encoder(config["transformer_model"]))
        else:
            model_type = encoder_config.pop("model_type")
            encoder = AutoModel.from_config(AutoConfig.for_model(model_type, **encoder_config))
        tokenizer = load_tokenizer(os.path.join(directory, "tokenizer"))
        if len(tokenizer) != encoder.get_input_embeddings().num_embeddings:
            encoder.resize_token_embeddings(len(tokenizer))
        vocab = Vocabulary.load(vocab_path or os.path.join(directory, "vocabulary"))
        model = cls(encoder, vocab, tokenizer, config)
        state = load_file(os.path.join(directory, "model.safetensors"))
        own = model.state_dict()
        for key in [k for k in state if k.endswith(LOWRANK_A)]:  # base weight + A @ B
            name = key[: -len(LOWRANK_A)]
            delta = state.pop(key).float() @ state.pop(name + LOWRANK_B).float()
            state[name] = own[name] + delta
        missing, unexpected = model.load_state_dict(state, strict=False)
        missing = [k for k in missing if not model._external(k)]
        if unexpected or (missing and not partial):
            raise ValueError(f"{directory}: weights do not match the model (missing {missing[:5]}, "
                             f"unexpected {unexpected[:5]})")
        if partial:
            model.stored_keys = set(state)
        return model.to(device).eval()

    def _lowrank_state(self, rank: int) -> dict[str, torch.Tensor]:
        """Heads as they are; encoder parameters that differ from the pretrained encoder as low-rank
        deltas (matrices, by truncated SVD) or in full (vectors); unchanged ones not at all."""
        from transformers import AutoModel

        base = AutoModel.from_pretrained(resolve_encoder(self.config["transformer_model"])).state_dict()
        out = {}
        for key, value in self.state_dict().items():
            pretrained = base.get(key[len("encoder."):]) if key.startswith("encoder.") else None
            if pretrained is not None and pretrained.shape == value.shape:
                if torch.equal(pretrained, value):
                    continue
                if value.dim() == 2 and rank < min(value.shape) // 2:
                    u, s, vh = torch.linalg.svd((value - pretrained).float(), full_matrices=False)
                    out[key + LOWRANK_A], out[key + LOWRANK_B] = u[:, :rank] * s[:rank], vh[:rank]
                    continue
            out[key] = value
        return out

    def freeze_encoder(self, frozen: bool, train_layers: int | None = None, freeze_embeddings: bool = False) -> None:
        """Freeze the whole encoder (cold steps), or train only its top ``train_layers`` layers; with
        ``freeze_embeddings`` the embedding tables stay as pretrained (a compact model then stores none).
        The pooler is never trained: no loss reaches it (and DDP requires every trained parameter to get a gradient)."""
        for name, param in self.encoder.named_parameters():
            trainable = not frozen and (train_layers is None or _in_top_layers(name, self.encoder, train_layers))
            trainable = trainable and not name.startswith("pooler.")  # the tagger never reads the pooled output
            param.requires_grad = trainable and not (freeze_embeddings and name.startswith("embeddings."))


def _in_top_layers(name: str, encoder: nn.Module, k: int) -> bool:
    n_layers = encoder.config.num_hidden_layers
    for part in name.split("."):
        if part.isdigit() and ".layer." in f".{name}":
            return int(part) >= n_layers - k
    return "pooler" in name
