#!/usr/bin/env python
"""Seed 001's Table 2 on our data: disfluency deletion + punctuation alone, cascaded and zero-shot joint.

    python utils/report/evaluate_switching.py --data work/switch/data --switching models/switch_en \
        --disf_model work/switch/disf_only --punc_model work/switch/punc_only --out table2.json

DATA is what utils/data/prepare_switching_data.py wrote: for each set NAME, NAME.src (disfluent ASR-like
lines), NAME.tgt (the fluent target) and NAME.del (the gold deletion flags). Rows:
  joint.dev (disfluent -> fluent, cased, punctuated): the single-task models cascaded both ways, the
  switching model cascaded both ways and joint (disf,punc: never trained), and uh/um deleted by rule
  followed by the punctuation model;
  Switchboard sets (deletion only): each model with --tasks disf, and the uh/um rule.
Per row: deletion precision / recall / F1 (per source word), punctuation / case / boundary F1 over the
words the reference keeps, BLEU and GLEU of the output lines, and source words per second of the taggers
(model loading aside; a cascade's two passes together). With --ted_dev, also punctuation-only F1 of the
switching and punctuation models on that tagged file. Decoding is neutral (argmax) unless --decode model;
with --tune_data each joint-set row first gets its own decoding, chosen on another folder's joint set.
With --oracle, rows that take the gold deletions (analysis: how much punctuation a system loses to its
deletion errors, to reading disfluent words, and to the never-trained joint state).
"""
import json
import os
import sys
from dataclasses import dataclass

from gector_punct.model.config import DecodeConfig
from gector_punct.scoring.evaluation import evaluate_instances, score_forms
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import InputError, atomic_write
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.dataset.reader import DatasetReader, Instance
from gector_punct.text.tags import looks_cased, tags_from_pair
from gector_punct.text.tasks import parse_tasks
from gector_punct_data.conversion import convert, text_scores
from gector_punct_data.corpora.switching import read_rows


def read_set(data: str, name: str) -> tuple[list[Instance], list[str]]:
    """A set's gold instances (deletions from NAME.del) and its target lines."""
    rows = read_rows(data, name)
    cased = looks_cased([r.tgt for r in rows])
    instances = []
    for number, r in enumerate(rows, start=1):
        origin = f"{os.path.join(data, name)}.src:{number}"
        try:
            instances.append(Instance(list(r.src), tags_from_pair(list(r.src), r.tgt, cased, deletions=list(r.delete)),
                                      origin=origin))
        except ValueError as err:
            raise InputError(f"{origin}: {err}") from None
    return instances, [r.tgt for r in rows]


def row(name: str, mode: str, first, second, instances, targets, gold: bool = False) -> dict:
    words = [i.words for i in instances]
    deletions = [[t.deletes for t in i.tags] for i in instances] if gold else None
    forms, seconds = convert(mode, first, second, words, deletions)
    outputs = [" ".join(f for f in line if f is not None) for line in forms]
    result = score_forms(instances, forms)
    n_words = sum(map(len, words))
    out = {"row": name, "mode": mode, "deletion": result["deletion"],
           **{g: result[g]["overall"] for g in ("punct", "case", "boundary") if g in result and result[g]["overall"]["support"]},
           "words_per_s": n_words / seconds, "seconds": seconds, **text_scores(outputs, targets)}
    print(f"  {name:<38} del F1 {out['deletion']['f1']:5.1f}  punct F1 {out.get('punct', {}).get('f1', 0):5.1f}  "
          f"case F1 {out.get('case', {}).get('f1', 0):5.1f}  BLEU {out['bleu']:5.1f}  {out['words_per_s']:7.0f} words/s",
          flush=True)
    return out


GRID = [DecodeConfig(additional_confidence=a, min_error_probability=m, case_confidence=0.0)
        for a in (0.0, 0.1, 0.2) for m in (0.0, 0.1, 0.2)]


def tune(mode: str, first, second, instances, targets) -> DecodeConfig:
    """The decoding (``GRID``) with the best mean of deletion and punctuation F1 on a tuning set, shared by
    both taggers of a cascade: each system is compared at its own best decoding."""
    best, best_score = GRID[0], -1.0
    for decode in GRID:
        for punctuator in filter(None, (first, second)):
            punctuator.decode_config = decode
        forms, _ = convert(mode, first, second, [i.words for i in instances])
        result = score_forms(instances, forms)
        score = (result["deletion"]["f1"] + result["punct"]["overall"]["f1"]) / 2
        if score > best_score:
            best, best_score = decode, score
    print(f"  tuned {mode}: additional_confidence {best.additional_confidence}, min_error_probability "
          f"{best.min_error_probability} (tuning score {best_score:.1f})", flush=True)
    for punctuator in filter(None, (first, second)):
        punctuator.decode_config = best
    return best


def load(path: str, args) -> Punctuator:
    """A model folder -> a punctuator doing every task the model can, decoding as ``--decode`` says."""
    punctuator = Punctuator.load(path, batch_size=args.batch_size, device=args.device)
    punctuator.tasks = punctuator.models[0].tasks
    if args.decode == "neutral":
        punctuator.decode_config = DecodeConfig.neutral()
    return punctuator


