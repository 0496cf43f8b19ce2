#!/usr/bin/env python
"""Measure predict.py as users run it, a process started from the shell, against issue 41's targets:

* cold start: the median time of ``predict.py`` on one short line against ``python -c "import torch"``
  (target: at most ``COLD_START_TARGET`` of it);
* throughput: ``predict.py`` end to end (start-up included) on files of ASR-like lines (60-90 words each, 75
  on average) against the bare PyTorch float32 forward of the model's encoder(s) over exactly the same
  128-subword windows at batch 32, run in this process with the same number of threads, with the child's
  user and system CPU time and peak RSS (targets per shipped model: ``TARGETS``);
* memory: the peak RSS on the largest file over that on the smallest.

Every figure is printed with the machine's load average (1 minute) when it was taken: on a machine shared
with other work the figures are lower than on an idle one.

    python utils/bench/benchmark_cli.py                              # 10,000 and 100,000 words, the onnx engine
    python utils/bench/benchmark_cli.py --engine torch --words 100000
    python utils/bench/benchmark_cli.py --words 10000 1000000        # the streaming-memory check (minutes)
    python utils/bench/benchmark_cli.py --model_path accurate_en --words    # the cold start alone
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from benchmark import bare_encoder_seconds, example_words  # (utils/bench/, this script's folder)
from gector_punct.options.flags import FlagParser, add_flags, flag
from gector_punct.prediction.pipeline import OVERLAP_MODES
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLD_START_TARGET = 0.6  # predict.py on one line / import torch
# Issue 41's targets on 100,000 words (2 cores, start-up included), by model folder name: words/s through
# predict.py, ratio to the bare PyTorch float32 forward, peak RSS (MB).
TARGETS = {"default_en": {"words/s": 12_000, "ratio": 1.5, "rss_mb": 400},
           "ensemble_en": {"words/s": 1_200, "ratio": 1.5},
           "switch_en": {"words/s": 2 * 3_211}, "multilingual": {"words/s": 2 * 1_000}}


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def against(value: float, target: float | None, most: bool = False) -> str:
    """`` (target >= T: met)`` and the like; nothing without a target."""
    if target is None:
        return ""
    met = value <= target if most else value >= target
    return f" (target {'<=' if most else '>='} {target:,g}: {'met' if met else 'missed'})"


def timed_child(command: list[str], processes: int = 1) -> dict:
    """Wall seconds, user and system CPU seconds (summed), peak RSS (MB, the largest) of ``command`` run as
    ``processes`` shards side by side (``--num_shards N --shard_id i``, as N actors on one machine would)."""
    started = time.perf_counter()
    shards = [[] if processes == 1 else ["--num_shards", str(processes), "--shard_id", str(i)] for i in range(processes)]
    children = [subprocess.Popen(command + shard, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for shard in shards]
    out = {"user": 0.0, "sys": 0.0, "rss_mb": 0.0}
    for child in children:
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            raise SystemExit(f"failed (status {status}): {' '.join(command)}")
        out = {"user": out["user"] + usage.ru_utime, "sys": out["sys"] + usage.ru_stime,
               "rss_mb": max(out["rss_mb"], usage.ru_maxrss / 1024)}
    return dict(out, wall=time.perf_counter() - started)


def asr_lines(n_words: int, seed: int = 1) -> list[str]:
    """Lines of 60-90 example words, ``n_words`` in all."""
    words = example_words()
    rng, lines, total = random.Random(seed), [], 0
    while total < n_words:
        start, n = rng.randrange(len(words)), min(rng.randint(60, 90), n_words - total)
        lines.append(" ".join(words[(start + k) % len(words)] for k in range(n)))
        total += n
    return lines


def one_line(models: list[str], engine: str, tmp: str) -> list[str]:
    """predict.py on one short line (the file written into ``tmp``)."""
    one = os.path.join(tmp, "one.txt")
    with open(one, "w", encoding="utf-8") as f:
        f.write("so i went to new york last tuesday did you\n")
    return [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", *models, "--engine", engine,
            "--input_file", one, "--output_file", os.path.join(tmp, "out.txt")]


def cold_start(models: list[str], runs: int, engine: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        torch_only = [timed_child([sys.executable, "-c", "import torch"])["wall"] for _ in range(runs)]
        predict = [timed_child(one_line(models, engine, tmp))["wall"] for _ in range(runs)]
    a, b = statistics.median(torch_only), statistics.median(predict)
    print(f"cold start, median of {runs}: import torch {a:.2f} s, predict.py on one line {b:.2f} s (--engine {engine}), "
          f"ratio {b / a:.2f}{against(b / a, COLD_START_TARGET, most=True)}; {load()}")


def throughput(models: list[str], sizes: list[int], batch_size: int, device: str | None, processes: int,
               overlap: str, engine: str) -> None:
    import torch

    targets = TARGETS.get(os.path.basename(os.path.normpath(models[0])), {}) if len(models) == 1 else {}
    rss, bare_limit = {}, 200_000 if device in (None, "cpu") else 2_000_000
    with tempfile.TemporaryDirectory() as tmp:
        for n_words in sizes:
            lines = asr_lines(n_words)
            path = os.path.join(tmp, f"{n_words}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)
            run = timed_child([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", *models,
                               "--input_file", path, "--output_file", os.path.join(tmp, "out.txt"),
                               "--batch_size", str(batch_size), "--overlap", overlap, "--engine", engine]
                              + (["--device", device] if device else []),
                              processes)
            floor = bare_encoder_seconds(models, lines, batch_size, device) if n_words <= bare_limit else None
            rss[n_words] = run["rss_mb"]
            aimed = targets if n_words >= 100_000 else {}
            ratio = (f", bare PyTorch float32 encoder {floor:.1f} s, ratio {floor / run['wall']:.2f}"
                     f"{against(floor / run['wall'], aimed.get('ratio'))}" if floor else "")
            speed = n_words / run['wall']
            print(f"{n_words:,} words in {len(lines):,} lines: predict.py --engine {engine} {run['wall']:.1f} s, "
                  f"{speed:,.0f} words/s{against(speed, aimed.get('words/s'))} "
                  f"(user {run['user']:.1f} s, sys {run['sys']:.1f} s, peak RSS {run['rss_mb']:,.0f} MB"
                  f"{against(run['rss_mb'], aimed.get('rss_mb'), most=True)}){ratio}; "
                  f"torch threads {torch.get_num_threads()}{f', {processes} processes' if processes > 1 else ''}, "
                  f"--overlap {overlap}; {load()}")
    if len(sizes) > 1:
        print(f"peak RSS ratio {max(sizes):,} / {min(sizes):,} words: {rss[max(sizes)] / rss[min(sizes)]:.2f}")


@dataclass(kw_only=True)
class BenchmarkCliFlags(PredictionSettings):
    words: list[int] = flag([10_000, 100_000], "file sizes in words (none: the cold start alone)", min=1,
                            allow_empty=True)
    runs: int = flag(3, "cold-start runs to take the median of (0: none)", min=0)
    overlap: str = flag(OVERLAP_MODES[0], "predict.py's --overlap", choices=OVERLAP_MODES)
    processes: int = flag(1, "predict.py processes side by side, each a shard of the file", min=1)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, BenchmarkCliFlags, skip=PredictionSettings.field_names())
    add_flags(p, PredictionSettings, only=("model_path", "engine", "batch_size", "device"),
              title="predict.py's settings (the bare encoder's too; it is PyTorch's on either engine)")
    args = p.settings(BenchmarkCliFlags, p.parse_args(argv))
    models = model_paths(args.model_path, args.tasks)
    with tempfile.TemporaryDirectory() as tmp:  # the graph built and cached, the files in the page cache
        timed_child(one_line(models, args.engine, tmp))
    if args.runs:
        cold_start(models, args.runs, args.engine)
    if args.words:
        throughput(models, sorted(args.words), args.batch_size, args.device, args.processes,
                   args.overlap, args.engine)
    return 0


if __name__ == "__main__":
    run_script(main)
