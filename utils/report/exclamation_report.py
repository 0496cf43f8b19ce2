#!/usr/bin/env python
"""How sure a model's `!` is: per `exclamation` threshold (a `!` stays only where its labels are at least that
probable together, else `.`; ``DecodeConfig.exclamation``), the `!` it writes on a cased dev file against the
reference's (precision, recall), and the English everyday lines (tests/data/everyday.jsonl, parts A and B:
part C is never tuned on) it passes and writes a `!` in. The IWSLT scores count `!` as PERIOD, so they cannot
choose this threshold.

    python utils/report/exclamation_report.py --model_path default_en --cased_dev W/cased.dev.tagged --thresholds 0.5 0.9 0.95
"""
import sys
from dataclasses import dataclass, replace

from gector_punct.dataset.reader import DatasetReader
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.loading import ModelLoadError, load_punctuator
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.scoring.everyday import read_records, violations
from gector_punct.text.files import InputError
from gector_punct.text.units import narrow_marks
from gector_punct_data.script import run_script

EVERYDAY = "tests/data/everyday.jsonl"


@dataclass(kw_only=True)
class ExclamationFlags(Settings):
    cased_dev: str = flag(help="a cased dev file (utils/preprocess_data.py output) whose `!` are the reference")
    thresholds: list[float] = flag([0.0, 0.5, 0.9, 0.95], "exclamation thresholds to compare", min=0, max=1)
    everyday: str = flag(EVERYDAY, "the everyday test file (its English punc lines of parts A and B are read)")


def exclaimed(tags) -> list[bool]:
    return [bool(t.append) and "!" in narrow_marks(t.append) for t in tags]


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ExclamationFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(ExclamationFlags, raw), p.settings(PredictionSettings, raw)
    try:
        punctuator = load_punctuator(prediction)
        dev = DatasetReader().read(args.cased_dev)
        records = [r for r in read_records(args.everyday)
                   if r["lang"] == "en" and r["tasks"] == "punc" and r["part"] in "AB"]
    except (InputError, ModelLoadError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    words = [i.words for i in dev]
    probabilities = punctuator.probabilities(words)
    gold = [exclaimed(i.tags) for i in dev]
    for threshold in args.thresholds:
        decode = replace(punctuator.decode_config, exclamation=threshold)
        predicted = [exclaimed(tags) for tags in punctuator.decode(words, probabilities, decode)]
        right = sum(a and b for g, q in zip(gold, predicted) for a, b in zip(g, q))
        said, wanted = sum(map(sum, predicted)), sum(map(sum, gold))
        outputs = Punctuator(punctuator.models, decode, case_forms=punctuator.case_forms).predict(
            [r["input"] for r in records])
        passed = sum(not violations(o, r) for o, r in zip(outputs, records))
        print(f"exclamation {threshold:.2f}: cased dev `!` written {said}, right {right} of {wanted} "
              f"(P {100 * right / max(said, 1):.1f}, R {100 * right / max(wanted, 1):.1f}); everyday English "
              f"A+B {passed}/{len(records)} passed, {sum('!' in o for o in outputs)} with a `!`")
    return 0


if __name__ == "__main__":
    run_script(main)
