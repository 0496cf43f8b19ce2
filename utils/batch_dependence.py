#!/usr/bin/env python
"""Whether a line's restoration depends on the lines batched beside it: the evidence behind serve.py keeping
requests apart (docs/service.md). Restores --lines lines of a file each alone, then all in one
``Punctuator.predict`` call (batches of similar lengths), then in groups of --group (lengths mixed, as
concurrent requests would be), and prints how many output lines differ and the largest difference of any
probability between alone and batched.

    python utils/batch_dependence.py --input_file /work/runs/d/spoken.dev.src --lines 1500
"""
from __future__ import annotations

import argparse
import random
import sys
import time

import torch

from gector_punct.prediction.punctuator import DEFAULT_MODEL, Punctuator
from gector_punct.text.existing import prepare_spaced


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input_file", default="-", help="lines to restore, one per line (default: - , stdin)")
    p.add_argument("--lines", type=int, default=1000, help="lines taken from it, shuffled (default 1000)")
    p.add_argument("--group", type=int, default=16, help="lines per call in the mixed groups (default 16)")
    p.add_argument("--model_path", default=DEFAULT_MODEL, help="model folder (default: models/default_en)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the shuffle (default 0)")
    return p.parse_args(argv)


def largest_difference(punctuator: Punctuator, lines: list[str]) -> float:
    """The largest |p(alone) - p(batched)| over every word, head and label of ``lines``."""
    words = [w for w in (prepare_spaced(line, punctuator.existing)[0] for line in lines) if w]
    together, row, largest = punctuator.probabilities(words), 0, 0.0
    for line_words in words:
        for name, table in punctuator.probabilities([line_words]).items():
            largest = max(largest, (table - together[name][row: row + len(line_words)]).abs().max().item())
        row += len(line_words)
    return largest


def main(argv=None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    punctuator = Punctuator.load(args.model_path, device="cpu")
    try:
        with open(args.input_file if args.input_file != "-" else sys.stdin.fileno(), encoding="utf-8",
                  closefd=args.input_file != "-") as f:
            lines = [line.rstrip("\n") for line in f]
    except (OSError, UnicodeDecodeError) as err:
        print(f"error: cannot read {args.input_file}: {getattr(err, 'strerror', None) or err}", file=sys.stderr)
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
    main()
