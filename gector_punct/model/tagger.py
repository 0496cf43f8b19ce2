"""The Seq2Labels tagger: encoder -> first subword of each word -> dropout -> one linear head per ``HEADS``.

``forward(batch)`` (a ``batch.Batch``) returns, per head, its ``logits_key`` / ``probs_key`` tensors
(batch x words x labels). Given ``batch.targets`` (each head's ``target_key`` tensor) it also returns
``loss``: the sum over heads of the cross-entropy averaged over the words whose label is known, and its
parts ``loss_sums`` / ``loss_counts`` (``losses.head_loss``: per head, summed cross-entropy and known words
or their summed class weights) so that distributed training can average over the global batch.

Settings live in ``ModelConfig`` (with the decoding defaults, ``DecodeConfig``), saved flat in
``config.json``. ``save`` / ``write_folder`` / ``load`` are ``model.folders``' (the folder, partial and
low-rank storage); what fine-tuning does to a trained tagger (``adjust``, ``grow_labels``, freezing) is
``training.fine_tuning``'s.

The optional parts (audio, case context, switching tokens) are built from the config at construction
(``build_parts``, which ``fine_tuning.adjust`` calls again for a trained model that lacks them);
``forward`` reads each one's inputs from the batch.

Switching tokens (seed 001): with ``switches`` (e.g. ``("disf", "punc")``) each window carries one slot per
task after its special prefix; ``forward`` then also reads ``batch.switches`` (batch x tasks: 0 off, 1 on)
and puts each task's learned on/off vector in its slot (``inputs_embeds``). A punctuation target ``NOT_DELETED`` (a
word that stays while the punc task is off) is scored as -log P(not ``$DELETE``). In a window whose ``disf``
switch is off, ``$DELETE`` is not in the punctuation head's distribution at all (its logit is -inf), so an
off task is neither predicted nor taught.

UniPunc (audio): ``acoustic`` settings (``audio.config.AcousticConfig``) put an acoustic assistant and a coordinate
bootstrapper between the encoder and the heads; ``forward`` then also reads ``batch.acoustic`` /
``acoustic_lengths`` / ``has_audio`` / ``text_positions`` (``audio_data.AudioLines.batch``).
"""
from __future__ import annotations

import torch
from torch import nn

from gector_punct.audio.acoustic import AcousticAssistant
from gector_punct.audio.bootstrapper import CoordinateBootstrapper
from gector_punct.model import folders
from gector_punct.model.base_encoder import cut_layers, encoder_for, fit_embeddings, installed_fingerprint, layer_count
from gector_punct.model.batch import Batch
from gector_punct.model.config import DecodeConfig, ModelConfig, ModelFolderError, store_decode_defaults
from gector_punct.model.losses import head_loss
from gector_punct.model.vocabulary import CASE_HEAD, HEADS, IGNORE, PUNCT_HEAD, Vocabulary
from gector_punct.model.windows import ReadsWindows, load_tokenizer
from gector_punct.text.tags import DELETE, MARK_CONTEXTS

__all__ = ["Batch", "DecodeConfig", "ModelConfig", "ModelFolderError", "Seq2Labels", "store_decode_defaults"]


class Seq2Labels(ReadsWindows, nn.Module):
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
        self.build_parts()

    def build_parts(self) -> None:
        """The encoder cut to ``encoder_layers``; then register the parts the config asks for and the model
        lacks, each a no-op until trained where it can be: the acoustic assistant and coordinate bootstrapper
        (``acoustic``; zero output projections: the identity), one vector per mark context added before the case head (``case_context``; zeros), and per
        switching task two vectors, off and on, for its slot at the start of every window (``switches``).
        A partially stored model stores its new parts too."""
        c, hidden = self.config, self.encoder.config.hidden_size
        if c.encoder_layers is not None and c.encoder_layers != layer_count(self.encoder):
            cut_layers(self.encoder, c.encoder_layers)
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

    def input_embedding_key(self) -> str:
        """The state-dict key of the encoder's word-embedding table (its name differs between encoders)."""
        table = self.encoder.get_input_embeddings().weight
        return next(f"encoder.{name}" for name, p in self.encoder.named_parameters() if p is table)

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
            delete = self.vocab.index(PUNCT_HEAD.namespace, DELETE)
            parts = [head_loss(out[h.logits_key], targets[h.target_key], batch.word_mask, self.class_weights.get(h.name),
                               self.config.label_smoothing, delete) for h in HEADS]
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

    def save(self, directory: str, store_dtype: str | None = None, lowrank: int | None = None,
             base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
        """Write the model folder atomically (``folders.save``; ``lowrank``: changed encoder matrices as
        low-rank deltas over the pretrained encoder)."""
        folders.save(self, directory, store_dtype, lowrank, base_tokenizer, lowrank_bits)

    def write_folder(self, folder: str, store_dtype: str | None = None, lowrank: int | None = None,
                     base_tokenizer: bool = False, lowrank_bits: int = 16) -> None:
        """The model's files into an existing folder (``folders.write_folder``: a checkpoint adds its own)."""
        folders.write_folder(self, folder, store_dtype, lowrank, base_tokenizer, lowrank_bits)

    @classmethod
    def load(cls, directory: str, vocab_path: str | None = None, device: str | torch.device = "cpu",
             light: bool = False) -> Seq2Labels:
        """A model folder (or a training folder: its ``best/``) -> the model, in eval mode on ``device``
        (``folders.load``; ``ModelFolderError`` naming the folder or file when it cannot be read)."""
        return folders.load(cls, directory, vocab_path, device, light)
