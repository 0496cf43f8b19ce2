#!/usr/bin/env python
"""Words per second of joint disfluency deletion + punctuation against the cascade, as users run them:
predict.py processes on a file, start-up included.

    python utils/bench/benchmark_switching.py --input work/switch/data/joint.dev.src --model_path models/switch_en

joint:   predict.py --tasks disf,punc                      (one process, one pass)
cascade: predict.py --tasks disf, then predict.py --tasks punc on its output (two processes, two passes),
         with --disf_model / --punc_model (default: the same model for both stages)
Each is run --repeat times; the median wall time is reported, with the ratio cascade / joint.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.settings import PredictionSettings
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREDICT = os.path.join(ROOT, "predict.py")


def run(model: str, tasks: str, source: str, target: str, threads: int) -> float:
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS=str(threads))
    started = time.perf_counter()
    subprocess.run([sys.executable, PREDICT, "--model_path", model, "--tasks", tasks, "--input_file", source,
                    "--output_file", target, "--threads", str(threads)], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


@dataclass(kw_only=True)
class BenchmarkSwitchingFlags(Settings):
    input: str = flag(help="lower-case, unpunctuated, disfluent lines")
    model_path: str = flag(os.path.join(ROOT, "models", "switch_en"), "the switching model folder for the joint run",
                           default_text="models/switch_en")
    disf_model: str | None = flag(None, "the model folder of cascade stage 1 (--tasks disf)",
                                  default_text="--model_path")
    punc_model: str | None = flag(None, "the model folder of cascade stage 2 (--tasks punc)",
                                  default_text="--model_path")
    repeat: int = flag(3, "runs of each, the median is reported", min=1)
    threads: int = reused(PredictionSettings, "threads", help="the engine's threads in each predict.py process", default=2)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, BenchmarkSwitchingFlags)
    args = p.settings(BenchmarkSwitchingFlags, p.parse_args(argv))
    with open(args.input, encoding="utf-8") as f:
        words = sum(len(line.split()) for line in f)
    disf, punc = args.disf_model or args.model_path, args.punc_model or args.model_path
    joint, cascade = [], []
    with tempfile.TemporaryDirectory() as work:
        out1, out2 = os.path.join(work, "stage1.txt"), os.path.join(work, "stage2.txt")
        for _ in range(args.repeat):
            joint.append(run(args.model_path, "disf,punc", args.input, out2, args.threads))
            cascade.append(run(disf, "disf", args.input, out1, args.threads) + run(punc, "punc", out1, out2, args.threads))
    j, c = statistics.median(joint), statistics.median(cascade)
    print(f"{words} words, {args.threads} threads, median of {args.repeat}")
    print(f"joint   (disf,punc):  {j:6.2f} s  {words / j:7.0f} words/s")
    print(f"cascade (disf>punc):  {c:6.2f} s  {words / c:7.0f} words/s")
    print(f"joint is {c / j:.2f}x faster")
    return 0


if __name__ == "__main__":
    run_script(main)
