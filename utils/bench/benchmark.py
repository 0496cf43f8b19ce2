#!/usr/bin/env python
"""Measure prediction speed: words/s of predict.py's code path (on ``--engine``) against the bare PyTorch
float32 forward of the encoder over exactly the same subword windows at the same batch size (what the
engine is measured against), and peak RSS. Each time is given as wall seconds and as this process's CPU
seconds: on a machine shared with other work the CPU seconds (with ``--threads 1``, where no thread waits
for another) compare engines more steadily than the wall.

    python utils/bench/benchmark.py                                  # shipped default model, generated input
    python utils/bench/benchmark.py --model_path M --input_file talk.txt --long_words 20000

The generated input is ASR-like text of mixed lengths (words drawn from the examples, lines of 5 to 120
words) plus one very long line, so both batching and windowing are exercised. This measures the Python
API in one process; ``utils/bench/benchmark_cli.py`` measures ``predict.py`` as a process (start-up, memory).
``--stages`` adds where the end-to-end time goes: reading the lines, tokenising, the model (the encoder
alone is the floor), decoding, writing. ``--threads 1`` against the default shows how the encoder scales.
``bare_encoder_seconds`` is the bare forward ``benchmark_cli.py`` compares ``predict.py`` with too.
"""
import inspect
import os
import random
import resource
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, add_flags, flag
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.punctuator import Punctuator, run_to_end
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct.text.files import read_lines
from gector_punct.text.tags import make_source
from gector_punct.text.tasks import DEFAULT_TASKS, switch_states
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    times, started = {}, time.perf_counter()

    def lap(name: str) -> None:
        nonlocal started
        now = time.perf_counter()
        times[name], started = now - started, now

    job = punctuator.start(lines)
    lap("reading (existing marks, units)")
    for step, name in zip(punctuator.pass_steps(), ("tokenising", "model: encoder, heads, owned words", "decoding"),
                          strict=True):
        done = step(job)
        if inspect.isgenerator(done):  # the encoder's step pauses in parts: run whole
            run_to_end(done)
        lap(name)
    job.written()
    lap("writing (written forms, spacing)")
    return times


def bare_encoder_seconds(models: list[str], lines: list[str], batch_size: int, device: str | None,
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
    for folder in model_folders(models):
        model = Seq2Labels.load(folder, light=True).to(where).eval()
        switches = switch_states(DEFAULT_TASKS, model.config.switches)  # a switching model's windows carry them
        windows = model.text_encoder(max_len).encode_lines([line.split() for line in lines], switches)
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


@dataclass(kw_only=True)
class BenchmarkFlags(PredictionSettings):
    input_file: str | None = flag(None, "text to run on", default_text="generated ASR-like text")
    lines: int = flag(2000, "generated lines of 5-120 words", min=1)
    long_words: int = flag(20000, "words of the one long generated line", min=0)
    quantize: bool = flag(False, "measure the torch engine's dynamic-int8 encoder (CPU; not offered by predict.py: "
                                 "it costs 2+ F1 points; the onnx engine's int8 is --precision int8)")
    stages: bool = flag(False, "also print the seconds of each stage of predict")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, BenchmarkFlags, skip=PredictionSettings.field_names())
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size", "max_len", "threads", "device"))
    args = p.settings(BenchmarkFlags, p.parse_args(argv))
    if args.quantize and args.engine != "torch":
        p.error("--quantize is the torch engine's dynamic int8: add --engine torch (onnx: --precision int8)")
    if args.input_file:
        lines = [line for _, line in read_lines(args.input_file)]
    else:
        lines = generated_lines(args.lines, args.long_words, 1)
    n_words = sum(len(line.split()) for line in lines)
    punctuator = load_punctuator(args, quantize=args.quantize)
    punctuator.predict(lines[:50])  # warm-up
    started, cpu_started = time.perf_counter(), time.process_time()
    out = punctuator.predict(lines)
    end_to_end, end_to_end_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    assert len(out) == len(lines)
    bare_cpu: list[float] = []
    bare = bare_encoder_seconds(model_paths(args.model_path, args.tasks), lines, args.batch_size,
                                args.device if args.engine == "torch" else "cpu", args.max_len, bare_cpu)
    encoder = punctuator.encoders[0]
    windows = encoder.encode_lines([line.split() for line in lines])
    tokens = sum(len(w.input_ids) for w in windows)
    unwindowed = sum(len(p) for line in encoder.word_pieces([line.split() for line in lines]) for p in line)
    extra = (tokens - unwindowed - len(windows) * (len(encoder.prefix) + len(encoder.suffix))) / max(1, unwindowed)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    models = model_paths(args.model_path, args.tasks)
    print(f"engine: {punctuator.engine}, device: {punctuator.device}, model: {' '.join(models)}, "
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
    run_script(main)
