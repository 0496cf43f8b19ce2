#!/usr/bin/env python
"""Peak memory of ``predict.py`` on word-timed JSON transcripts (issue 58), run as users run it, a process
started from the shell: the same words in a WhisperX document of one long segment and of short ones (the
reader's memory must not grow with a segment's length), and a Vosk file of results without words (what a
recogniser loop prints for silence). Prints per file its words, segments, wall seconds and the child's peak RSS.

    python utils/bench/timed_memory.py                                     # 60,000 words; 500,000 empty results
    python utils/bench/timed_memory.py --words 20000 --segment_words 20000 100 --empty_results 0 --format srt
"""
import json
import os
import sys
import tempfile
from dataclasses import dataclass

from benchmark import example_words  # (utils/bench/, this script's folder)
from benchmark_cli import timed_child
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(kw_only=True)
class TimedMemoryFlags(Settings):
    words: int = flag(60_000, "words of the WhisperX documents", min=1)
    segment_words: list[int] = flag([60_000, 100], "a WhisperX document per value: its segments of this many words",
                                    min=1, allow_empty=True)
    empty_results: int = flag(500_000, "Vosk results without words in the Vosk file, after one with words "
                                       "(0: no Vosk file)", min=0)
    format: str = flag("json", "predict.py's --format", choices=("json", "srt", "vtt", "text"))
    model_path: str = flag("default_en", "predict.py's --model_path")


def whisper_file(path: str, n_words: int, per_segment: int) -> int:
    """A WhisperX document of ``n_words`` example words (0.35 s each), ``per_segment`` a segment, written a
    segment at a time; returns the number of segments."""
    words, segments = example_words(), 0
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"segments": [')
        for first in range(0, n_words, per_segment):
            timed = [{"word": words[k % len(words)], "start": round(k * 0.35, 3), "end": round(k * 0.35 + 0.3, 3),
                      "score": 0.9} for k in range(first, min(first + per_segment, n_words))]
            segment = {"start": timed[0]["start"], "end": timed[-1]["end"],
                       "text": " " + " ".join(w["word"] for w in timed), "words": timed}
            f.write(("," if segments else "") + "\n" + json.dumps(segment))
            segments += 1
        f.write('\n], "language": "en"}\n')
    return segments


def vosk_file(path: str, empty: int) -> None:
    """One Vosk result with words, then ``empty`` results without (silence), one a line."""
    with open(path, "w", encoding="utf-8") as f:
        words = "so we started the project in march".split()
        f.write(json.dumps({"result": [{"conf": 1.0, "start": k * 0.5, "end": k * 0.5 + 0.4, "word": w}
                                       for k, w in enumerate(words)], "text": " ".join(words)}) + "\n")
        f.write('{"text": ""}\n' * empty)


def measure(path: str, args: TimedMemoryFlags, what: str) -> None:
    run = timed_child([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", args.model_path,
                       "--input_file", path, "--output_file", os.devnull, "--format", args.format])
    print(f"{what}: --format {args.format} {run['wall']:.1f} s, peak RSS {run['rss_mb']:,.0f} MB; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, TimedMemoryFlags)
    args = p.settings(TimedMemoryFlags, p.parse_args(argv))
    with tempfile.TemporaryDirectory() as tmp:
        for per_segment in args.segment_words:
            path = os.path.join(tmp, f"whisper_{per_segment}.json")
            segments = whisper_file(path, args.words, per_segment)
            measure(path, args, f"{args.words:,} words in {segments:,} segments of {per_segment:,}")
        if args.empty_results:
            path = os.path.join(tmp, "vosk.json")
            vosk_file(path, args.empty_results)
            measure(path, args, f"Vosk: 7 words, then {args.empty_results:,} results without words")
    return 0


if __name__ == "__main__":
    run_script(main)
