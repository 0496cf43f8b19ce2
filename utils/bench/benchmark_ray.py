#!/usr/bin/env python
"""Words/s of utils/predict_ray.py with 1 and 2 actors against predict.py over the same words, each a
process started from the shell, start-up included (for Ray: starting a local Ray, its workers and each
actor's model).

predict.py restores the words as one file (its best case: one start-up); predict_ray.py restores them
split into files (--files) of ASR-like lines (60-90 words each, benchmark_cli's), each actor on its own
cores (--num_cpus_per_actor). tests/test_predict_ray.py checks the outputs against predict.py's.

    python utils/bench/benchmark_ray.py                       # 100,000 words: predict.py, Ray with 1 and 2 actors
    python utils/bench/benchmark_ray.py --words 1000000 --files 50 --actors 1 2 4 8
"""
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # utils/: predict_ray.py
from benchmark_cli import asr_lines  # noqa: E402 (utils/bench/, this script's folder)
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused  # noqa: E402
from gector_punct.prediction.settings import PredictionSettings  # noqa: E402
from gector_punct_data.script import run_script
from predict_ray import RayCommand  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(command: list[str], env: dict | None = None) -> float:
    """Wall seconds of one child process (its output discarded); a failure stops the benchmark."""
    started = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if result.returncode:
        raise SystemExit(f"failed (status {result.returncode}): {' '.join(command)}\n{result.stderr[-2000:]}")
    return time.perf_counter() - started


def write_files(folder: str, n_words: int, n_files: int) -> list[list[str]]:
    """``n_files`` files of ASR-like lines in ``folder``, ``n_words`` words in all; returns their lines."""
    os.makedirs(folder)
    parts = [asr_lines(n_words // n_files, seed=k + 1) for k in range(n_files)]
    for k, lines in enumerate(parts):
        with open(os.path.join(folder, f"part{k:04d}.txt"), "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
    return parts


@dataclass(kw_only=True)
class BenchmarkRayFlags(Settings):
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    words: int = flag(100_000, "words in all", min=1)
    files: int = flag(10, "files the words are split into", min=1)
    actors: list[int] = flag([1, 2], "actor counts to run", min=1)
    num_cpus_per_actor: int = reused(RayCommand, "num_cpus_per_actor")
    num_cpus: int | None = reused(RayCommand, "num_cpus")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, BenchmarkRayFlags)
    args = p.settings(BenchmarkRayFlags, p.parse_args(argv))
    model = ["--model_path", *args.model_path] if args.model_path else []  # none: the scripts' default
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, "in")
        parts = write_files(inputs, args.words, args.files)
        words = sum(len(line.split()) for lines in parts for line in lines)
        whole = os.path.join(tmp, "all.txt")
        with open(whole, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for lines in parts for line in lines)
        seconds = timed([sys.executable, os.path.join(ROOT, "predict.py"), *model,
                         "--input_file", whole, "--output_file", os.path.join(tmp, "all.out")])
        print(f"{words:,} words; predict.py (one file, torch's default threads, {os.cpu_count()} cores): "
              f"{seconds:.1f} s, {words / seconds:,.0f} words/s")
        for actors in args.actors:
            outputs = os.path.join(tmp, f"out{actors}")
            command = [sys.executable, os.path.join(ROOT, "utils", "predict_ray.py"), "--input_dir", inputs,
                       "--output_dir", outputs, *model, "--num_actors", str(actors),
                       "--num_cpus_per_actor", str(args.num_cpus_per_actor)]
            seconds = timed(command + (["--num_cpus", str(args.num_cpus)] if args.num_cpus else []))
            print(f"predict_ray.py, {args.files} files, {actors} actor(s) x {args.num_cpus_per_actor} core(s): "
                  f"{seconds:.1f} s, {words / seconds:,.0f} words/s")
    return 0


if __name__ == "__main__":
    run_script(main)
