#!/usr/bin/env python
"""Per-language scores of a model, through predict.py as users run it: for each dev set, the source file
goes through ``predict.py`` (a child process, start-up included, timed) and the output is scored against
the target: per-mark and overall punctuation P/R/F1 (IWSLT classes; full-width ，、 -> COMMA, 。！； ->
PERIOD, ？ -> QUESTION, per unit: per character in Chinese), case F1 and sentence-boundary F1.

    python utils/report/evaluate_languages.py --model_path models/multilingual \\
        --set zh=W/zh.dev --set fr=W/fr.dev --set fr_asr=W/fr_asr.dev --json W/eval.json

Each ``--set NAME=PREFIX`` reads PREFIX.src and PREFIX.tgt (line for line). Prints a markdown table with
the number of dev lines and words (units: Chinese characters count one each) and words/s end to end.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, help_text, reused
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import atomic_write, read_all_lines
from gector_punct.scoring.metrics import labels_from_files, score
from gector_punct.text.units import split_units
from gector_punct_data.script import named_values, run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

COLUMNS = ("lines", "words", "COMMA", "PERIOD", "QUESTION", "P", "R", "F1", "case F1", "boundary F1", "words/s")


def name_prefix(text: str) -> str:
    """A --set item, ``NAME=PREFIX``, checked."""
    if "=" not in text:
        raise ValueError(f"takes NAME=PREFIX items, not {text!r}")
    return text


@dataclass(kw_only=True)
class EvaluateLanguagesFlags(Settings):
    model_path: str = flag(help="model folder to evaluate")
    set: list[str] = flag(help="dev sets, NAME=PREFIX items: PREFIX.src (input) and PREFIX.tgt (reference); repeat "
                               "--set for each language (or give several items after one)", parse=name_prefix)
    max_lines: int = flag(0, "score only the first N lines of each set (0: all)", min=0)
    threads: int = reused(PredictionSettings, "threads", help="the engine's threads in the predict.py child", default=2)
    utterances: bool = flag(False, "read each dev line as a whole utterance (predict.py's default reading); off: as a "
                                   "fragment cut anywhere (predict.py --fragments), the reading of the dev sets' lines")
    predict_args: str = flag("", "extra predict.py flags, e.g. '--additional_confidence 0.1'")
    keep_outputs: str | None = flag(None, "folder to keep each set's restored text in")
    json: str | None = flag(None, "also write the results to this JSON file")


REPEATED = ("set",)  # flags given once per item (--set a=A --set b=B), their items gathered


def parse_args(argv) -> EvaluateLanguagesFlags:
    p = FlagParser(__doc__)
    for f in fields(EvaluateLanguagesFlags):
        if f.name in REPEATED:  # its items are checked when the settings are made
            p.add_argument(f"--{f.name}", action="extend", nargs="+", required=True, metavar="NAME=PREFIX",
                           help=help_text(f))
        else:
            add_flags(p, EvaluateLanguagesFlags, only=(f.name,))
    return p.settings(EvaluateLanguagesFlags, p.parse_args(argv))


def run_set(args, name: str, prefix: str, work: str) -> dict:
    """Predict one set with predict.py and score it: the row of the table."""
    sources, targets = read_all_lines(prefix + ".src"), read_all_lines(prefix + ".tgt")
    if len(sources) != len(targets):
        raise SystemExit(f"{prefix}.src has {len(sources)} lines but {prefix}.tgt {len(targets)}")
    if args.max_lines:
        sources, targets = sources[: args.max_lines], targets[: args.max_lines]
    src, ref = os.path.join(work, name + ".src"), os.path.join(work, name + ".ref")
    out = os.path.join(args.keep_outputs or work, name + ".out")
    for path, lines in ((src, sources), (ref, targets)):
        with atomic_write(path) as f:
            f.write("".join(line + "\n" for line in lines))
    command = [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", args.model_path,
               "--input_file", src, "--output_file", out, "--threads", str(args.threads)] \
        + ([] if args.utterances else ["--fragments"]) \
        + args.predict_args.split()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))  # the torch engine's too
    started = time.perf_counter()
    run = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"predict.py failed on {name}:\n{run.stderr[-2000:]}")
    result = score(*labels_from_files(ref, out))
    words = sum(len(split_units(line)) for line in sources)
    return {"set": name, "lines": len(sources), "words": words, "words_per_s": words / wall, "wall_s": wall,
            "scores": result}


def table_row(row: dict) -> list[str]:
    punct = row["scores"]["punct"]

    def f1(cls: str) -> str:
        return f"{punct[cls]['f1']:.1f}" if cls in punct and punct[cls]["support"] else "-"
    overall = punct["overall"]
    case = row["scores"].get("case", {}).get("overall", {})  # no case group where the reference has none
    boundary = row["scores"]["boundary"]["overall"]
    return [row["set"], str(row["lines"]), f"{row['words']:,}", f1("COMMA"), f1("PERIOD"), f1("QUESTION"),
            f"{overall['precision']:.1f}", f"{overall['recall']:.1f}", f"{overall['f1']:.1f}",
            f"{case['f1']:.1f}" if case else "-", f"{boundary['f1']:.1f}",
            f"{row['words_per_s']:.0f}"]


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.keep_outputs:
        os.makedirs(args.keep_outputs, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, prefix in named_values(args.set, "--set"):
            rows.append(run_set(args, name, prefix, work))
            print(" | ".join(table_row(rows[-1])), file=sys.stderr, flush=True)
    print(f"reading: {'utterances' if args.utterances else 'fragments (lines cut anywhere)'}", file=sys.stderr)
    print("| set | " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * (len(COLUMNS) + 1))
    for row in rows:
        print("| " + " | ".join(table_row(row)) + " |")
    if args.json:
        with atomic_write(args.json) as f:
            json.dump({"model": args.model_path, "predict_args": args.predict_args, "sets": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    run_script(main)
