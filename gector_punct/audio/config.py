"""The settings of a UniPunc tagger's acoustic part (``AcousticConfig``), one nested object of a model
folder's ``config.json``. No torch: ``model.config`` reads it."""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class AcousticConfig:
    """The acoustic part of a UniPunc tagger (``acoustic.AcousticAssistant`` + ``bootstrapper``).
    ``extractor``: fbank (log-mel, ``n_mels`` bands), whisper or wav2vec2 (``extractor_model``: a folder or
    hub name; or ``extractor_config``, a random encoder of that transformers config, in tests), frozen
    unless ``freeze_extractor`` is False; a down-sampler of ``len(strides)`` convolutions (``kernel``,
    ``strides``) to ``dim``; ``virtual_length`` learned rows stand in for missing audio; the bootstrapper has
    ``layers`` layers of ``heads`` heads over ``attention_dim``, ``dropout``, and ``positions``: whether it
    aligns text and audio by their relative positions."""

    extractor: str = "fbank"
    extractor_model: str | None = None
    extractor_config: dict | None = None
    freeze_extractor: bool = True
    n_mels: int = 80
    dim: int = 128
    kernel: int = 15
    strides: tuple[int, ...] = (5, 5)
    virtual_length: int = 5
    layers: int = 2
    heads: int = 4
    attention_dim: int = 128
    dropout: float = 0.1
    positions: bool = True

    @classmethod
    def from_json(cls, values: dict) -> AcousticConfig:
        """A JSON object of acoustic settings (any subset; the rest default) -> the config; unknown keys raise
        ValueError."""
        known = {f.name for f in fields(cls)}
        if not isinstance(values, dict) or set(values) - known:
            found = sorted(set(values) - known) if isinstance(values, dict) else type(values).__name__
            raise ValueError(f"unknown acoustic settings {found} (known: {sorted(known)})")
        if "strides" in values:  # a JSON list
            values = dict(values, strides=tuple(values["strides"]))
        return cls(**values)
