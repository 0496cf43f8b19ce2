"""The acoustic assistant of UniPunc: waves -> acoustic feature extractor -> down-sampler -> acoustic
embeddings, or the learnable virtual embedding for a sample with no audio.

* Feature extractors (``make_extractor(settings)``, settings a ``audio.config.AcousticConfig``), each
  ``forward(waves (B, S), lengths (B,)) -> (features (B, T, D), lengths (B,))`` on 16 kHz waves, and an
  ``extractor_id`` that names its weights (the feature cache key):
  ``fbank``: log-mel filterbank (transformers' ``audio_utils`` mel code), 100 frames/s, per-utterance mean
  and variance normalised, no weights; ``whisper``: a Whisper encoder (local folder, a folder name under
  ``$GECTOR_PUNCT_ENCODERS``, or hub name); every 30 s chunk is padded to the 3000 mel frames Whisper
  insists on and its output cut to the real length (50 frames/s); ``wav2vec2``: ``Wav2Vec2Model``
  (pretrained, or a random ``extractor_config`` in tests), 50 frames/s.
* ``DownSampler``: stacked 1-D convolutions (UniPunc: 2 layers, kernel 15, stride 5). Padded frames are
  zeroed before each convolution and valid lengths recomputed after it, so a sample's output does not
  depend on how much padding its batch adds.
* ``AcousticAssistant(settings)``: an extractor, a down-sampler + ``virtual`` (``virtual_length`` x ``dim``
  learnable rows). ``forward(audio, audio_lengths, has_audio) -> (memory (B, M, dim), memory_mask (B, M),
  memory_positions (B, M))``: rows of samples without audio are the virtual embedding. ``audio`` is the
  extractor's *output* when the extractor is frozen (so features can be computed once and cached) and raw
  waves when it is fine-tuned (``wants_waves``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os

import numpy as np
import torch
from torch import nn

from gector_punct.audio.waves import SAMPLE_RATE
from gector_punct.audio.config import AcousticConfig
from gector_punct.encoders.runtime import quiet_transformers

ENCODERS_ENV = "GECTOR_PUNCT_ENCODERS"


def resolve_speech_encoder(name: str) -> str:
    """A folder as it is; else a folder of that name under $GECTOR_PUNCT_ENCODERS (default
    ~/.cache/punct-encoders); else a hub name."""
    if os.path.isdir(name):
        return name
    root = os.environ.get(ENCODERS_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "punct-encoders")
    candidate = os.path.join(root, os.path.basename(name.rstrip("/")))
    return candidate if os.path.isdir(candidate) else name


def _fingerprint(module: nn.Module, config) -> str:
    digest = hashlib.sha1(json.dumps(config, sort_keys=True, default=str).encode())
    params = list(module.parameters())
    for p in params[:1] + params[-1:]:  # enough to tell two weight sets apart
        digest.update(p.detach().float().cpu().numpy().tobytes()[:4096])
    return digest.hexdigest()[:12]


class FbankExtractor(nn.Module):
    frame_rate = 100

    def __init__(self, n_mels: int = 80):
        super().__init__()
        from transformers.audio_utils import mel_filter_bank, window_function

        self.n_mels = n_mels
        self.window = window_function(400, "hann")
        self.filters = mel_filter_bank(num_frequency_bins=201, num_mel_filters=n_mels, min_frequency=20.0,
                                       max_frequency=SAMPLE_RATE / 2, sampling_rate=SAMPLE_RATE, mel_scale="slaney",
                                       norm="slaney")
        self.dim, self.extractor_id = n_mels, f"fbank-{n_mels}-cmvn"

    def one(self, wave: np.ndarray) -> torch.Tensor:
        from transformers.audio_utils import spectrogram

        spec = spectrogram(wave, self.window, frame_length=400, hop_length=160, fft_length=400, power=2.0,
                           mel_filters=self.filters, log_mel="log10", center=True)  # (n_mels, frames)
        spec = spec[:, : max(1, len(wave) // 160)]  # 100 frames per second of audio, not one more
        spec = (spec - spec.mean(1, keepdims=True)) / (spec.std(1, keepdims=True) + 1e-5)
        return torch.from_numpy(np.ascontiguousarray(spec.T, dtype=np.float32))

    def forward(self, waves: torch.Tensor, lengths: torch.Tensor):
        feats = [self.one(w[:n].cpu().numpy()) for w, n in zip(waves.float(), lengths.tolist())]
        return _pad(feats, waves.device)


class WhisperExtractor(nn.Module):
    frame_rate = 50
    CHUNK = 30 * SAMPLE_RATE

    def __init__(self, model: str | None, config: dict | None = None):
        super().__init__()
        from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperModel

        if config is not None:  # a random encoder (tests)
            self.encoder = WhisperModel(WhisperConfig(**config)).get_encoder()
            self.features = WhisperFeatureExtractor(feature_size=self.encoder.config.num_mel_bins)
        else:
            path = resolve_speech_encoder(model)
            self.encoder = WhisperModel.from_pretrained(path).get_encoder()
            self.features = WhisperFeatureExtractor.from_pretrained(path)
        self.dim = self.encoder.config.d_model
        self.extractor_id = f"whisper-{os.path.basename(str(model).rstrip('/'))}-{_fingerprint(self.encoder, config)}"

    def forward(self, waves: torch.Tensor, lengths: torch.Tensor):
        chunks, owners = [], []
        for i, (wave, n) in enumerate(zip(waves.float().cpu().numpy(), lengths.tolist())):
            for start in range(0, n, self.CHUNK):
                chunks.append(wave[start: min(n, start + self.CHUNK)])
                owners.append(i)
        mel = self.features(chunks, sampling_rate=SAMPLE_RATE, padding="max_length", return_tensors="pt").input_features
        out = self.encoder(mel.to(waves.device)).last_hidden_state  # (chunks, 1500, d)
        per_sample: list[list[torch.Tensor]] = [[] for _ in range(len(lengths))]
        for row, (chunk, owner) in enumerate(zip(chunks, owners)):
            per_sample[owner].append(out[row, : max(1, math.ceil(len(chunk) / 320))])  # 320 samples per frame
        return _pad([torch.cat(parts) for parts in per_sample], waves.device)


class Wav2Vec2Extractor(nn.Module):
    def __init__(self, model: str | None, config: dict | None = None):
        super().__init__()
        from transformers import Wav2Vec2Config, Wav2Vec2Model

        if config is not None:
            self.model = Wav2Vec2Model(Wav2Vec2Config(**config))
        else:
            self.model = Wav2Vec2Model.from_pretrained(resolve_speech_encoder(model))
        self.dim = self.model.config.hidden_size
        self.frame_rate = SAMPLE_RATE / math.prod(self.model.config.conv_stride)  # 50 for the real ones
        self.extractor_id = f"wav2vec2-{os.path.basename(str(model).rstrip('/'))}-{_fingerprint(self.model, config)}"

    def forward(self, waves: torch.Tensor, lengths: torch.Tensor):
        mask = torch.arange(waves.shape[1], device=waves.device)[None] < lengths[:, None]
        n = lengths.clamp(min=1)[:, None].float()
        mean = (waves * mask).sum(1, keepdim=True) / n  # Wav2Vec2FeatureExtractor's normalisation, padding-free
        var = (((waves - mean) * mask) ** 2).sum(1, keepdim=True) / n
        values = ((waves - mean) / (var + 1e-7).sqrt()) * mask
        hidden = self.model(values, attention_mask=mask.long()).last_hidden_state
        out_lengths = self.model._get_feat_extract_output_lengths(lengths).long().clamp(max=hidden.shape[1])
        return hidden, out_lengths


def make_extractor(s: AcousticConfig) -> nn.Module:
    quiet_transformers()
    if s.extractor == "fbank":
        return FbankExtractor(s.n_mels)
    if s.extractor in ("whisper", "wav2vec2"):
        if not s.extractor_model and s.extractor_config is None:
            raise ValueError(f"the {s.extractor} extractor needs extractor_model (a folder or hub name)")
        kind = WhisperExtractor if s.extractor == "whisper" else Wav2Vec2Extractor
        return kind(s.extractor_model, s.extractor_config)
    raise ValueError(f"unknown acoustic extractor {s.extractor!r} (fbank, whisper, wav2vec2)")


def _pad(rows: list[torch.Tensor], device) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)
    out = torch.zeros(len(rows), max(1, int(lengths.max())), rows[0].shape[-1])
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out.to(device), lengths.to(device)


def mask_of(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(B, width) bool, True at valid positions."""
    return torch.arange(width, device=lengths.device)[None] < lengths[:, None]


