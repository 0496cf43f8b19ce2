#!/usr/bin/env python
"""Score a model on held-out data the way its model card reports it, and optionally tune its decoding.

    python utils/model_report.py --model_path models/default_en \\
        --ted_dev work/default_en/ted.dev.tagged --cased_dev work/default_en/cased.dev.tagged [--tune] [--truecase]

Reports (all on preprocessed dev files, whose gold tags are the reference):
* TED punctuation per class (COMMA, PERIOD, QUESTION, micro-average), each line predicted on its own,
  and the whole dev part as one stream (windowed) — as a transcript would arrive;
* case (non-lower-case words) and sentence boundaries on the cased dev file, given as lower-case lines;
* idempotence: the share of words whose tag is not $KEEP when the model runs on its own output;
* with --truecase, the n-gram `truecase` package's case F1 on the same words (pip install truecase);
* with --tune, a grid over additional_confidence x min_error_probability on those dev files (the case head
  biased like the punctuation head), then over case_confidence alone; the best values are written into
  the model's config.json as its defaults.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gector_punct.io import atomic_write  # noqa: E402
from gector_punct.metrics import format_report, labels_from_words, score  # noqa: E402
from gector_punct.predictor import Punctuator  # noqa: E402
from gector_punct.reader import DatasetReader, Instance  # noqa: E402
from gector_punct.tags import KEEP, apply_case  # noqa: E402
from gector_punct.trainer import score_tags  # noqa: E402

GRID_CONFIDENCE = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)  # weighted training favours edits: room above 0.5
GRID_MIN_ERROR = (0.0, 0.2, 0.4, 0.6)
GRID_CASE_CONFIDENCE = (-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.5)


def decode_all(punctuator, instances, probabilities, confidence, min_error, case_confidence=None):
    punctuator.additional_confidence, punctuator.min_error_probability = confidence, min_error
    punctuator.case_confidence = confidence if case_confidence is None else case_confidence
    return punctuator.decode([i.words for i in instances], probabilities)


def objective(ted: dict, cased: dict) -> float:
    return (ted["punct"]["overall"]["f1"] + cased["punct"]["overall"]["f1"] + cased["case"]["overall"]["f1"]) / 3


def truecase_scores(instances: list[Instance]) -> dict:
    import truecase

    caser = truecase.get_truecaser()
    ref, pred = [], []
    for inst in instances:
        gold = [t.prepend + apply_case(w, t.case) + t.append for w, t in zip(inst.words, inst.tags)]
        cased = caser.get_true_case_from_tokens(list(inst.words), "as-is")
        ref.extend(labels_from_words(gold, True))
        pred.extend(labels_from_words(cased, True))
    return score(ref, pred)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model_path", nargs="+", default=[os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "default_en")],
                   help="model folder(s) (default: the shipped model)")
    p.add_argument("--ted_dev", required=True, help="preprocessed TED dev file (uncased: punctuation only)")
    p.add_argument("--cased_dev", required=True, help="preprocessed cased dev file (case and boundaries)")
    p.add_argument("--tune", action="store_true", help="grid-search the decoding defaults and store them in the model")
    p.add_argument("--truecase", action="store_true", help="also score the truecase package's casing (baseline)")
    p.add_argument("--batch_size", type=int, default=64, help="windows per batch (default 64)")
    p.add_argument("--json", default=None, help="also write all figures to this JSON file")
    p.add_argument("--quantize", action="store_true", help="score the dynamic-int8 encoder (what int8 costs in F1)")
    args = p.parse_args(argv)

    if args.quantize and args.tune:
        p.error("--tune stores decoding defaults for the float model; run it without --quantize")
    punctuator = Punctuator.load(args.model_path, batch_size=args.batch_size, quantize=args.quantize)
    ted = DatasetReader().read(args.ted_dev)
    cased = DatasetReader().read(args.cased_dev)
    ted_probs = punctuator.probabilities([i.words for i in ted])
    cased_probs = punctuator.probabilities([i.words for i in cased])
    report: dict = {"model": args.model_path}
    if args.tune:
        grid = []
        for confidence in GRID_CONFIDENCE:
            for min_error in GRID_MIN_ERROR:
                t = score_tags(ted, decode_all(punctuator, ted, ted_probs, confidence, min_error))
                c = score_tags(cased, decode_all(punctuator, cased, cased_probs, confidence, min_error))
                grid.append((objective(t, c), confidence, min_error))
                print(f"additional_confidence {confidence:.2f} min_error_probability {min_error:.2f}: {grid[-1][0]:.2f}")
        best, confidence, min_error = max(grid)
        case_grid = []
        for case_confidence in GRID_CASE_CONFIDENCE:
            t = score_tags(ted, decode_all(punctuator, ted, ted_probs, confidence, min_error, case_confidence))
            c = score_tags(cased, decode_all(punctuator, cased, cased_probs, confidence, min_error, case_confidence))
            case_grid.append((objective(t, c), case_confidence == confidence, case_confidence))
            print(f"case_confidence {case_confidence:.2f}: {case_grid[-1][0]:.2f}")
        best, _, case_confidence = max(case_grid)  # ties: the shared value
        report["tuned"] = {"additional_confidence": confidence, "min_error_probability": min_error,
                           "case_confidence": case_confidence, "objective": best}
        config_path = os.path.join(args.model_path[0], "config.json")
        with open(config_path, encoding="utf-8") as f:
            config = json.load(f)
        config.update(additional_confidence=confidence, min_error_probability=min_error, case_confidence=case_confidence)
        with atomic_write(config_path) as out:
            json.dump(config, out, indent=2, sort_keys=True)
        print(f"stored in {config_path}: additional_confidence {confidence}, min_error_probability {min_error}, "
              f"case_confidence {case_confidence}")
    else:
        confidence, min_error = punctuator.additional_confidence, punctuator.min_error_probability
        case_confidence = punctuator.case_confidence

    report["ted_lines"] = score_tags(ted, decode_all(punctuator, ted, ted_probs, confidence, min_error, case_confidence))
    stream = Instance([w for i in ted for w in i.words], [t for i in ted for t in i.tags])
    report["ted_stream"] = score_tags([stream], [punctuator.predict_tags([stream.words])[0]])
    cased_tags = decode_all(punctuator, cased, cased_probs, confidence, min_error, case_confidence)
    report["cased_lines"] = score_tags(cased, cased_tags)
    restored = [[t.prepend + apply_case(w, t.case) + t.append for w, t in zip(i.words, tags)]
                for i, tags in zip(cased, cased_tags)]
    again = punctuator.predict_tags(restored)
    changed = sum(t.punct != KEEP or t.case != KEEP for tags in again for t in tags)
    report["idempotence_changed_words_pct"] = 100 * changed / max(1, sum(len(r) for r in restored))
    if args.truecase:
        report["truecase_baseline"] = truecase_scores(cased)
    for name in ("ted_lines", "ted_stream", "cased_lines", "truecase_baseline"):
        if name in report:
            print(f"\n== {name}\n{format_report(report[name])}")
    print(f"\nidempotence: {report['idempotence_changed_words_pct']:.2f}% of words change on a second pass")
    if args.json:
        with atomic_write(args.json) as out:
            json.dump(report, out, indent=2, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
