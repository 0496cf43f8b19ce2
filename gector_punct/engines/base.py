"""What every engine gives and the dispatcher (``choice``) reads; the engines import it, never ``choice``.

``Feed``: one batch in (the positions of its windows in the model's window list, and
``windows.collate_arrays`` of them), each head's probabilities out. ``Runner``: what runs a tagger's
batches (an ``OnnxTagger`` itself, or ``torch_engine.TorchRunner``). ``GRAPH_FILE`` and ``META_FILE``: the
files of a graph's cache folder (``graphs``), written by ``onnx_export`` and read by ``onnx_runtime``.
``new_session(path, threads)``: an ONNX Runtime session on the CPU as prediction runs one (the int8 check
of a new graph runs its graphs alike).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

GRAPH_FILE = "model.onnx"
META_FILE = "graph.json"  # written last: a folder with it is complete

# One batch in (the positions of its windows in the model's window list, and ``windows.collate_arrays`` of
# them), each head's probabilities out: head name -> windows x words [x mark contexts] x labels, float32.
Feed = Callable[[list[int], dict[str, np.ndarray]], dict[str, np.ndarray]]


class Runner(Protocol):
    max_batch: int | None  # the most windows it may run at once (None: any), whatever --batch_size asks

    def feed(self, windows: list, word_lines: list[list[str]], audio: list | None, audio_cache: str | None,
             skip_bad_audio: bool) -> Feed:
        """The function that runs this call's batches (an audio model's runner reads the lines' audio)."""


def new_session(path: str, threads: int | None = None):
    """An ``onnxruntime.InferenceSession`` of the graph at ``path`` on the CPU: every graph optimisation,
    ``threads`` intra-op threads (None: one per core), errors only in its log."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or 0
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: its notes on the graph are not the user's concern
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
