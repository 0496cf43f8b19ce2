#!/usr/bin/env python
"""Measure prediction speed: words/s of predict.py's code path (on ``--engine``) against the bare PyTorch
float32 forward of the encoder over exactly the same subword windows at the same batch size (what the
engine is measured against), and peak RSS. Each time is given as wall seconds and as this process's CPU
seconds: on a machine shared with other work the CPU seconds (with ``--threads 1``, where no thread waits
for another) compare engines more steadily than the wall.

    python utils/benchmark.py                                  # shipped default model, generated input
    python utils/benchmark.py --model_path M --input_file talk.txt --long_words 20000

The generated input is ASR-like text of mixed lengths (words drawn from the examples, lines of 5 to 120
words) plus one very long line, so both batching and windowing are exercised. This measures the Python
API in one process; ``utils/benchmark_cli.py`` measures ``predict.py`` as a process (start-up, memory).
``--stages`` adds where the end-to-end time goes: reading the lines, tokenising, the model (the encoder
alone is the floor), decoding, writing. ``--threads 1`` against the default shows how the encoder scales.
``bare_encoder_seconds`` is the bare forward ``benchmark_cli.py`` compares ``predict.py`` with too.
"""
import argparse
import os
import random
import resource
import sys
import time

from gector_punct.engines.choice import DEFAULT_ENGINE, ENGINES
from gector_punct.model.config import ENGINE_PRECISIONS
from gector_punct.prediction.punctuator import DEFAULT_MODEL, Punctuator
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


def bare_encoder_seconds(model_path: str, lines: list[str], batch_size: int, device: str | None,
                         max_len: int | None = None, cpu: list[float] | None = None) -> float:
    """The PyTorch float32 encoder alone over the windows prediction makes of these lines (tokenised beforehand,
    on the device beforehand, under prediction's autocast); for an ensemble folder, the sum over its members'.
    ``cpu``: a list to which this process's CPU seconds of the same runs are appended."""
    import torch

    from gector_punct.encoders.runtime import autocast, pick_device
    from gector_punct.model.config import model_folders
    from gector_punct.model.tagger import Seq2Labels
    from gector_punct.model.windows import WindowedBatcher

    total, where = 0.0, pick_device(device)
    for folder in model_folders([model_path]):
        model = Seq2Labels.load(folder, light=True).to(where).eval()
        windows = model.text_encoder(max_len).encode_lines([line.split() for line in lines])
        batches = [{k: batch[k].to(where) for k in ("input_ids", "attention_mask")}
                   for _, batch in WindowedBatcher(windows, batch_size, pad_id=model.pad_id)]
        with torch.inference_mode(), autocast(where):
            model.encoder(**batches[0])  # warm-up
            if where.type == "cuda":
                torch.cuda.synchronize()
            started, cpu_started = time.perf_counter(), time.process_time()
            for batch in batches:
                model.encoder(**batch)
            if where.type == "cuda":
                torch.cuda.synchronize()
            total += time.perf_counter() - started
            if cpu is not None:
                cpu.append(time.process_time() - cpu_started)
    return total


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_path", default=DEFAULT_MODEL, help="model folder (default: shipped model)")
    p.add_argument("--input_file", default=None, help="text to run on (default: generated ASR-like text)")
    p.add_argument("--lines", type=int, default=2000, help="generated lines of 5-120 words (default 2000)")
    p.add_argument("--long_words", type=int, default=20000, help="words of the one long generated line (default 20000)")
    p.add_argument("--batch_size", type=int, default=32, help="windows per batch (default 32)")
    p.add_argument("--max_len", type=int, default=None, help="subwords per window (default: the model's)")
    p.add_argument("--threads", type=int, default=None, help="the engine's CPU threads (default: its choice)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: the CPU on onnx; on torch, cuda when available)")
    p.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE, help=f"prediction's engine (default {DEFAULT_ENGINE})")
    p.add_argument("--precision", choices=ENGINE_PRECISIONS, default=None,
                   help="the onnx engine's precision (default: the model folder's engine_precision)")
    p.add_argument("--quantize", action="store_true", help="the torch engine's dynamic-int8 encoder (CPU)")
    p.add_argument("--stages", action="store_true", help="also print the seconds of each stage of predict")
    args = p.parse_args(argv)
    if args.quantize and args.engine != "torch":
        p.error("--quantize is the torch engine's dynamic int8: add --engine torch (onnx: --precision int8)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.input_file:
        with open(args.input_file, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f]
    else:
        lines = generated_lines(args.lines, args.long_words, 1)
    n_words = sum(len(line.split()) for line in lines)
    options = {"quantize": True} if args.quantize else {"precision": args.precision} if args.engine == "onnx" else {}
    punctuator = Punctuator.load(args.model_path, batch_size=args.batch_size, max_len=args.max_len, device=args.device,
                                 engine=args.engine, threads=args.threads, **options)
    punctuator.predict(lines[:50])  # warm-up
    started, cpu_started = time.perf_counter(), time.process_time()
    out = punctuator.predict(lines)
    end_to_end, end_to_end_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    assert len(out) == len(lines)
    bare_cpu: list[float] = []
    bare = bare_encoder_seconds(args.model_path, lines, args.batch_size, args.device if args.engine == "torch" else "cpu",
                                args.max_len, bare_cpu)
    encoder = punctuator.encoders[0]
    windows = encoder.encode_lines([line.split() for line in lines])
    tokens = sum(len(w.input_ids) for w in windows)
    unwindowed = sum(len(p) for line in encoder.word_pieces([line.split() for line in lines]) for p in line)
    extra = (tokens - unwindowed - len(windows) * (len(encoder.prefix) + len(encoder.suffix))) / max(1, unwindowed)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"engine: {punctuator.engine}, device: {punctuator.device}, model: {args.model_path}, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"input: {len(lines)} lines, {n_words} words, {len(windows)} windows, {tokens} encoder tokens "
          f"(windowing overlap adds {100 * extra:.1f}% subwords)")
    print(f"end-to-end predict: {n_words / end_to_end:,.0f} words/s ({end_to_end:.1f} s; {end_to_end_cpu:.1f} CPU-s, "
          f"{n_words / end_to_end_cpu:,.0f} words per CPU-s)")
    print(f"bare PyTorch float32 encoder: {n_words / bare:,.0f} words/s ({bare:.1f} s; {sum(bare_cpu):.1f} CPU-s, "
          f"{n_words / sum(bare_cpu):,.0f} words per CPU-s)")
    print(f"ratio bare encoder / end-to-end: {bare / end_to_end:.2f} (in CPU time: {sum(bare_cpu) / end_to_end_cpu:.2f})")
    print(f"peak RSS (both engines in this process): {rss_mb:,.0f} MB")
    if args.stages:
        for name, seconds in stage_seconds(punctuator, lines).items():
            print(f"  {name}: {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
