"""The folder where things built on first use are kept (encoders from pip packages, ONNX graphs of model
folders), how they get there, and the remembered fingerprints of pretrained encoders. No torch.

``cache_root()``: ``$GECTOR_PUNCT_CACHE``, default ``~/.cache/gector_punct``. ``built_folder(name, build,
what, kind, marker)`` -> ``<cache>/<kind>/<name>``: the folder if it is there (its ``marker`` file present),
else ``build(tmp)`` writes it into a temporary folder beside it (``files.temporary_dir``), which is then put in
place (``files.place_dir``), so a folder appears whole or not at all (an interrupted build leaves only a
``.<name>.*.tmp`` folder that no build reads). Two processes that build the same folder at once both succeed:
the first one's folder stays, the other uses it and removes its own. A build says on stderr, in one line,
what it built and how long it took.

``encoder_fingerprint(folder, compute)``: the one way to the fingerprint of the encoder in a folder: its
stand-in's (``stand_in_fingerprint``: what a compact stand-in encoder folder, ``STAND_IN``, answers for), else
the remembered one, else ``compute()``'s, remembered (None where nothing is known and no ``compute`` given).
``remembered_fingerprint(weights, compute)`` / ``known_fingerprint(weights)``: a pretrained encoder's
fingerprint (``model.storage.base_fingerprint``) remembered in ``<cache>/fingerprints/`` under its weights
file's real path, size and modification time; ``known_fingerprint`` reads it without computing anything
(None when it is not remembered), so that a prediction without torch can key its cached graph by it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable

from gector_punct.text.files import atomic_write, cache_root, place_dir, temporary_dir

BUILT_MARK = "config.json"  # a built encoder folder has it: a Hugging Face encoder folder


def built_folder(name: str, build: Callable[[str], None], what: str, kind: str = "encoders",
                 marker: str = BUILT_MARK) -> str:
    out = os.path.join(cache_root(), kind, name)
    if os.path.isfile(os.path.join(out, marker)):
        return out
    tmp = temporary_dir(out)
    started = time.perf_counter()
    try:
        build(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if not place_dir(tmp, out) and not os.path.isfile(os.path.join(out, marker)):
        raise FileExistsError(f"{out} is in the way of the built {what} and is not one: remove it")
    print(f"gector-punct: built {what} into {out} in {time.perf_counter() - started:.1f} s (once)", file=sys.stderr)
    return out


STAND_IN = "stand_in.json"  # in an encoder folder rebuilt from a compact copy (utils/build/device_bundle.py)


def stand_in_fingerprint(folder: str) -> str | None:
    """The fingerprint an encoder folder answers for when it is a compact stand-in for another encoder (its
    ``stand_in.json`` records the real one's), else None."""
    path = os.path.join(folder, STAND_IN)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)["base_fingerprint"]


def _record_path(weights: str) -> str:
    return os.path.join(cache_root(), "fingerprints", hashlib.sha256(weights.encode()).hexdigest()[:32] + ".json")


def _file_key(weights: str) -> dict:
    stat = os.stat(weights)
    return {"file": weights, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def known_fingerprint(weights: str) -> str | None:
    """The remembered fingerprint of the encoder in the file ``weights`` while the file is unchanged (same
    real path, size and modification time), else None."""
    if not os.path.isfile(weights):
        return None
    weights = os.path.realpath(weights)
    try:
        with open(_record_path(weights), encoding="utf-8") as f:
            known = json.load(f)
        key = _file_key(weights)
        return known["base_fingerprint"] if {k: known.get(k) for k in key} == key else None
    except (OSError, ValueError, KeyError):
        return None


def remembered_fingerprint(weights: str, compute: Callable[[], str]) -> str:
    """``compute()``, the fingerprint of the encoder loaded from the file ``weights``, remembered in
    ``<cache>/fingerprints/`` under the file's real path, size and modification time (hashing all-mpnet-base-v2
    takes longer than the rest of loading it), and computed again whenever one of them changes. A
    ``weights`` that is no file (a hub name) is not remembered, nor where the cache cannot be written."""
    if not os.path.isfile(weights):
        return compute()
    known = known_fingerprint(weights)
    if known is not None:
        return known
    weights = os.path.realpath(weights)
    found = compute()
    try:
        with atomic_write(_record_path(weights)) as f:
            json.dump({**_file_key(weights), "base_fingerprint": found}, f)
    except OSError:
        pass
    return found


def encoder_fingerprint(folder: str, compute: Callable[[], str] | None = None) -> str | None:
    """The fingerprint of the pretrained encoder in ``folder`` (a folder or a hub name): a stand-in's
    recorded one, else the one remembered for its ``model.safetensors``, else ``compute()``'s (remembered);
    None where none is known and ``compute`` is None (prediction without torch then builds what computes it)."""
    weights = os.path.join(folder, "model.safetensors")
    found = stand_in_fingerprint(folder)
    if found is not None:
        return found
    return known_fingerprint(weights) if compute is None else remembered_fingerprint(weights, compute)
