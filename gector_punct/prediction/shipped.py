"""The shipped models (the ``models/`` folder beside the package): their names, the one ``predict.py`` runs
for a set of tasks, and model names or paths -> folders to load.

``model_paths(paths, tasks)``: each given path that exists, as it is; a shipped model's name (``switch_en``,
or ``models/switch_en``) otherwise, as that model's folder, wherever the program runs; none given: the
shipped model that can do ``tasks`` (``shipped_model``: ``switch_en`` when ``disf`` is asked, else ``default_en``). A path that is
neither is kept, for the loader to report (``missing_model_hint`` says what could be meant).
"""
from __future__ import annotations

import os

from gector_punct.model.config import ENSEMBLE_FILE

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "models")
DEFAULT_MODEL = os.path.join(MODELS, "default_en")
SWITCHING_MODEL = os.path.join(MODELS, "switch_en")  # with switching tokens: disfluency deletion too
MULTILINGUAL_MODEL = os.path.join(MODELS, "multilingual")  # zh, fr, de, es, it and en


def shipped_names() -> list[str]:
    """The names of the shipped models (folders of ``MODELS`` holding a model or an ensemble)."""
    if not os.path.isdir(MODELS):
        return []
    return sorted(name for name in os.listdir(MODELS)
                  if any(os.path.isfile(os.path.join(MODELS, name, f)) for f in ("config.json", ENSEMBLE_FILE)))


def shipped_model(tasks: frozenset[str]) -> str:
    """The shipped model folder that can do ``tasks``: the switching model when ``disf`` is asked, else the
    default English model."""
    return SWITCHING_MODEL if "disf" in tasks else DEFAULT_MODEL


def resolve_model(path: str) -> str:
    """``path`` when it exists or names no shipped model, else that shipped model's folder. A shipped model
    is named by its folder's name (``ensemble_en``) or as the cards write it, from the checkout's root
    (``models/ensemble_en``)."""
    if os.path.exists(path):
        return path
    name = os.path.normpath(path).removeprefix("models" + os.sep)
    return os.path.join(MODELS, name) if name in shipped_names() else path


def model_paths(paths: str | list[str] | None, tasks: frozenset[str]) -> list[str]:
    """The model folders to load for ``paths`` (one or several; None: the shipped model for ``tasks``)."""
    if paths is None:
        return [shipped_model(tasks)]
    return [resolve_model(p) for p in ([paths] if isinstance(paths, str) else paths)]


def missing_model_hint(path: str) -> str:
    """For a model path that does not exist: the shipped models one may give by name instead."""
    return f"no folder {path} (the shipped models, by name: {', '.join(shipped_names())})"
