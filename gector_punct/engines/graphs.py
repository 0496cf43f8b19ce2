"""Where a model folder's ONNX graph is kept: a folder of the cache, named by what the graph is built from.
No torch, unless the graph has to be built (or a base encoder's fingerprint computed for the first time).

``graph_folder(directory, config, storage, precision)`` -> ``<cache>/graphs/<name>-<precision>-<key>``
holding ``GRAPH_FILE`` and ``META_FILE`` (written by ``onnx_export.build_graph`` on first use, through
``encoders.cache.built_folder``: built once, atomically; two processes starting at once both succeed).

The key (``graph_key``) is the SHA-256 of: ``EXPORT_FORMAT`` (raised whenever the export changes what a
graph computes), the precision, the quantizer's settings and the int8 check's threshold (``int8``), the
installed ONNX Runtime's version (its kernels run the check), the model folder's fingerprint
(``model_fingerprint``: its weights file and the settings the graph depends on: not its decoding defaults, window size or ``engine_precision``) and, for a
partial folder (its encoder weights stored over a pretrained encoder), the installed base encoder's
fingerprint (``model.storage.base_fingerprint``, remembered in the cache by ``encoders.cache``: computed
with torch only the first time, or after the encoder's file changed). So editing a folder's decoding
defaults reuses its graph, and new weights or another installed base encoder build a new one.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, fields

from gector_punct.encoders.cache import built_folder, encoder_fingerprint
from gector_punct.encoders.registry import resolve_encoder
from gector_punct.engines.base import GRAPH_FILE, META_FILE
from gector_punct.engines.int8 import INT8_QUANTIZER, MIN_AGREEMENT
from gector_punct.model.config import WEIGHTS, DecodeConfig, ModelConfig, WeightStorage

EXPORT_FORMAT = 4
UNKEYED_SETTINGS = {f.name for f in fields(DecodeConfig)} | set(ModelConfig.ADJUSTABLE)  # the graph does not read these


def file_digest(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_fingerprint(directory: str, config: ModelConfig, storage: WeightStorage) -> str:
    """The folder's weights (``model.safetensors``, hashed) and the settings its graph depends on."""
    settings = {k: v for k, v in config.to_json().items() if k not in UNKEYED_SETTINGS}
    text = json.dumps({"settings": settings, "storage": asdict(storage)}, sort_keys=True, default=str)
    return hashlib.sha256((file_digest(os.path.join(directory, WEIGHTS)) + text).encode()).hexdigest()


def base_encoder_fingerprint(config: ModelConfig, storage: WeightStorage) -> str | None:
    """The installed base encoder's fingerprint for a partial folder (None for a full one), as remembered
    in the cache; computed (torch) where it is not."""
    if not storage.partial:
        return None
    found = encoder_fingerprint(resolve_encoder(config.transformer_model))
    if found is None:
        from gector_punct.engines.onnx_export import installed_base_fingerprint

        found = installed_base_fingerprint(config)
    return found


def graph_key(directory: str, config: ModelConfig, storage: WeightStorage, precision: str) -> dict:
    """What the graph of ``directory`` in ``precision`` is built from, and its ``key``."""
    from onnxruntime import __version__ as onnxruntime_version

    int8 = None if precision == "float32" else {"quantizer": INT8_QUANTIZER, "min_agreement": MIN_AGREEMENT}
    parts = {"export_format": EXPORT_FORMAT, "precision": precision, "int8": int8,
             "onnxruntime": onnxruntime_version, "model": model_fingerprint(directory, config, storage),
             "base_encoder": base_encoder_fingerprint(config, storage)}
    return dict(parts, key=hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest())


def graph_folder(directory: str, config: ModelConfig, storage: WeightStorage, precision: str) -> str:
    """The cache folder of ``directory``'s graph in ``precision``, built (torch) on first use."""
    key = graph_key(directory, config, storage, precision)
    name = os.path.basename(os.path.normpath(os.path.realpath(directory)))

    def build(tmp: str) -> None:
        from gector_punct.engines.onnx_export import build_graph

        build_graph(directory, precision, tmp, key)

    return built_folder(f"{name}-{precision}-{key['key'][:20]}", build, f"the onnx {precision} graph of {directory}",
                        kind="graphs", marker=META_FILE)
