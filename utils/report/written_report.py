#!/usr/bin/env python
"""How many lines of each file predict.py reads as written (``DecodeConfig.written``: a line that opens with a
capital, ends with a sentence mark and whose marks are at least that complete takes no new mark), and why:

    python utils/report/written_report.py --model_path default_en \\
        --files ONCE.txt W/cased_given30.dev.src W/cased_given70.dev.src

Per file: its lines with words, the share that opens and closes as a sentence does
(``decoding.opens_and_closes``), the completeness of its lines (``decoding.completeness``: a line's own marks
over those and the marks the model expects still missing) at the 1st, 10th and 50th percentile, the share at
least 0.5 and 0.7 complete, and the share read as written at the model's ``written`` (or --written). Each line
is read as predict.py reads it (``Punctuator.start``: --existing keep).
"""
from dataclasses import dataclass

import numpy as np

from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.decoding import added_mark_probability, completeness, label_columns, opens_and_closes
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import read_all_lines
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class WrittenFlags(Settings):
    files: list[str] = flag(help="text files, one text per line (restored output, transcripts given some marks)")


def file_report(punctuator, path: str) -> str:
    """One line of figures for one file (module docstring)."""
    lines = read_all_lines(path)
    words = punctuator.start(lines).todo_words()
    names = punctuator.names
    at = label_columns(tuple(names[PUNCT_HEAD.name]), tuple(names[CASE_HEAD.name]), tuple(names[DETECT_HEAD.name]))
    added = added_mark_probability(punctuator.probabilities(words)[PUNCT_HEAD.name], at).tolist()
    opened, complete, start = [], [], 0
    for line in words:
        opened.append(opens_and_closes(line))
        complete.append(completeness(line, added[start:start + len(line)]))
        start += len(line)
    opened, complete = np.array(opened), np.array(complete)
    threshold = punctuator.decode_config.written
    p1, p10, p50 = np.quantile(complete, [0.01, 0.1, 0.5]) if len(complete) else (0, 0, 0)
    return (f"{path}: {len(words)} lines; opens and closes {100 * opened.mean():.1f}%; completeness 1% {p1:.2f}, "
            f"10% {p10:.2f}, median {p50:.2f}; >= 0.5 {100 * (complete >= 0.5).mean():.1f}%, >= 0.7 "
            f"{100 * (complete >= 0.7).mean():.1f}%; read as written (>= {threshold}) "
            f"{100 * (opened & (complete >= threshold)).mean():.1f}%")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, WrittenFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size", "written"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(WrittenFlags, raw), p.settings(PredictionSettings, raw)
    punctuator = load_punctuator(prediction)
    for path in args.files:
        print(file_report(punctuator, path))
    return 0


if __name__ == "__main__":
    run_script(main)
