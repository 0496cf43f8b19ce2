#!/usr/bin/env python
"""What the words' confidence and the timed formats cost, measured on predict.py run as a process:

* ``--format jsonl`` against ``--format plain`` on the same file of ASR-like lines (``--words`` words; the
  median of ``--runs`` runs of each, alternated; start-up included), and the ratio (issue 50's target: at
  most ``JSONL_TARGET``);
* a word-timed transcript of ``--timed_words`` words as a speech recogniser writes it (WhisperX JSON: 150
  words a minute, segments of 8-30 words, a pause of 2-4 s now and then, one word in 40 without times)
  turned into SRT (``--format srt``): the median seconds less the start-up (the same run on 20 words) against
  ``SRT_TARGET_SECONDS``, and every cue checked
  against the style guide by the subtitle checker (every rule of ``checker.RULES`` under ``SubtitleStyle()``'s
  limits, as ``utils/check_subtitles.py`` checks a file), the violations counted by rule, and the process's
  peak memory.

    python utils/bench/benchmark_review.py                          # 100,000 words; 9,000 timed (an hour)
    python utils/bench/benchmark_review.py --words 0 --runs 1 --timed_words 9000 90000 450000   # flat memory
    python utils/bench/benchmark_review.py --words 10000 --runs 1 --timed_words 900
"""
import json
import os
import random
import statistics
import sys
import tempfile
from dataclasses import dataclass

from benchmark import example_words  # (utils/bench/, this script's folder)
from benchmark_cli import ROOT, asr_lines, load, timed_child
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.transcripts.checked_cues import read_cues
from gector_punct.transcripts.checker import summary, violations
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct_data.script import run_script

JSONL_TARGET = 1.10  # jsonl / plain wall time
SRT_TARGET_SECONDS = 3.0  # a 9,000-word (one hour) transcript to SRT, fast model, 2 cores


@dataclass(kw_only=True)
class ReviewBenchFlags(Settings):
    model_path: str = flag("default_en", "the model predict.py runs")
    words: int = flag(100_000, "words of the plain / jsonl file (0: skip)", min=0)
    timed_words: list[int] = flag([9_000], "words of each timed transcript (an hour is about 9,000; several: the "
                                           "peak memory of each, which stays flat; 0: skip)")
    runs: int = flag(3, "runs of each command (the median is reported)", min=1)
    seed: int = flag(1, "random seed of the text and its times")


def whisper_transcript(n_words: int, seed: int) -> dict:
    words, rng = example_words(), random.Random(seed)
    start, t, segments = rng.randrange(len(words)), 0.0, []
    k = 0
    while k < n_words:
        size = min(rng.randint(8, 30), n_words - k)
        timed = []
        for j in range(size):
            length = rng.uniform(0.15, 0.45)
            item = {"word": " " + words[(start + k + j) % len(words)], "start": round(t, 3),
                    "end": round(t + length, 3), "score": round(rng.uniform(0.5, 1.0), 3)}
            if rng.random() < 1 / 40:
                del item["start"], item["end"]
            timed.append(item)
            t += length + rng.uniform(0.02, 0.12)
        segments.append({"start": timed[0].get("start", round(t, 3)), "end": round(t, 3),
                         "text": "".join(w["word"] for w in timed), "words": timed})
        k += size
        t += rng.uniform(2.0, 4.0) if rng.random() < 0.1 else rng.uniform(0.1, 0.6)
    return {"segments": segments, "word_segments": [w for s in segments for w in s["words"]], "language": "en"}


def cue_violations(path: str, style: SubtitleStyle) -> str:
    """A subtitle file's cues and violations by the subtitle checker, in a line (``checker.summary``)."""
    cues = read_cues(path)
    return summary(len(cues), violations(cues, style))


def predict(model: str, source: str, out: str, *extra: str) -> list[str]:
    return [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", model, "--input_file", source,
            "--output_file", out, *extra]


def jsonl_cost(args: ReviewBenchFlags, tmp: str) -> None:
    source = os.path.join(tmp, "lines.txt")
    with open(source, "w", encoding="utf-8") as f:
        f.write("\n".join(asr_lines(args.words, args.seed)) + "\n")
    walls = {"plain": [], "jsonl": []}
    for _ in range(args.runs):
        for fmt in walls:
            walls[fmt].append(timed_child(predict(args.model_path, source, os.path.join(tmp, "out"), "--format", fmt))["wall"])
    plain, jsonl = statistics.median(walls["plain"]), statistics.median(walls["jsonl"])
    print(f"{args.words:,} words, median of {args.runs}: --format plain {plain:.2f} s, --format jsonl {jsonl:.2f} s: "
          f"{jsonl / plain:.3f}x (target <= {JSONL_TARGET}: {'met' if jsonl / plain <= JSONL_TARGET else 'missed'}) "
          f"[{load()}]")


def srt_cost(args: ReviewBenchFlags, n_words: int, tmp: str) -> None:
    source, out = os.path.join(tmp, "talk.json"), os.path.join(tmp, "talk.srt")
    document = whisper_transcript(n_words, args.seed)
    with open(source, "w", encoding="utf-8") as f:
        json.dump(document, f)
    hours = document["segments"][-1]["end"] / 3600
    tiny = os.path.join(tmp, "start.json")  # start-up: the same run on 20 words
    with open(tiny, "w", encoding="utf-8") as f:
        json.dump(whisper_transcript(20, args.seed), f)
    runs, starts = [], []
    for _ in range(args.runs):  # alternated, so that a busy moment weighs on both alike
        runs.append(timed_child(predict(args.model_path, source, out, "--format", "srt")))
        starts.append(timed_child(predict(args.model_path, tiny, os.path.join(tmp, "start.srt"), "--format", "srt")))
    checked = cue_violations(out, SubtitleStyle())
    wall, start = statistics.median(run["wall"] for run in runs), statistics.median(run["wall"] for run in starts)
    print(f"{n_words:,} timed words ({hours:.2f} h of speech, {os.path.getsize(source) / 1e6:.1f} MB of JSON) -> "
          f"SRT: {checked}; median of {args.runs}: {wall:.2f} s, start-up (20 words) {start:.2f} s: "
          f"{wall - start:.2f} s after start-up (target for an hour < {SRT_TARGET_SECONDS:g} s), "
          f"peak RSS {max(run['rss_mb'] for run in runs):.0f} MB [{load()}]")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ReviewBenchFlags)
    args = p.settings(ReviewBenchFlags, p.parse_args(argv))
    with tempfile.TemporaryDirectory() as tmp:
        if args.words:
            jsonl_cost(args, tmp)
        for n_words in filter(None, args.timed_words):
            srt_cost(args, n_words, tmp)
    return 0


if __name__ == "__main__":
    run_script(main)
