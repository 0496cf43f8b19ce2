#!/usr/bin/env python
"""Streaming (live captions): punctuation F1 at look-ahead K against full context, and the latency of a
one-word update.

    python utils/benchmark_streaming.py --dev_set work/default_en/ted.dev.tagged --lines 150

Each dev line is one utterance fed to ``StreamingPunctuator`` one word at a time, then closed; full context
is the same lines predicted whole (``Punctuator.predict_tags``). F1 is the IWSLT micro-average over COMMA,
PERIOD and QUESTION against the gold tags; latency is the wall time of each update that finalises a word.
``--busy N`` measures next to N other processes that keep a core busy at nice ``--busy_nice`` (19: a
machine shared with a batch job; 0: with another service).
"""
import argparse
import contextlib
import statistics
import subprocess
import sys
import time

from gector_punct.scoring.metrics import labels_from_words, score
from gector_punct.engines.choice import DEFAULT_ENGINE, ENGINES
from gector_punct.prediction.punctuator import DEFAULT_MODEL, Punctuator
from gector_punct.dataset.reader import DatasetReader
from gector_punct.prediction.streaming import StreamingPunctuator


def f1_of(instances, written: list[list[str]]) -> dict:
    ref = [label for i in instances for label in labels_from_words([t.apply(w) for w, t in zip(i.words, i.tags)], False)]
    pred = [label for words in written for label in labels_from_words(words, False)]
    return score(ref, pred)["punct"]


def stream_lines(punctuator: Punctuator, instances, lookahead: int) -> tuple[list[list[str]], list[float]]:
    streamer, written, latencies = StreamingPunctuator(punctuator, lookahead), [], []
    for instance in instances:
        out = []
        for word in instance.words:
            started = time.perf_counter()
            final = streamer.push([word])
            if final:
                latencies.append(1000 * (time.perf_counter() - started))
            out.extend(final)
        written.append(out + streamer.end())
    return written, latencies


@contextlib.contextmanager
def busy_cores(n: int, nice: int):
    """Within: ``n`` processes spinning at ``nice``."""
    spin = f"import os\nos.nice({nice})\nwhile True:\n    pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(n)]
    try:
        time.sleep(0.5 if n else 0)  # running before the first update
        yield
    finally:
        for child in spinners:
            child.kill()
            child.wait()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_path", default=DEFAULT_MODEL, help="model folder (default: shipped model)")
    p.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE, help=f"prediction's engine (default {DEFAULT_ENGINE})")
    p.add_argument("--dev_set", required=True, help="preprocessed dev file (e.g. TED dev2012's last 10%%)")
    p.add_argument("--lines", type=int, default=150, help="dev lines to stream, each one utterance (default 150)")
    p.add_argument("--lookahead", type=int, nargs="+", default=[0, 2, 4, 8, 16], help="K values (default 0 2 4 8 16)")
    p.add_argument("--busy", type=int, default=0,
                   help="processes keeping a core busy while the latency is measured (default 0)")
    p.add_argument("--busy_nice", type=int, default=19, choices=range(0, 20), metavar="0..19",
                   help="the busy processes' niceness (default 19: lowest priority)")
    args = p.parse_args(argv)
    punctuator = Punctuator.load(args.model_path, device="cpu", engine=args.engine)
    instances = DatasetReader().read(args.dev_set)[: args.lines]
    tags = punctuator.predict_tags([i.words for i in instances])
    full = f1_of(instances, [[t.apply(w) for w, t in zip(i.words, line)] for i, line in zip(instances, tags)])
    words = sum(len(i.words) for i in instances)
    print(f"{len(instances)} utterances, {words} words; full context: punct F1 {full['overall']['f1']:.1f} "
          f"(COMMA {full['COMMA']['f1']:.1f}, PERIOD {full['PERIOD']['f1']:.1f}, QUESTION {full['QUESTION']['f1']:.1f})")
    for k in args.lookahead:
        with busy_cores(args.busy, args.busy_nice):
            written, latencies = stream_lines(punctuator, instances, k)
        r = f1_of(instances, written)
        q = statistics.quantiles(latencies, n=20)
        print(f"K={k:>2}: punct F1 {r['overall']['f1']:.1f} ({r['overall']['f1'] - full['overall']['f1']:+.1f}; COMMA "
              f"{r['COMMA']['f1']:.1f}, PERIOD {r['PERIOD']['f1']:.1f}, QUESTION {r['QUESTION']['f1']:.1f}); one-word "
              f"update p50 {statistics.median(latencies):.1f} ms, p95 {q[18]:.1f} ms ({len(latencies)} updates"
              f"{f', {args.busy} processes busy at nice {args.busy_nice}' if args.busy else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
