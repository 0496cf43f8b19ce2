#!/usr/bin/env python
"""Measure prediction speed: words/s of predict.py's code path against the bare encoder forward pass over
exactly the same subword windows at the same batch size (the floor no tagger can beat), and peak RSS.

    python utils/benchmark.py                                  # shipped default model, generated input
    python utils/benchmark.py --model_path M --input_file talk.txt --long_words 20000

The generated input is ASR-like text of mixed lengths (words drawn from the examples, lines of 5 to 120
words) plus one very long line, so both batching and windowing are exercised. This measures the Python
API in one process; ``utils/benchmark_cli.py`` measures ``predict.py`` as a process (start-up, memory).
``--stages`` adds where the end-to-end time goes: reading the lines, tokenising, the model (the encoder
alone is the floor), decoding, writing. ``--threads 1`` against the default shows how the encoder scales.
"""
import argparse
import os
import random
import resource
import sys
import time

import torch

from gector_punct.model.windows import WindowedBatcher
from gector_punct.prediction.punctuator import DEFAULT_MODEL, Punctuator
from gector_punct.encoders.runtime import autocast
from gector_punct.text.tags import make_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example_words() -> list[str]:
    """The words of the repository's example targets, as an ASR system would give them."""
    with open(os.path.join(ROOT, "examples", "train.tgt"), encoding="utf-8") as f:
        return make_source(f.read().replace("\n", " ")).split()


def generated_lines(n_lines: int, long_words: int, seed: int) -> list[str]:
    words = example_words()
    rng = random.Random(seed)
    lines = []
    for _ in range(n_lines):
        start = rng.randrange(len(words))
        lines.append(" ".join(words[(start + k) % len(words)] for k in range(rng.randint(5, 120))))
    if long_words:
        lines.append(" ".join(words[k % len(words)] for k in range(long_words)))
    return lines


def stage_seconds(punctuator: Punctuator, lines: list[str]) -> dict[str, float]:
    """Seconds of each stage of ``predict`` (one pass, one after the other) over ``lines``."""
    from gector_punct.prediction.punctuator import LinesJob

    times, started = {}, time.perf_counter()

    def lap(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        times[name], started = now - started, now

    job = LinesJob(lines, punctuator.existing)
    words = job.todo_words()
    lap("reading (existing marks, units)")
    windows = punctuator.encode(words)
    lap("tokenising")
    probabilities = punctuator.probabilities(words, windows=windows)
    lap("model: encoder, heads, owned words")
    job.apply(punctuator.decode(words, probabilities, whole=not punctuator.fragments))
    lap("decoding")
    job.written()
    lap("writing (written forms, spacing)")
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_path", default=DEFAULT_MODEL, help="model folder (default: shipped model)")
    p.add_argument("--input_file", default=None, help="text to run on (default: generated ASR-like text)")
    p.add_argument("--lines", type=int, default=2000, help="generated lines of 5-120 words (default 2000)")
    p.add_argument("--long_words", type=int, default=20000, help="words of the one long generated line (default 20000)")
    p.add_argument("--batch_size", type=int, default=32, help="windows per batch (default 32)")
    p.add_argument("--max_len", type=int, default=None, help="subwords per window (default: the model's)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--quantize", action="store_true",
                   help="measure the dynamic-int8 encoder (CPU; not offered by predict.py: it costs 2+ F1 points)")
    p.add_argument("--stages", action="store_true", help="also print the seconds of each stage of predict")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.input_file:
        with open(args.input_file, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f]
    else:
        lines = generated_lines(args.lines, args.long_words, 1)
    n_words = sum(len(line.split()) for line in lines)
    punctuator = Punctuator.load(args.model_path, batch_size=args.batch_size, max_len=args.max_len, device=args.device,
                                 quantize=args.quantize)
    punctuator.predict(lines[:50])  # warm-up

    started = time.perf_counter()
    out = punctuator.predict(lines)
    end_to_end = time.perf_counter() - started
    assert len(out) == len(lines)

    model, encoder = punctuator.models[0], punctuator.encoders[0]
    windows = encoder.encode_lines([line.split() for line in lines])
    batches = [batch for _, batch in WindowedBatcher(windows, args.batch_size, pad_id=model.pad_id)]
    started = time.perf_counter()
    with torch.inference_mode(), autocast(punctuator.device):
        for batch in batches:
            model.encoder(input_ids=batch["input_ids"].to(punctuator.device),
                          attention_mask=batch["attention_mask"].to(punctuator.device))
    if punctuator.device.type == "cuda":
        torch.cuda.synchronize()
    bare = time.perf_counter() - started

    tokens = sum(len(w.input_ids) for w in windows)
    unwindowed = sum(len(p) for line in encoder.word_pieces([line.split() for line in lines]) for p in line)
    extra = (tokens - unwindowed - len(windows) * (len(encoder.prefix) + len(encoder.suffix))) / max(1, unwindowed)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"device: {punctuator.device}, torch threads: {torch.get_num_threads()}, model: {args.model_path}")
    print(f"input: {len(lines)} lines, {n_words} words, {len(windows)} windows, {tokens} encoder tokens "
          f"(windowing overlap adds {100 * extra:.1f}% subwords)")
    print(f"end-to-end predict: {n_words / end_to_end:,.0f} words/s ({end_to_end:.1f} s)")
    print(f"bare encoder floor: {n_words / bare:,.0f} words/s ({bare:.1f} s)")
    print(f"ratio end-to-end / floor: {bare / end_to_end:.2f}")
    print(f"peak RSS: {rss_mb:,.0f} MB")
    if args.stages:
        for name, seconds in stage_seconds(punctuator, lines).items():
            print(f"  {name}: {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
