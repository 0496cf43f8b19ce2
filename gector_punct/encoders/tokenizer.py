"""A tokenizer on the ``tokenizers`` library alone (no torch, no transformers): ``LightTokenizer(folder)``
reads a ``tokenizer.json`` and answers the few calls ``model.windows.TextEncoder`` and ``Seq2Labels`` make of
a transformers fast tokenizer. Prediction uses it wherever an encoder runs without transformers (the
plain-torch encoders, the ONNX engine).
"""
from __future__ import annotations

import json
import os


class LightTokenizer:
    """The calls ``TextEncoder`` and ``Seq2Labels`` make of a transformers fast tokenizer, on ``tokenizers``
    (any ``tokenizer.json``: WordPiece, SentencePiece ...); the unknown and padding tokens are read from
    ``special_tokens_map.json`` / ``tokenizer_config.json`` (BERT's ``[UNK]`` / ``[PAD]`` where neither names them)."""

    def __init__(self, directory: str):
        from tokenizers import Tokenizer

        self.directory = directory
        self._tok = Tokenizer.from_file(os.path.join(directory, "tokenizer.json"))
        self._tok.no_truncation()
        self._tok.no_padding()
        special = {}
        for name in ("special_tokens_map.json", "tokenizer_config.json"):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    special = {**json.load(f), **special}
        token = lambda key: special[key]["content"] if isinstance(special.get(key), dict) else special.get(key)  # noqa: E731
        self.unk_token_id = self._tok.token_to_id(token("unk_token") or "[UNK]")
        self.pad_token_id = self._tok.token_to_id(token("pad_token") or "[PAD]")

    def __len__(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    def get_vocab(self) -> dict[str, int]:
        return self._tok.get_vocab(with_added_tokens=True)

    def convert_tokens_to_ids(self, token: str) -> int:
        return self._tok.token_to_id(token)

    def __call__(self, text, is_split_into_words: bool = False, add_special_tokens: bool = True,
                 return_offsets_mapping: bool = False):
        if is_split_into_words:  # offsets, as transformers gives them for split words: within each word
            encodings = self._tok.encode_batch(text, is_pretokenized=True, add_special_tokens=add_special_tokens)
            return _Batch(encodings, return_offsets_mapping)
        return {"input_ids": self._tok.encode(text, add_special_tokens=add_special_tokens).ids}


class _Batch(dict):
    def __init__(self, encodings, offsets: bool = False):
        super().__init__(input_ids=[e.ids for e in encodings])
        if offsets:
            self["offset_mapping"] = [e.offsets for e in encodings]
        self._encodings = encodings

    def word_ids(self, row: int) -> list[int | None]:
        return self._encodings[row].word_ids
