"""Which engine runs a model folder at prediction, and the taggers and runners it gives. No torch.

``ENGINES``: ``onnx`` (the default, ``DEFAULT_ENGINE``: ONNX Runtime on the CPU, in the precision the model
folder chooses, ``ModelConfig.engine_precision``; its graph is exported once into the cache,
``onnx_runtime``) and ``torch`` (eager PyTorch float32: the reference, and the engine for GPUs).
``ENGINE_HELP`` is the help text of every ``--engine`` flag (predict.py, serve.py, utils/predict_ray.py).

``load_taggers(folders, vocab_path, engine, precision, threads, light)`` -> one tagger per model folder:
``onnx_runtime.OnnxTagger`` or ``model.tagger.Seq2Labels``; a model with an acoustic part (UniPunc,
``models/audio_en``) runs on the torch engine whatever the engine asked, and says so on stderr.
``runner_for(model, device, quantize)`` -> what runs that tagger's batches (``Runner``); ``tagger_engine``
-> which engine a tagger is for. ``cpu_device(name)``: the device of a predictor without torch taggers.
What the engines share (``Feed``, ``Runner``) is ``base``'s: the engines import it, and only this module
imports the engines (one way).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from gector_punct.engines.base import Runner
from gector_punct.model.config import model_directory, read_config

ENGINES = ("onnx", "torch")
DEFAULT_ENGINE = "onnx"
ENGINE_HELP = ("onnx: ONNX Runtime on the CPU, in the precision the model folder chooses (config.json's "
               "engine_precision: int8 in some matrix products where that keeps the dev F1), its graph exported once "
               "into the cache on first use; torch: PyTorch float32, the reference, and the engine for a GPU "
               "(--device cuda). A model with audio (models/audio_en) runs on torch either way")

@dataclass(frozen=True)
class CpuDevice:
    """Where a predictor without torch taggers runs (``device.type``, as ``torch.device`` has it)."""

    type: str = "cpu"

    def __str__(self) -> str:
        return self.type


def cpu_device(name: str | None) -> CpuDevice:
    """The CPU, for a device ``name`` of None or ``cpu``; any other is refused (ValueError)."""
    if name not in (None, "cpu"):
        raise ValueError(f"device {name!r}: the onnx engine runs on the CPU; use the torch engine (--engine torch) "
                         f"for {name}")
    return CpuDevice()


def tagger_engine(model: Any) -> str:
    """``onnx`` for an ``OnnxTagger``, ``torch`` for a ``Seq2Labels``."""
    return getattr(model, "ENGINE", "torch")


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: one of {', '.join(ENGINES)}")


def load_taggers(folders: list[str], vocab_path: str | None = None, engine: str = DEFAULT_ENGINE,
                 precision: str | None = None, threads: int | None = None, light: bool = True) -> list:
    """One tagger per model folder for ``engine``: ``precision`` (onnx) overrides the folders' own
    ``engine_precision``; ``threads``: the engine's intra-op threads (None: its default); ``light``
    (torch): the plain-torch encoders where they can run the model."""
    check_engine(engine)
    taggers = []
    for folder in folders:
        on_torch = engine == "torch" or read_config(model_directory(folder))[0].acoustic is not None
        if on_torch:
            from gector_punct.engines.torch_engine import load_tagger

            if engine == "onnx":
                print(f"gector-punct: {folder} has an acoustic part, which the onnx engine does not run: "
                      "it runs on the torch engine", file=sys.stderr)
            taggers.append(load_tagger(folder, vocab_path, light, threads))
        else:
            from gector_punct.engines.onnx_runtime import OnnxTagger

            taggers.append(OnnxTagger.load(folder, vocab_path, precision, threads))
    return taggers


def runner_for(model: Any, device: Any, quantize: bool = False) -> Runner:
    """What runs ``model``'s batches on ``device``: an ``OnnxTagger`` runs its own; a ``Seq2Labels`` runs
    in a ``torch_engine.TorchRunner`` (moved to ``device``; ``quantize``: its encoder in dynamic int8)."""
    if tagger_engine(model) == "onnx":
        if quantize:
            raise ValueError("quantize is the torch engine's dynamic int8; the onnx engine takes the model's "
                             "engine_precision (or precision=)")
        return model
    from gector_punct.engines.torch_engine import TorchRunner

    return TorchRunner(model, device, quantize)
