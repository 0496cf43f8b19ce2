#!/usr/bin/env python
"""Whether a line's restoration depends on the lines batched beside it: the evidence behind serve.py keeping
requests apart (docs/service.md). Restores --lines lines of a file each alone, then all in one
``Punctuator.predict`` call (batches of similar lengths), then in groups of --group (lengths mixed, as
concurrent requests would be), and prints how many output lines differ and the largest difference of any
probability between alone and batched.

    python utils/bench/batch_dependence.py --input_file /work/runs/d/spoken.dev.src --lines 1500
"""
from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass

import numpy as np

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.loading import ModelLoadError, load_punctuator
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.existing import prepare_spaced
from gector_punct.text.files import InputError, read_lines
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class BatchDependenceFlags(Settings):
    input_file: str = flag("-", "lines to restore, one per line", default_text="-, stdin")
    lines: int = flag(1000, "lines taken from it, shuffled", min=1)
    group: int = flag(16, "lines per call in the mixed groups", min=1)
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    engine: str = reused(PredictionSettings, "engine")
    threads: int = reused(PredictionSettings, "threads", default=1)
    seed: int = flag(0, "seed of the shuffle")


def parse_args(argv=None) -> BatchDependenceFlags:
    p = FlagParser(__doc__)
    add_flags(p, BatchDependenceFlags)
    return p.settings(BatchDependenceFlags, p.parse_args(argv))


def largest_difference(punctuator: Punctuator, lines: list[str]) -> float:
    """The largest |p(alone) - p(batched)| over every word, head and label of ``lines``."""
    words = [w for w in (prepare_spaced(line, punctuator.existing)[0] for line in lines) if w]
    together, row, largest = punctuator.probabilities(words), 0, 0.0
    for line_words in words:
        for name, table in punctuator.probabilities([line_words]).items():
            largest = max(largest, float(np.abs(table - together[name][row: row + len(line_words)]).max()))
        row += len(line_words)
    return largest


def main(argv=None) -> None:
    args = parse_args(argv)
    try:
        punctuator = load_punctuator(PredictionSettings(model_path=args.model_path, engine=args.engine, device="cpu"),
                                     threads=args.threads)
        lines = [line for _, line in read_lines(args.input_file)]
    except (ModelLoadError, InputError) as err:  # their messages name the model or the file (and line)
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    random.Random(args.seed).shuffle(lines)
    lines = lines[: args.lines]
    start = time.perf_counter()
    alone = [punctuator.predict([line])[0] for line in lines]
    seconds_alone = time.perf_counter() - start
    start = time.perf_counter()
    together = punctuator.predict(lines)
    seconds_together = time.perf_counter() - start
    grouped = [out for i in range(0, len(lines), args.group) for out in punctuator.predict(lines[i: i + args.group])]
    print(f"{len(lines)} lines of {args.input_file}, {args.threads} thread(s)")
    print(f"alone {seconds_alone:.1f} s, in one call {seconds_together:.1f} s")
    print(f"output lines that differ from alone: in one call {sum(a != b for a, b in zip(alone, together))}, "
          f"in groups of {args.group} {sum(a != b for a, b in zip(alone, grouped))}")
    print(f"largest probability difference, alone vs in one call: {largest_difference(punctuator, lines):.2e}")


if __name__ == "__main__":
    run_script(main)
