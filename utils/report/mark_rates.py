#!/usr/bin/env python
"""How often a model writes each mark, per language, against the references and the training text:

    python utils/report/mark_rates.py --model_path multilingual --set it=W/multi/it.dev --train it=W/multi/it.train.tgt

Per language: each mark's rate per 1,000 words (units: a Chinese character is one) in the model's output on the
set's sources (PREFIX.src, read as predict.py reads lines), in its references (PREFIX.tgt) and, given, in the
training targets; full-width marks count as their ASCII forms. The output's rate over the references' is
flagged where it exceeds ``LIMIT`` for the marks the issue names (colon, semicolon, exclamation); and the rate
of colons right after a sentence's first or second word (a label's colon: ``Mi: chiamo``) in each.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import read_all_lines
from gector_punct.scoring.metrics import scored_words
from gector_punct.text.units import narrow_marks
from gector_punct_data.corpora.clean import label_colons
from gector_punct_data.script import named_values, run_script

MARKS = (",", ".", "?", "!", ":", ";", "¿", "¡", "«", "»", '"')
CHECKED = (":", ";", "!")  # issue 49: within LIMIT x the references' rate
LIMIT = 1.5


@dataclass(kw_only=True)
class MarkRatesFlags(Settings):
    set: list[str] = flag(help="LANG=PREFIX: dev sets (PREFIX.src, PREFIX.tgt), one per language")
    train: list[str] = flag([], "LANG=PATH: training targets, one file per language")
    max_lines: int = flag(0, "at most this many lines of each set (0: all)", min=0)


def rates(lines: list[str]) -> tuple[dict[str, float], int]:
    """Per mark, its count per 1,000 units of ``lines``; and the units."""
    counts, units = Counter(), 0
    for line in lines:
        line_units = scored_words(line)  # French-set marks (``viens\u00a0?``) counted with their word
        units += len(line_units)
        counts.update(ch for unit in line_units for ch in narrow_marks(unit) if ch in MARKS)
    return {m: 1000 * counts[m] / max(units, 1) for m in MARKS}, units


def early_colons(lines: list[str]) -> float:
    """Label colons (``clean.label_colons``: after a sentence's first or second word, ``Mi: chiamo``) per
    1,000 units: a speaker's sentence seldom has one."""
    found, units = 0, 0
    for line in lines:
        line_units = scored_words(line)
        units += len(line_units)
        found += sum(label_colons(line_units))
    return 1000 * found / max(units, 1)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, MarkRatesFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size", "fragments", "threads"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(MarkRatesFlags, raw), p.settings(PredictionSettings, raw)
    sets, trains = named_values(args.set, "--set"), dict(named_values(args.train, "--train"))
    punctuator = load_punctuator(prediction)
    print("lang  mark  output  reference  training  output/reference (per 1,000 words)")
    for lang, prefix in sets:
        sources, references = read_all_lines(prefix + ".src"), read_all_lines(prefix + ".tgt")
        if args.max_lines:
            sources, references = sources[: args.max_lines], references[: args.max_lines]
        outputs = punctuator.predict(sources)
        output, units = rates(outputs)
        reference, _ = rates(references)
        training = rates(read_all_lines(trains[lang]))[0] if lang in trains else None
        for mark in MARKS:
            if not (output[mark] or reference[mark] or (training and training[mark])):
                continue
            ratio = output[mark] / reference[mark] if reference[mark] else float("inf") if output[mark] else 1.0
            flagged = " <- over" if mark in CHECKED and ratio > LIMIT else ""
            train_text = f"{training[mark]:8.2f}" if training else "       -"
            print(f"{lang:4}  {mark:4}  {output[mark]:6.2f}  {reference[mark]:9.2f}  {train_text}  {ratio:6.2f}{flagged}")
        early = [early_colons(lines) for lines in (outputs, references)] + (
            [early_colons(read_all_lines(trains[lang]))] if lang in trains else [])
        print(f"{lang:4}  ({units:,} words; a colon after a sentence's first or second word, per 1,000 words: output "
              f"{early[0]:.2f}, reference {early[1]:.2f}" + (f", training {early[2]:.2f})" if len(early) > 2 else ")"))
    return 0


if __name__ == "__main__":
    run_script(main)
