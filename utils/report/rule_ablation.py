#!/usr/bin/env python
"""What one line rule (gector_punct/prediction/line_rules.py LINE_RULES) does on the dev files: each file's
punctuation F1 (overall and per IWSLT class, precision and recall) with the rule and without it, the model's
probabilities computed once per file.

    python utils/report/rule_ablation.py --model_path accurate_en --rule ask_inverted_questions \\
        --dev ted_lines=W/ted.dev.tagged cased_lines=W/cased.dev.tagged --whole ted_utt=W/ted_whole.dev.tagged

--dev files are read as lines cut anywhere (predict.py --fragments), --whole files as whole utterances (the
default reading of predict.py). --show_changes N also prints, per file, the first N lines the rule changes:
a few words around the first change, with the rule, without it and in the reference.
"""
from dataclasses import dataclass

from gector_punct.dataset.reader import DatasetReader
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.decoding import decode_lines
from gector_punct.prediction.line_rules import LINE_RULES
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.scoring.evaluation import score_tags
from gector_punct.text.tags import apply_tags
from gector_punct_data.script import run_script

RULES = [rule.__name__ for rule in LINE_RULES]


@dataclass(kw_only=True)
class AblationFlags(Settings):
    rule: str = flag(help="the line rule to leave out", choices=tuple(RULES))
    dev: list[str] = flag([], "NAME=FILE dev files read as lines cut anywhere", allow_empty=True)
    whole: list[str] = flag([], "NAME=FILE dev files read as whole utterances", allow_empty=True)
    show_changes: int = flag(0, "per file, print this many of the lines the rule changes (with, without, "
                                "reference)", min=0)


def scores(instances, tags) -> str:
    punct = score_tags(instances, tags)["punct"]
    classes = " ".join(f"{name} {punct[name]['f1']:.1f} (P {punct[name]['precision']:.1f} "
                       f"R {punct[name]['recall']:.1f})" for name in ("COMMA", "PERIOD", "QUESTION"))
    return f"overall {punct['overall']['f1']:.2f}, {classes}"


def changes(instances, with_rule, without_rule, most: int) -> str:
    """Up to ``most`` lines the rule changes: the words around the first change with the rule, without it and
    in the reference, and how many lines it changes in all."""
    out, changed = [], 0
    for instance, a, b in zip(instances, with_rule, without_rule):
        if a == b:
            continue
        changed += 1
        if changed > most:
            continue
        lines = [apply_tags(instance.words, tags).split() for tags in (a, b, instance.tags)]
        first = next((k for k, (x, y) in enumerate(zip(lines[0], lines[1])) if x != y), 0)
        start = max(0, first - 5)
        out += [f"  {label:<8} {' '.join(words[start:first + 6])}" for label, words in
                zip(("with", "without", "ref"), lines)] + [""]
    return "\n".join(out + [f"  {changed} lines changed by the rule"])


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, AblationFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(AblationFlags, raw), p.settings(PredictionSettings, raw)
    files = [(item, False) for item in args.dev] + [(item, True) for item in args.whole]
    if not files or any("=" not in item for item, _ in files):
        p.error("give --dev and/or --whole files as NAME=FILE")
    without = tuple(rule for rule in LINE_RULES if rule.__name__ != args.rule)
    punctuator = load_punctuator(prediction)
    for item, whole in files:
        name, path = item.split("=", 1)
        instances = DatasetReader().read(path)
        words = [i.words for i in instances]
        probabilities = punctuator.probabilities(words)
        with_rule, without_rule = (
            decode_lines(words, probabilities, punctuator.names, punctuator.tasks, punctuator.decode_config,
                         punctuator.case_forms, whole, rules=rules) for rules in (LINE_RULES, without))
        print(f"{name}: with {scores(instances, with_rule)}\n{name}: without {scores(instances, without_rule)}")
        if args.show_changes:
            print(changes(instances, with_rule, without_rule, args.show_changes))
    return 0


if __name__ == "__main__":
    run_script(main)
