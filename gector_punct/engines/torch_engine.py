"""The torch engine: a ``Seq2Labels`` run eagerly in PyTorch, float32 (under autocast on a GPU): the reference
the ONNX engine is measured against, the engine for GPUs, and the one for models with audio.

``load_tagger(folder, vocab_path, light, threads)`` -> the folder's ``Seq2Labels`` (``light``: the plain-torch
encoder and tokenizer where they can run it; ``threads``: torch's intra-op threads, when given).
``TorchRunner(model, device, quantize)``: the model moved to ``device`` (``quantize``: its encoder's linear
layers in dynamic int8, CPU only); ``feed(...)`` -> the function that runs one batch of windows
(``base.Feed``: ``windows.collate_arrays`` in, each head's probabilities as numpy arrays out), reading
each line's audio for an audio model.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from gector_punct.audio.bootstrapper import text_fractions
from gector_punct.audio.waves import parse_spec
from gector_punct.encoders.runtime import autocast, threads_for
from gector_punct.engines.base import Feed
from gector_punct.model.audio_windows import AudioLines
from gector_punct.model.batch import Batch
from gector_punct.model.tagger import Seq2Labels
from gector_punct.model.vocabulary import HEADS
from gector_punct.model.windows import Window


def load_tagger(folder: str, vocab_path: str | None = None, light: bool = True, threads: int | None = None) -> Seq2Labels:
    if threads:
        torch.set_num_threads(threads)
    return Seq2Labels.load(folder, vocab_path, light=light)


class TorchRunner:
    max_batch = None

    def __init__(self, model: Seq2Labels, device: torch.device, quantize: bool = False):
        if quantize and device.type != "cpu":
            raise ValueError("int8 quantisation runs on the CPU only (use --device cpu)")
        model.to(device).eval()
        if quantize:
            quantize_encoder(model)
        self.model, self.device = model, device

    def feed(self, windows: list[Window], word_lines: list[list[str]], audio: list | None = None,
             audio_cache: str | None = None, skip_bad_audio: bool = False) -> Feed:
        model, device = self.model, self.device
        sound = fractions = None
        if model.acoustic is not None:  # each model its own features: an ensemble's extractors may differ
            specs = [parse_spec(a) if isinstance(a, str) else a for a in (audio or [None] * len(word_lines))]
            sound = AudioLines(model.acoustic, specs, cache_dir=audio_cache, skip_bad=skip_bad_audio)
            fractions = [text_fractions(words) for words in word_lines]

        def run(indices: list[int], arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            batch = {k: torch.from_numpy(v) for k, v in arrays.items()}
            if sound is not None:
                batch.update(sound.batch(windows, indices, fractions))
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            with torch.inference_mode(), autocast(device), threads_for(batch["input_ids"].numel(), device):
                result = model(Batch.of(batch))
                return {head.name: result[head.probs_key].float().cpu().numpy() for head in HEADS}

        return run


def quantize_encoder(model: Seq2Labels) -> None:
    """Swap the encoder's ``nn.Linear`` layers for dynamic-int8 ones, in place (the heads stay float)."""
    with warnings.catch_warnings():  # torch marks its quantised tensor types as deprecated (torchao replaces them)
        warnings.simplefilter("ignore")
        model.encoder = torch.ao.quantization.quantize_dynamic(model.encoder, {torch.nn.Linear}, dtype=torch.qint8)
