"""The Seq2Labels tagger: encoder -> first subword of each word -> dropout -> one linear head per ``HEADS``.

``forward(batch)`` (a ``batch.Batch``) returns, per head, its ``logits_key`` / ``probs_key`` tensors
(batch x words x labels). Given ``batch.targets`` (each head's ``target_key`` tensor) it also returns
``loss``: the sum over heads of the cross-entropy averaged over the words whose label is known (IGNORE is
skipped, so an uncased corpus teaches nothing about case), and its parts ``loss_sums`` / ``loss_counts``
(per head: summed cross-entropy, and known words or their summed class weights) so that distributed
training can average over the global batch.

Settings live in ``ModelConfig`` (with the decoding defaults, ``DecodeConfig``), saved flat in
``config.json``. A model folder holds ``config.json``, ``model.safetensors``, ``tokenizer/`` and
``vocabulary/``; ``load`` reads it with no network and no unpickling. A *partial* folder (``--train_layers``
or ``lowrank``) stores only what training changed; the rest loads from the pretrained
``transformer_model``, whose ``storage.base_fingerprint`` the folder records: loading over an installed
encoder with another fingerprint is refused (``ModelFolderError``). A frozen pretrained speech encoder
(UniPunc) is never stored either.

The optional parts (audio, case context, switching tokens) are built from the config at construction, and
added by ``adjust`` to a trained model that lacks them; ``forward`` reads each one's inputs from the batch.

Switching tokens (seed 001): with ``switches`` (e.g. ``("disf", "punc")``) each window carries one slot per
task after its special prefix; ``forward`` then also reads ``batch.switches`` (batch x tasks: 0 off, 1 on)
and puts each task's learned on/off vector in its slot (``inputs_embeds``). A punctuation target ``KEPT`` (a
word that stays while the punc task is off) is scored as -log P(not ``$DELETE``). In a window whose ``disf``
switch is off, ``$DELETE`` is not in the punctuation head's distribution at all (its logit is -inf), so an
off task is neither predicted nor taught.

UniPunc (audio): ``acoustic`` settings (``audio.config.AcousticConfig``) put an acoustic assistant and a coordinate
bootstrapper between the encoder and the heads; ``forward`` then also reads ``batch.acoustic`` /
``acoustic_lengths`` / ``has_audio`` / ``text_positions`` (``audio_data.AudioLines.batch``).
"""
from __future__ import annotations

import os
from dataclasses import replace

import torch
import torch.nn.functional as F
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from torch import nn

from gector_punct.audio.acoustic import AcousticAssistant
from gector_punct.model.base_encoder import checked_base, encoder_for, fit_embeddings, in_top_layers, installed_fingerprint
from gector_punct.model.batch import Batch
from gector_punct.audio.bootstrapper import CoordinateBootstrapper
from gector_punct.model.config import (DecodeConfig, ModelConfig, ModelFolderError, WeightStorage, model_directory,
                                       read_config, store_decode_defaults, tokenizer_folder, write_config)
from gector_punct.model.windows import TextEncoder, load_tokenizer
from gector_punct.text.files import replace_dir, temporary_dir
from gector_punct.encoders.plain_torch import light_encoder_possible
from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.model.storage import base_fingerprint, expand_lowrank, lowrank_state
from gector_punct.text.tags import DELETE, MARK_CONTEXTS
from gector_punct.model.vocabulary import CASE_HEAD, HEADS, IGNORE, KEPT, PUNCT_HEAD, Vocabulary

__all__ = ["Batch", "DecodeConfig", "ModelConfig", "ModelFolderError", "Seq2Labels", "store_decode_defaults"]


