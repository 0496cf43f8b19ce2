#!/usr/bin/env python
"""Streaming (live captions): punctuation F1 at look-ahead K against full context, and the latency of a
one-word update.

    python utils/bench/benchmark_streaming.py --dev_set work/default_en/ted.dev.tagged --lines 150

Each dev line is one utterance fed to ``StreamingPunctuator`` one word at a time, then closed; full context
is the same lines predicted whole (``Punctuator.predict_tags``). F1 is the IWSLT micro-average over COMMA,
PERIOD and QUESTION against the gold tags; latency is the wall time of each update that finalises a word.
``--busy N`` measures next to N other processes that keep a core busy at nice ``--busy_nice`` (19: a
machine shared with a batch job; 0: with another service).
"""
import contextlib
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from gector_punct.scoring.metrics import labels_from_words, score
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.dataset.reader import DatasetReader
from gector_punct.prediction.streaming import StreamingPunctuator
from gector_punct.text.tags import written_forms
from gector_punct_data.script import run_script


def written_words(words: list[str], tags) -> list[str]:
    """The words as ``predict`` writes them (``tags.written_forms``), deleted ones left out."""
    return [form for form in written_forms(words, tags) if form is not None]


def f1_of(instances, written_lines: list[list[str]]) -> dict:
    ref = [label for i in instances for label in labels_from_words(written_words(i.words, i.tags), False)]
    pred = [label for words in written_lines for label in labels_from_words(words, False)]
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


@dataclass(kw_only=True)
class StreamingFlags(Settings):
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    engine: str = reused(PredictionSettings, "engine")
    dev_set: str = flag(help="preprocessed dev file (e.g. TED dev2012's last 10%)")
    lines: int = flag(150, "dev lines to stream, each one utterance", min=1)
    lookahead: list[int] = flag([0, 2, 4, 8, 16], "look-ahead values K to measure", min=0)
    busy: int = flag(0, "processes keeping a core busy while the latency is measured", min=0)
    busy_nice: int = flag(19, "the busy processes' niceness (19: lowest priority)", min=0, max=19)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, StreamingFlags)
    args = p.settings(StreamingFlags, p.parse_args(argv))
    punctuator = Punctuator.load(args.model_path, device="cpu", engine=args.engine)
    instances = DatasetReader().read(args.dev_set)[: args.lines]
    tags = punctuator.predict_tags([i.words for i in instances])
    full = f1_of(instances, [written_words(i.words, line) for i, line in zip(instances, tags)])
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
    run_script(main)
