"""Prediction settings -> a loaded ``Punctuator``: the one way predict.py, serve.py and Ray get their model.

``load_punctuator(settings)``: ``settings`` is a ``PredictionSettings``; the model is ``--model_path``'s
(paths or shipped names) or, without one, the shipped model that can do ``--tasks`` (``shipped.model_paths``,
as ``Punctuator.load`` chooses), run by the engine ``--engine`` names; the decoding thresholds that are given override the first model's own
defaults. A model that cannot be loaded, or does not fit the settings, raises ``ModelLoadError``, whose
message is the one line the scripts print after ``error:``: ``cannot load model PATH: WHY``.
"""
from __future__ import annotations

from dataclasses import fields

from gector_punct.model.config import DecodeConfig, model_folders
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths

# The settings that override a model's DecodeConfig when given: those named like its fields.
DECODING = tuple(f.name for f in fields(DecodeConfig) if f.name in PredictionSettings.field_names())


class ModelLoadError(ValueError):
    """A model that cannot be loaded with the settings given; the message names it and says why."""


def load_punctuator(settings: PredictionSettings, live: bool = False, **options) -> Punctuator:
    """The model(s) ``settings`` name on the engine ``settings.engine`` (none named: the shipped one for its
    tasks, and for ``live`` words: ``shipped.shipped_model``), decoding with the thresholds that are given over
    the first model's own; ``options``: more of ``Punctuator.load``'s (``audio_cache``, ``skip_bad_audio``,
    ``quantize``, ``threads``)."""
    paths = model_paths(settings.model_path, settings.tasks, live)
    options.setdefault("threads", settings.threads)
    try:
        punctuator = Punctuator.load(paths, settings.vocab_path, engine=settings.engine, precision=settings.precision,
                                     iteration_count=settings.iteration_count, batch_size=settings.batch_size,
                                     max_len=settings.max_len, window_views=settings.window_views,
                                     tasks=settings.tasks, device=settings.device,
                                     existing=settings.existing, fragments=settings.fragments,
                                     review_share=settings.review_share,
                                     typography=settings.typography, numbers=settings.numbers, **options)
        for path, model in zip(model_folders(paths), punctuator.models):
            if settings.special_tokens_fix not in (None, model.config.special_tokens_fix):
                raise ValueError(f"--special_tokens_fix {settings.special_tokens_fix}, but {path} was trained with "
                                 f"special_tokens_fix {model.config.special_tokens_fix} (leave the flag out)")
    except (OSError, ValueError) as err:
        raise ModelLoadError(f"cannot load model {' '.join(paths)}: {err}") from None
    punctuator.decode_config = punctuator.decode_config.overridden(**{k: getattr(settings, k) for k in DECODING})
    return punctuator