class DownSampler(nn.Module):
    def __init__(self, in_dim: int, dim: int, kernel: int = 15, strides=(5, 5)):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(in_dim if i == 0 else dim, dim, kernel, stride, padding=kernel // 2)
                                   for i, stride in enumerate(strides))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.transpose(1, 2)  # (B, D, T)
        for conv in self.convs:
            x = x * mask_of(lengths, x.shape[-1])[:, None].to(x.dtype)  # padding must read as silence-free zeros
            x = nn.functional.gelu(conv(x))
            k, s, p = conv.kernel_size[0], conv.stride[0], conv.padding[0]
            lengths = torch.div(lengths + 2 * p - k, s, rounding_mode="floor") + 1
            lengths = lengths.clamp(min=1, max=x.shape[-1])
        return self.norm(x.transpose(1, 2)), lengths


class AcousticAssistant(nn.Module):
    def __init__(self, settings: AcousticConfig):
        super().__init__()
        self.settings = s = settings
        self.extractor = make_extractor(s)
        self.frozen = bool(s.freeze_extractor)
        if self.frozen:
            self.extractor.requires_grad_(False)
        self.downsample = DownSampler(self.extractor.dim, s.dim, s.kernel, tuple(s.strides))
        self.virtual = nn.Parameter(torch.randn(s.virtual_length, s.dim) * 0.02)

    @property
    def wants_waves(self) -> bool:
        """True: forward takes raw waves (fine-tuned extractor); False: the extractor's cached output."""
        return not self.frozen

    @torch.no_grad()
    def extract(self, waves: list[np.ndarray]) -> list[torch.Tensor]:
        """The frozen extractor's features of each wave, (T, D) each (the cacheable part)."""
        self.extractor.eval()
        device = self.virtual.device
        lengths = torch.tensor([len(w) for w in waves])
        padded = torch.zeros(len(waves), int(lengths.max()))
        for i, w in enumerate(waves):
            padded[i, : len(w)] = torch.from_numpy(np.asarray(w, dtype=np.float32))
        feats, out_lengths = self.extractor(padded.to(device), lengths.to(device))
        return [f[:n].float().cpu() for f, n in zip(feats, out_lengths.tolist())]

    def forward(self, audio: torch.Tensor | None, audio_lengths: torch.Tensor | None, has_audio: torch.Tensor):
        batch, device = has_audio.shape[0], self.virtual.device
        virtual = self.virtual[None].expand(batch, -1, -1)
        v_len = virtual.shape[1]
        v_pos = (torch.arange(v_len, device=device, dtype=torch.float) + 0.5) / v_len
        if audio is None or not bool(has_audio.any()):
            return virtual, torch.ones(batch, v_len, dtype=torch.bool, device=device), v_pos[None].expand(batch, -1)
        lengths = audio_lengths.clamp(min=1)
        if self.wants_waves:
            audio, lengths = self.extractor(audio, lengths)
        emb, lengths = self.downsample(audio.to(self.virtual.dtype), lengths)
        width = max(emb.shape[1], v_len)
        emb = nn.functional.pad(emb, (0, 0, 0, width - emb.shape[1]))
        real_mask = mask_of(lengths, width)
        real_pos = (torch.arange(width, device=device, dtype=torch.float)[None] + 0.5) / lengths[:, None].float()
        virt = nn.functional.pad(virtual, (0, 0, 0, width - v_len))
        use = has_audio.bool()
        memory = torch.where(use[:, None, None], emb, virt)
        mask = torch.where(use[:, None], real_mask, mask_of(torch.full_like(lengths, v_len), width))
        positions = torch.where(use[:, None], real_pos, nn.functional.pad(v_pos, (0, width - v_len))[None])
        return memory, mask, positions.clamp(max=1.0)
