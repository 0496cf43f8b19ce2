"""What every engine gives and the dispatcher (``choice``) reads; the engines import it, never ``choice``.

``Feed``: one batch in (the positions of its windows in the model's window list, and
``windows.collate_arrays`` of them), each head's probabilities out. ``Runner``: what runs a tagger's
batches (an ``OnnxTagger`` itself, or ``torch_engine.TorchRunner``). ``GRAPH_FILE`` and ``META_FILE``: the
files of a graph's cache folder (``graphs``), written by ``onnx_export`` and read by ``onnx_runtime``.
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
