#!/usr/bin/env python
"""What ``--numbers digits`` costs, measured as users run it: ``predict.py`` as a process on a file of spoken
English (written text read aloud: ``gector_punct_data.corpora.spoken``, then lower-cased without marks, as a
recogniser writes it), once with ``--numbers words`` and once with ``--numbers digits``, in turns; prints
each run's wall seconds, the medians and what digits add (issue 59's target: at most the restoration's own
time, that is digits' median at most twice words').

    python utils/bench/numbers_cost.py --reference W/ted_whole.train.tgt --words 100000 --runs 2
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import read_lines
from gector_punct.text.units import split_edges
from gector_punct_data.corpora.spoken import speak_line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(kw_only=True)
class Options(Settings):
    reference: str = flag(..., "written English text, read aloud into the input file")
    words: int = flag(100_000, "words of input", min=1)
    runs: int = flag(2, "runs of each mode, in turns (the median is reported)", min=1)
    model_path: str = flag("default_en", "predict.py's --model_path")


def spoken_file(reference: str, n_words: int, path: str) -> int:
    """The first ``n_words`` spoken words of ``reference``, a line per reference line; returns the count."""
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for _, line in read_lines(reference):
            words = [split_edges(w)[1].lower() for w in speak_line(line).split()]
            words = [w for w in words if w][: n_words - written]
            out.write(" ".join(words) + "\n")
            written += len(words)
            if written >= n_words:
                break
    return written


def seconds(path: str, model: str, numbers: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "predict.py", "--model_path", model, "--input_file", path, "--output_file",
                    os.devnull, "--numbers", numbers], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = FlagParser(__doc__)
    add_flags(parser, Options)
    args = parser.settings(Options, parser.parse_args())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "spoken.txt")
        n = spoken_file(args.reference, args.words, path)
        seconds(path, args.model_path, "digits")  # the grammar and the model's graph built before the clock
        times: dict[str, list[float]] = {"words": [], "digits": []}
        for _ in range(args.runs):
            for mode in times:
                times[mode].append(seconds(path, args.model_path, mode))
                print(f"{mode}: {times[mode][-1]:.1f} s", flush=True)
    words, digits = statistics.median(times["words"]), statistics.median(times["digits"])
    print(f"{n:,} words, {args.model_path}, load average {os.getloadavg()[0]:.2f}: --numbers words {words:.1f} s, "
          f"digits {digits:.1f} s; digits add {digits - words:.1f} s ({(digits - words) / words:.0%} of the "
          f"restoration)")


if __name__ == "__main__":
    main()
