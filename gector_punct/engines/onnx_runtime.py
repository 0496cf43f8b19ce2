"""The ONNX engine: a model folder's graph run by ONNX Runtime on the CPU. No torch, no transformers (for the
shipped models), once the graph is in the cache (``graphs``; the first use builds it with torch).

``OnnxTagger.load(folder, vocab_path, precision, threads)`` -> a tagger that predicts as the folder's
``Seq2Labels`` does: the same settings (``config``), labels (``vocab``, ``tasks``), tokenizer and windows
(``text_encoder``), and ``feed(...)`` -> the function that runs one batch (``base.Feed``:
``windows.collate_arrays`` in, each head's probabilities out). ``precision``: one of
``model.config.ENGINE_PRECISIONS`` (default: the folder's ``engine_precision``); ``threads``: ONNX Runtime's intra-op threads (default: one
per core); where the int8 graph failed its check when it was built (``onnx_export.check_int8``), the model
runs in float32 and says why in one line on stderr. An int8 graph takes one window at a time
(``max_batch``), so that a window's output depends on that window alone; a float32 graph runs the batches as they come. A folder that cannot be read raises
``ModelFolderError`` naming it, as the torch engine does; a model with an acoustic part is refused (the
torch engine runs it).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from gector_punct.encoders.tokenizer import LightTokenizer
from gector_punct.engines.base import GRAPH_FILE, META_FILE, Feed, new_session
from gector_punct.engines.graphs import graph_folder
from gector_punct.model.config import (ENGINE_PRECISIONS, ModelConfig, ModelFolderError, model_directory, read_config,
                                       reading_folder, tokenizer_folder)
from gector_punct.model.vocabulary import HEADS, Vocabulary
from gector_punct.model.windows import ReadsWindows, Window, load_tokenizer


class OnnxTagger(ReadsWindows):
    ENGINE = "onnx"
    acoustic = None  # no audio: a model with an acoustic part runs on the torch engine

    def __init__(self, config: ModelConfig, vocab: Vocabulary, tokenizer, graph: str, meta: dict,
                 threads: int | None = None):
        """``graph``: the cache folder of the model's graph (``graphs.graph_folder``), ``meta`` its META_FILE."""
        self.config, self.vocab, self.tokenizer, self.graph, self.meta = config, vocab, tokenizer, graph, meta
        self.session = new_session(os.path.join(graph, GRAPH_FILE), threads)
        self.inputs, self.outputs = self.meta["inputs"], self.meta["outputs"]
        sizes = {out.name: out.shape[-1] for out in self.session.get_outputs()}
        wrong = [h.namespace for h in HEADS if sizes[h.name] != vocab.size(h.namespace)]
        if wrong:
            raise ModelFolderError(f"the vocabulary's {', '.join(wrong)} labels do not match the weights")

    @classmethod
    def load(cls, directory: str, vocab_path: str | None = None, precision: str | None = None,
             threads: int | None = None) -> OnnxTagger:
        directory = model_directory(directory)
        with reading_folder(directory):
            return cls._assemble(directory, vocab_path, precision, threads)

    @classmethod
    def _assemble(cls, directory: str, vocab_path: str | None, precision: str | None, threads: int | None) -> OnnxTagger:
        config, storage = read_config(directory)
        tokenizer_dir = tokenizer_folder(directory, config, storage, vocab_path)
        if config.acoustic is not None:
            raise ModelFolderError(f"{directory}: has an acoustic part, which the onnx engine does not run "
                                   "(use the torch engine)")
        precision = precision or config.engine_precision
        if precision not in ENGINE_PRECISIONS:
            raise ValueError(f"precision {precision!r}: one of {', '.join(ENGINE_PRECISIONS)}")
        graph = graph_folder(directory, config, storage, precision)
        with open(os.path.join(graph, META_FILE), encoding="utf-8") as f:
            meta = json.load(f)
        if meta["precision"] != precision:  # int8 asked, and its check failed on the CPU that built the graph
            print(f"gector-punct: {directory} runs in float32, not {precision}: {meta['int8_check']['why']}",
                  file=sys.stderr)
        tokenizer = LightTokenizer(tokenizer_dir) if meta["tokenizer"] == "light" else load_tokenizer(tokenizer_dir)
        vocab = Vocabulary.load(vocab_path or os.path.join(directory, "vocabulary"))
        return cls(config, vocab, tokenizer, graph, meta, threads)

    def feed(self, windows: list[Window], word_lines: list[list[str]], audio: list | None = None,
             audio_cache: str | None = None, skip_bad_audio: bool = False) -> Feed:
        return self.run

    @property
    def max_batch(self) -> int | None:
        """1 for an int8 graph: dynamic int8 scales a product's input by its largest value over the whole batch,
        padding included, so run together a window's output would depend on which windows share its batch
        (and so on the chunk and batch sizes); alone, a window is unpadded and its output its own."""
        return None if self.meta["precision"] == "float32" else 1

    def run(self, indices: list[int], arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The batch's probabilities."""
        return dict(zip(self.outputs, self.session.run(self.outputs, {k: arrays[k] for k in self.inputs})))

