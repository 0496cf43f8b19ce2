"""Prediction settings -> a loaded ``Punctuator``: the one way predict.py, serve.py and Ray get their model.

``load_punctuator(args)``: ``args`` has the prediction flags' attributes (``options.prediction``) and
``device``; the flags that are given override the first model's decoding defaults.
"""
from __future__ import annotations

from typing import Any

from gector_punct.model.config import model_folders
from gector_punct.prediction.punctuator import Punctuator


def load_punctuator(args: Any, audio_cache: str | None = None, skip_bad_audio: bool = False,
                    threads: int | None = None) -> Punctuator:
    """The model(s) of ``args`` (the flags above, and ``device``) on the engine of ``args.engine``, decoding with
    the flags that are given over the first model's own defaults; ``audio_cache``, ``skip_bad_audio`` and
    ``threads``: ``Punctuator``'s. A model whose ``special_tokens_fix`` differs from the flag's raises
    ValueError."""
    punctuator = Punctuator.load(args.model_path, args.vocab_path, engine=args.engine, threads=threads,
                                 iteration_count=args.iteration_count,
                                 batch_size=args.batch_size, max_len=args.max_len, tasks=args.tasks,
                                 device=args.device, audio_cache=audio_cache,
                                 skip_bad_audio=skip_bad_audio,
                                 existing=args.existing, fragments=args.fragments)
    punctuator.decode_config = punctuator.decode_config.overridden(
        additional_confidence=args.additional_confidence, case_confidence=args.case_confidence,
        question_opening=args.question_opening, deletion_threshold=args.deletion_threshold,
        exclamation=args.exclamation,
        min_error_probability=args.min_error_probability)
    for path, model in zip(model_folders(args.model_path), punctuator.models):
        if args.special_tokens_fix is not None and args.special_tokens_fix != model.config.special_tokens_fix:
            raise ValueError(f"--special_tokens_fix {args.special_tokens_fix}, but {path} was trained with "
                             f"special_tokens_fix {model.config.special_tokens_fix} (leave the flag out)")
    return punctuator