class Seq2Labels(nn.Module):
    def __init__(self, encoder: nn.Module, vocab: Vocabulary, tokenizer, config: ModelConfig):
        super().__init__()
        self.encoder, self.vocab, self.tokenizer, self.config = encoder, vocab, tokenizer, config
        hidden = encoder.config.hidden_size
        self.dropout = nn.Dropout(config.dropout)
        self.heads = nn.ModuleDict({h.name: nn.Linear(hidden, vocab.size(h.namespace)) for h in HEADS})
        self.class_weights: dict[str, torch.Tensor] = {}  # head name -> cross-entropy weight per label (training)
        self.stored_keys: set[str] | None = None  # None: store everything
        self.base_fingerprint: str | None = None  # the pretrained encoder's (storage.base_fingerprint), when read
        self.acoustic = self.bootstrapper = self.mark_embedding = self.switch_embedding = None
        self._build_parts()

    def _build_parts(self) -> None:
        """Register the parts the config asks for and the model lacks, each a no-op until trained where it can
        be: the acoustic assistant and coordinate bootstrapper (``acoustic``; zero output projections: the
        identity), one vector per mark context added before the case head (``case_context``; zeros), and per
        switching task two vectors, off and on, for its slot at the start of every window (``switches``).
        A partially stored model stores its new parts too."""
        c, hidden = self.config, self.encoder.config.hidden_size
        before = set(self.state_dict())
        if c.acoustic is not None and self.acoustic is None:
            s = c.acoustic
            self.acoustic = AcousticAssistant(s)
            self.bootstrapper = CoordinateBootstrapper(hidden, s.dim, s.layers, s.heads, s.attention_dim, s.dropout,
                                                       s.positions)
        if c.case_context and self.mark_embedding is None:
            self.mark_embedding = nn.Embedding(len(MARK_CONTEXTS), hidden)
            nn.init.zeros_(self.mark_embedding.weight)
        if c.switches and self.switch_embedding is None:
            self.switch_embedding = nn.Embedding(2 * len(c.switches), hidden)
            nn.init.normal_(self.switch_embedding.weight, 0.0, getattr(self.encoder.config, "initializer_range", 0.02))
            self.switch_offset = self.text_encoder().switch_offset
        if self.stored_keys is not None:
            self.stored_keys |= set(self.state_dict()) - before

    def grow_labels(self, seen: Vocabulary) -> list[str]:
        """Add the labels ``seen`` (a training set's vocabulary) has and this model's lacks (``$DELETE`` for a
        punctuation model fine-tuned on disfluency data); each new output starts at the lowest bias of its
        head, so the tagger predicts as before until trained. Returns the labels added."""
        added = []
        for head in HEADS:
            new = [t for t in seen.tokens(head.namespace) if self.vocab.index(head.namespace, t) == IGNORE]
            if not new:
                continue
            old = self.heads[head.name]
            grown = nn.Linear(old.in_features, old.out_features + len(new)).to(old.weight.device)
            with torch.no_grad():
                grown.weight.zero_()
                grown.weight[: old.out_features] = old.weight
                grown.bias.fill_(float(old.bias.min()))
                grown.bias[: old.out_features] = old.bias
            self.heads[head.name] = grown
            self.vocab = self.vocab.with_labels(head.namespace, new)
            added += new
        return added

    def adjust(self, **settings) -> None:
        """Apply settings to an existing model (``--init_model``): the ``ModelConfig.ADJUSTABLE`` ones
        change; ``acoustic``, ``case_context`` and ``switches`` add their part to a model that lacks it
        (``_build_parts``); any other setting that differs raises ValueError."""
        if "switches" in settings:
            settings = dict(settings, switches=tuple(settings["switches"]))
        current = self.config
        added = {k for k in ModelConfig.ADDABLE if settings.get(k) and not getattr(current, k)}
        fixed = sorted(k for k, v in settings.items()
                       if k not in ModelConfig.ADJUSTABLE and k not in added and getattr(current, k) != v)
        if fixed:
            raise ValueError("a trained model's " + ", ".join(f"{k} ({getattr(current, k)!r}, asked {settings[k]!r})"
                                                              for k in fixed)
                             + " cannot change; leave the option out or train a new model")
        changed = {k: v for k, v in settings.items() if k in ModelConfig.ADJUSTABLE or k in added}
        self.config = replace(current, **changed)
        self._build_parts()
        self.dropout.p = self.config.dropout

    def text_encoder(self, max_len: int | None = None) -> TextEncoder:
        """Words -> windows as this model reads them (``max_len`` overrides the model's window size)."""
        return TextEncoder.of_model(self.tokenizer, self.config, max_len)

    def input_embedding_key(self) -> str:
        """The state-dict key of the encoder's word-embedding table (its name differs between encoders)."""
        table = self.encoder.get_input_embeddings().weight
        return next(f"encoder.{name}" for name, p in self.encoder.named_parameters() if p is table)

    @property
    def tasks(self) -> frozenset[str]:
        """The tasks this tagger can be asked for: ``punc``, and ``disf`` when it has the ``$DELETE`` label."""
        return self.vocab.tasks

    @property
    def pad_id(self) -> int:
        return self.tokenizer.pad_token_id or 0

    def _external(self, key: str) -> bool:
        """A frozen pretrained speech encoder's weight: loaded from its own folder, never stored."""
        return (key.startswith("acoustic.extractor.") and self.acoustic is not None and self.acoustic.frozen
                and not self.acoustic.settings.extractor_config)

    @classmethod
    def create(cls, vocab: Vocabulary, config: ModelConfig) -> Seq2Labels:
        """A new tagger on the pretrained encoder (or, with ``encoder_config``, a randomly initialised one)."""
        tokenizer = load_tokenizer(config.transformer_model, config.special_tokens_fix)
        pretrained = config.encoder_config is None
        encoder = encoder_for(config, pretrained=pretrained, light=False)
        fingerprint = installed_fingerprint(config, encoder) if pretrained else None
        fit_embeddings(encoder, tokenizer)
        model = cls(encoder, vocab, tokenizer, config)
        model.base_fingerprint = fingerprint
        return model

    def forward(self, batch: Batch) -> dict[str, torch.Tensor]:
        """Per head, its logits and probabilities (windows x words x labels; a ``case_context`` model's case
        head without ``prev_mark``: windows x words x contexts x labels); with ``batch.targets`` also the loss."""
        if self.switch_embedding is None:
            hidden = self.encoder(input_ids=batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state
        else:
            hidden = self.encoder(inputs_embeds=self._embed_switches(batch.input_ids, batch.switches),
                                  attention_mask=batch.attention_mask).last_hidden_state
        if self.bootstrapper is not None:
            hidden = self._with_audio(hidden, batch)
        index = batch.word_starts.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
        words = self.dropout(hidden.gather(1, index))
        targets = batch.targets
        out: dict[str, torch.Tensor] = {}
        for head in HEADS:
            logits = self.heads[head.name](words).float()
            if head is CASE_HEAD and self.mark_embedding is not None:
                logits = self._case_in_context(logits, batch.prev_mark, bool(targets))
            if head is PUNCT_HEAD and batch.switches is not None:
                logits = self._without_deletion_when_off(logits, batch.switches)
            out[head.logits_key], out[head.probs_key] = logits, logits.softmax(-1)
        if targets:
            parts = [self._loss_sum(out[h.logits_key], targets[h.target_key], batch.word_mask,
                                    self.class_weights.get(h.name)) for h in HEADS]
            out["loss_sums"] = torch.stack([total for total, _ in parts])
            out["loss_counts"] = torch.stack([known for _, known in parts])
            out["loss"] = (out["loss_sums"] / out["loss_counts"].clamp(min=1)).sum()
        return out

    def _with_audio(self, hidden: torch.Tensor, batch: Batch) -> torch.Tensor:
        """The encoder's output after the coordinate bootstrapper has read the batch's audio (or, for a window
        without, the virtual embedding)."""
        if batch.text_positions is None:
            raise ValueError("an audio model needs text_positions (gector_punct.model.audio_windows.AudioLines.batch)")
        has_audio = batch.has_audio
        if has_audio is None:
            has_audio = torch.zeros(hidden.shape[0], dtype=torch.bool, device=hidden.device)
        memory, memory_mask, memory_positions = self.acoustic(batch.acoustic, batch.acoustic_lengths, has_audio)
        return self.bootstrapper(hidden, batch.attention_mask.bool(), memory, memory_mask,
                                 batch.text_positions.to(hidden.dtype), memory_positions)

    def _embed_switches(self, input_ids: torch.Tensor, switches: torch.Tensor | None) -> torch.Tensor:
        """Word embeddings with each switch slot's placeholder replaced by its task's on/off vector."""
        if switches is None:
            raise ValueError("a model with switching tokens needs switches (encoding.collate gives them)")
        n, at = switches.shape[1], self.switch_offset
        rows = switches + 2 * torch.arange(n, device=switches.device)
        embeds = self.encoder.get_input_embeddings()(input_ids)
        vectors = self.switch_embedding(rows).to(embeds.dtype)
        return torch.cat([embeds[:, :at], vectors, embeds[:, at + n:]], dim=1)

    def _without_deletion_when_off(self, logits: torch.Tensor, switches: torch.Tensor) -> torch.Tensor:
        """The punctuation logits with ``$DELETE`` ruled out (-inf) in every window whose ``disf`` switch is
        off. Decoding rules it out there anyway; here it also leaves the softmax, so a window with ``disf`` off
        teaches nothing about deletion (not even "not deleted"): no other switch state learns to suppress it,
        and in the joint mode, never trained, the deletion decision is the one learnt with ``disf`` on."""
        delete = self.vocab.index(PUNCT_HEAD.namespace, DELETE)
        if "disf" not in self.config.switches or delete == IGNORE:
            return logits
        off = switches[:, self.config.switches.index("disf")] == 0  # windows
        if self.config.label_smoothing and off.any():
            raise ValueError("label smoothing would score the ruled-out $DELETE: not with a disf switch")
        column = torch.zeros(logits.shape[-1], dtype=torch.bool, device=logits.device)
        column[delete] = True
        return logits.masked_fill(off[:, None, None] & column, float("-inf"))

    def _case_in_context(self, logits: torch.Tensor, prev_mark: torch.Tensor | None, training: bool) -> torch.Tensor:
        """The case head's logits given the word before's mark context. The head is linear, so a context
        shifts them by ``W @ embedding[context]``: with ``prev_mark`` (batch x words), the logits of the given
        contexts; without it, of every context (batch x words x contexts x labels), for the decoder to pick
        from once the punctuation is decided."""
        shift = (self.mark_embedding.weight @ self.heads[CASE_HEAD.name].weight.t()).float()  # contexts x labels
        if prev_mark is not None:
            return logits + shift[prev_mark]
        if training:
            raise ValueError("a case_context model trains on prev_mark (encoding.collate gives it with labels)")
        return logits.unsqueeze(-2) + shift

    def _loss_sum(self, logits: torch.Tensor, target: torch.Tensor, word_mask: torch.Tensor,
                  weight: torch.Tensor | None = None):
        """Summed (class-weighted) cross-entropy and its normaliser: the known words' count, or their summed
        weights, so that sum / normaliser is the weighted mean PyTorch's reduction="mean" would give."""
        target = target.masked_fill(~word_mask, IGNORE)
        kept = target == KEPT
        target = target.masked_fill(kept, IGNORE)
        total = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=IGNORE, reduction="sum",
                                label_smoothing=self.config.label_smoothing, weight=weight)
        known = target != IGNORE
        if weight is None:
            count = known.sum().to(total.dtype)
        else:
            count = weight[target.clamp(min=0)].masked_fill(~known, 0).sum().to(total.dtype)
        if kept.any():
            total, count = total + self._kept_loss(logits, kept), count + kept.sum()
        return total, count

    def _kept_loss(self, logits: torch.Tensor, kept: torch.Tensor) -> torch.Tensor:
        """-log P(not $DELETE) summed over the ``kept`` words: with the punc task off, that the word stays is
        all a target says (which mark it would take is not taught, so that no task learns to be off)."""
        delete = self.vocab.index(PUNCT_HEAD.namespace, DELETE)
        if delete == IGNORE:
            return logits.new_zeros(())
        rest = logits.clone()
        rest[..., delete] = float("-inf")
        return (logits.logsumexp(-1) - rest.logsumexp(-1))[kept].sum()

    # ---- files ------------------------------------------------------------------------------------

    def save(self, directory: str, store_dtype: str | None = None, lowrank: int | None = None,
             base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
        """Write the model folder atomically (a temporary folder renamed into place), weights in
        ``store_dtype`` (default: the config's). With ``lowrank``, each changed encoder matrix is stored as
        a rank-``lowrank`` delta over the pretrained encoder, its two factors in ``store_dtype`` or, with
        ``lowrank_bits`` 8, as int8 with one scale per rank (half the bytes: twice the rank in the same
        size); ``base_tokenizer`` also leaves the tokenizer out (loading takes the base encoder's:
        multilingual-e5-small's is 17 MB)."""
        tmp = temporary_dir(directory)
        self.write_folder(tmp, store_dtype, lowrank, base_tokenizer, lowrank_bits)
        replace_dir(tmp, directory)

    def write_folder(self, folder: str, store_dtype: str | None = None, lowrank: int | None = None,
                     base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
        """The model's files into an existing folder (``save`` without the rename: a checkpoint adds its own)."""
        dtype = getattr(torch, store_dtype or self.config.store_dtype)
        if lowrank:
            state, fingerprint = self._lowrank_state(lowrank, lowrank_bits)
        else:
            state = {k: v for k, v in self.state_dict().items() if self.stored_keys is None or k in self.stored_keys}
            fingerprint = self.base_fingerprint
        state = {k: (v.to(dtype) if v.is_floating_point() else v).detach().cpu().contiguous()
                 for k, v in state.items() if not self._external(k)}
        save_file(state, os.path.join(folder, "model.safetensors"))
        config = replace(self.config, encoder_config=self.encoder.config.to_dict())
        partial = bool(lowrank) or self.stored_keys is not None
        write_config(folder, config, WeightStorage(partial, lowrank, fingerprint if partial else None))
        if base_tokenizer and not (lowrank and not self.config.special_tokens_fix):
            raise ValueError("only a low-rank model without added tokens can leave its tokenizer to the base encoder")
        if not base_tokenizer:
            self.tokenizer.save_pretrained(os.path.join(folder, "tokenizer"))
        self.vocab.save(os.path.join(folder, "vocabulary"))

    @classmethod
    def load(cls, directory: str, vocab_path: str | None = None, device: str | torch.device = "cpu",
             light: bool = False) -> Seq2Labels:
        """A model folder (or a training folder: its ``best/``) -> the model, in eval mode on ``device``.
        ``light``: for prediction only, the encoder and its tokenizer without transformers where ``light.py``
        has them (BERT, MPNet).
        A folder that cannot be read raises ``ModelFolderError`` naming the folder or file."""
        directory = model_directory(directory)
        try:
            model = cls._assemble(directory, vocab_path, light)
        except ModelFolderError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as err:  # transformers' and our own complaints
            raise ModelFolderError(f"{directory}: {err}") from err
        return model.to(device).eval()

    @classmethod
    def _assemble(cls, directory: str, vocab_path: str | None, light: bool) -> Seq2Labels:
        config, storage = read_config(directory)
        tokenizer_dir = tokenizer_folder(directory, config, storage, vocab_path)
        light = light and light_encoder_possible(config.encoder_config or {}, tokenizer_dir)
        encoder = encoder_for(config, pretrained=storage.partial, light=light)
        fingerprint = checked_base(directory, config, storage, encoder) if storage.partial else None
        tokenizer = LightTokenizer(tokenizer_dir) if light else load_tokenizer(tokenizer_dir)
        fit_embeddings(encoder, tokenizer)
        vocab = Vocabulary.load(vocab_path or os.path.join(directory, "vocabulary"))
        model = cls(encoder, vocab, tokenizer, config)
        model.base_fingerprint = fingerprint
        model._load_weights(directory, storage.partial)
        return model

    def _load_weights(self, directory: str, partial: bool) -> None:
        path = os.path.join(directory, "model.safetensors")
        try:
            state = load_file(path)
        except SafetensorError as err:
            raise ModelFolderError(f"{path}: cannot read the weights ({err})") from None
        own = self.state_dict()
        state = expand_lowrank(state, own)  # base weight + A @ B
        # The parameters become the loaded tensors (in the model's dtype): no second copy of the weights.
        state = {k: v.to(own[k].dtype) if k in own else v for k, v in state.items()}
        missing, unexpected = self.load_state_dict(state, strict=False, assign=True)
        missing = [k for k in missing if not self._external(k)]
        if unexpected or (missing and not partial):
            raise ModelFolderError(f"{path}: weights do not match the model (missing {missing[:5]}, "
                             f"unexpected {unexpected[:5]})")
        if partial:
            self.stored_keys = set(state)

    def _lowrank_state(self, rank: int, bits: int = 16) -> tuple[dict[str, torch.Tensor], str]:
        """Heads as they are; encoder parameters as ``storage.lowrank_state`` stores them over the pretrained
        encoder; and that encoder's ``base_fingerprint``."""
        base = encoder_for(self.config, pretrained=True, light=False).state_dict()
        state = lowrank_state(self.state_dict(), {f"encoder.{k}": v for k, v in base.items()}, rank, bits)
        return state, base_fingerprint(base)

    def freeze_encoder(self, frozen: bool, train_layers: int | None = None, freeze_embeddings: bool = False) -> None:
        """Freeze the whole encoder (cold steps), or train only its top ``train_layers`` layers; with
        ``freeze_embeddings`` the embedding tables stay as pretrained (a compact model then stores none).
        The pooler is never trained: no loss reaches it (and DDP requires every trained parameter to get a gradient)."""
        for name, param in self.encoder.named_parameters():
            trainable = not frozen and (train_layers is None or in_top_layers(name, self.encoder, train_layers))
            trainable = trainable and not name.startswith("pooler.")  # the tagger never reads the pooled output
            param.requires_grad = trainable and not (freeze_embeddings and name.startswith("embeddings."))