@dataclass(kw_only=True)
class SwitchingFlags(Settings):
    data: str = flag(help="folder written by utils/data/prepare_switching_data.py")
    switching: str = flag(help="the switching-token model (train.py --switches disf,punc)")
    disf_model: str | None = flag(None, "a disfluency-only model (for the single-task cascades)")
    punc_model: str | None = flag(None, "a punctuation-only model (for the cascades and the rule row)")
    joint_set: str = flag("joint.dev", "the joint set's name in DATA")
    swbd_sets: str = flag("swbd.dev,swbd_sides.dev", "comma-separated deletion-only sets in DATA")
    ted_dev: str | None = flag(None, "tagged punctuation dev file for the punctuation-only check")
    decode: str = flag("neutral", "neutral: argmax decoding for every model; model: each model's own defaults",
                       choices=("neutral", "model"))
    tune_data: str | None = flag(None, "a second prepare_switching_data.py folder whose joint set (other text) "
                                       "chooses each joint-set row's decoding from a small grid "
                                       "(additional_confidence, min_error_probability) first")
    oracle: bool = flag(False, "also score the joint set's punctuation with the gold deletions: after them "
                               "(gold>punc), the switching model's punctuation pass or joint pass with them "
                               "imposed (analysis rows)")
    tune_lines: int = flag(400, "lines of the tuning set used", min=1)
    batch_size: int = reused(PredictionSettings, "batch_size")
    device: str | None = reused(PredictionSettings, "device")
    out: str | None = flag(None, "write all figures here as JSON (atomically)")


def parse_args(argv=None) -> SwitchingFlags:
    p = FlagParser(__doc__)
    add_flags(p, SwitchingFlags)
    return p.settings(SwitchingFlags, p.parse_args(argv))


def main(argv=None) -> int:
    args = parse_args(argv)
    switching = load(args.switching, args)
    disf = load(args.disf_model, args) if args.disf_model else None
    punc = load(args.punc_model, args) if args.punc_model else None
    report = {"joint": [], "deletion": {}, "ted_dev": {}}
    instances, targets = read_set(args.data, args.joint_set)
    print(f"{args.joint_set}: {len(instances)} lines", flush=True)
    plan = [("switching joint (zero-shot)", "joint", switching, None),
            ("switching cascade disf>punc", "disf>punc", switching, switching),
            ("switching cascade punc>disf", "punc>disf", switching, switching)]
    if disf and punc:
        plan += [("single-task cascade disf>punc", "disf>punc", disf, punc),
                 ("single-task cascade punc>disf", "punc>disf", punc, disf)]
    if punc:
        plan.append(("uh/um rule > punctuation model", "rule>punc", punc, None))
    if args.oracle:  # where the punctuation is lost: each system's punctuation with the deletions made right
        oracle = [("gold deletions > switching --tasks punc", "gold>punc", switching),
                  ("switching --tasks punc, then gold deletions", "punc@gold", switching),
                  ("switching joint, gold deletions", "joint@gold", switching)]
        oracle += [("gold deletions > punctuation-only", "gold>punc", punc)] if punc else []
        report["oracle"] = [row(name, mode, a, None, instances, targets, gold=True) for name, mode, a in oracle]
    if args.tune_data:
        tune_instances, tune_targets = read_set(args.tune_data, args.joint_set)
        tuning = tune_instances[:args.tune_lines], tune_targets[:args.tune_lines]
        report["tuned"] = {}
        for name, mode, a, b in [p for p in plan if p[1] != "punc>disf"]:  # deletes nothing whatever the decoding
            report["tuned"][name] = vars(tune(mode, a, b, *tuning))
            report["joint"].append(row(name, mode, a, b, instances, targets))
    else:
        report["joint"] = [row(name, mode, a, b, instances, targets) for name, mode, a, b in plan]
    for name in filter(None, args.swbd_sets.split(",")):
        instances, targets = read_set(args.data, name)
        print(f"{name}: {len(instances)} lines", flush=True)
        models = [("switching", switching)] + ([("disfluency-only", disf)] if disf else [])
        report["deletion"][name] = [row(label, "disf", m, None, instances, targets) for label, m in models]
        report["deletion"][name].append(row("uh/um rule", "rule", None, None, instances, targets))
    if args.ted_dev:
        dev = DatasetReader().read(args.ted_dev, parse_tasks("punc"))
        for label, model in [("switching", switching)] + ([("punctuation-only", punc)] if punc else []):
            model.tasks = parse_tasks("punc")
            report["ted_dev"][label] = evaluate_instances(model, dev)["punct"]["overall"]
            print(f"{args.ted_dev} punctuation-only, {label}: F1 {report['ted_dev'][label]['f1']:.1f}", flush=True)
    if args.out:
        with atomic_write(args.out) as out:
            json.dump(report, out, indent=2)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
