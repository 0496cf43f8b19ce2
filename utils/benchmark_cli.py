#!/usr/bin/env python
"""Measure predict.py as users run it, a process started from the shell:

* cold start: the median time of ``predict.py`` on one short line against ``python -c "import torch"``;
* throughput: ``predict.py`` end to end (start-up included) on files of ASR-like lines (60-90 words each)
  against the bare encoder's forward pass over exactly the same 128-subword windows at batch 32, run in
  this process with the same number of threads (the floor no tagger can beat), with the child's user and
  system CPU time and peak RSS;
* memory: the peak RSS on the largest file over that on the smallest.

    python utils/benchmark_cli.py                              # 10,000 and 100,000 words
    python utils/benchmark_cli.py --words 10000 1000000        # the streaming-memory check (minutes)
    python utils/benchmark_cli.py --model_path accurate_en --words    # the cold start alone
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from benchmark import example_words  # (utils/, this script's folder)
from gector_punct.options.flags import FlagParser, add_flags, flag
from gector_punct.prediction.pipeline import OVERLAP_MODES
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def bare_encoder_seconds(models: list[str], lines: list[str], batch_size: int, device: str) -> float:
    """The encoder alone over the windows predict.py makes of these lines (tokenised beforehand, on the
    device beforehand, under predict.py's autocast); for an ensemble folder, the sum over its members'."""
    import torch

    from gector_punct.model.config import model_folders
    from gector_punct.model.windows import WindowedBatcher
    from gector_punct.model.tagger import Seq2Labels
    from gector_punct.encoders.runtime import autocast, pick_device

    total, where = 0.0, pick_device(device)
    for folder in model_folders(models):
        model = Seq2Labels.load(folder, light=True).to(where).eval()
        windows = model.text_encoder(128).encode_lines([line.split() for line in lines])
        batches = [{k: batch[k].to(where) for k in ("input_ids", "attention_mask")}
                   for _, batch in WindowedBatcher(windows, batch_size, pad_id=model.pad_id)]
        with torch.inference_mode(), autocast(where):
            model.encoder(**batches[0])  # warm-up
            synchronize(where)
            started = time.perf_counter()
            for batch in batches:
                model.encoder(**batch)
            synchronize(where)
            total += time.perf_counter() - started
    return total


def synchronize(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()


def cold_start(models: list[str], runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.txt")
        with open(one, "w", encoding="utf-8") as f:
            f.write("so i went to new york last tuesday did you\n")
        torch_only = [timed_child([sys.executable, "-c", "import torch"])["wall"] for _ in range(runs)]
        predict = [timed_child([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", *models,
                                "--input_file", one, "--output_file", os.path.join(tmp, "out.txt")])["wall"]
                   for _ in range(runs)]
    a, b = statistics.median(torch_only), statistics.median(predict)
    print(f"cold start, median of {runs}: import torch {a:.2f} s, predict.py on one line {b:.2f} s, ratio {b / a:.2f}")


def throughput(models: list[str], sizes: list[int], batch_size: int, device: str | None, processes: int,
               overlap: str) -> None:
    import torch

    rss, bare_limit = {}, 200_000 if device in (None, "cpu") else 2_000_000
    with tempfile.TemporaryDirectory() as tmp:
        for n_words in sizes:
            lines = asr_lines(n_words)
            path = os.path.join(tmp, f"{n_words}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)
            run = timed_child([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", *models,
                               "--input_file", path, "--output_file", os.path.join(tmp, "out.txt"),
                               "--batch_size", str(batch_size), "--overlap", overlap]
                              + (["--device", device] if device else []),
                              processes)
            floor = bare_encoder_seconds(models, lines, batch_size, device) if n_words <= bare_limit else None
            rss[n_words] = run["rss_mb"]
            ratio = f", bare encoder {floor:.1f} s, ratio {floor / run['wall']:.2f}" if floor else ""
            print(f"{n_words:,} words in {len(lines):,} lines: predict.py {run['wall']:.1f} s, "
                  f"{n_words / run['wall']:,.0f} words/s "
                  f"(user {run['user']:.1f} s, sys {run['sys']:.1f} s, peak RSS {run['rss_mb']:,.0f} MB){ratio}; "
                  f"torch threads {torch.get_num_threads()}{f', {processes} processes' if processes > 1 else ''}, "
                  f"--overlap {overlap}")
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
    add_flags(p, PredictionSettings, only=("model_path", "batch_size", "device"),
              title="predict.py's settings (the bare encoder's too)")
    args = p.settings(BenchmarkCliFlags, p.parse_args(argv))
    models = model_paths(args.model_path, args.tasks)
    if args.runs:
        cold_start(models, args.runs)
    if args.words:
        throughput(models, sorted(args.words), args.batch_size, args.device, args.processes,
                   args.overlap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
