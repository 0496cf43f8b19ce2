#!/usr/bin/env python
"""Compare the onnx engine with the torch engine (the reference) on dev lines: how many output lines differ,
which, and why.

    python utils/bench/compare_engines.py --model_path models/default_en \\
        --dev /work/runs/d/ted.dev.tagged /work/runs/d/cased.dev.tagged [--precision int8] [--fragments]

Each dev file's lines (preprocessed, ``utils/preprocess_data.py``: their source words) are restored by both
engines as predict.py restores them (each line a whole utterance; ``--fragments``: pieces cut anywhere). For
every file: the lines, the lines whose outputs differ, and the largest difference of any probability of any
word. For each differing line (up to ``--show``): both outputs and, for each word written differently, each
engine's two likeliest punctuation labels with their probabilities: a near tie that float rounding (or int8
weights) tips the other way reads as two close values on each side.
"""
from dataclasses import dataclass

import numpy as np

from gector_punct.dataset.reader import DatasetReader
from gector_punct.model.config import ENGINE_PRECISIONS
from gector_punct.model.vocabulary import CASE_HEAD, PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import FAST_MODEL
from gector_punct.text.existing import prepare_spaced
from gector_punct_data.script import run_script


def top_two(probabilities: np.ndarray, names: list[str]) -> str:
    order = np.argsort(-probabilities)[:2]
    return ", ".join(f"{names[j]} {probabilities[j]:.4f}" for j in order)


def explain(line: str, engines: dict[str, Punctuator]) -> list[str]:
    """Per word written differently by the engines: each engine's two likeliest punctuation labels."""
    words = prepare_spaced(line, "keep")[0]
    written = {name: p.predict([line])[0].split() for name, p in engines.items()}
    probabilities = {name: p.probabilities([words]) for name, p in engines.items()}
    (reference, ref_p), (other, other_p) = probabilities.items()
    names = engines[reference].names[PUNCT_HEAD.name]
    out = []
    first, second = written.values()
    for k, word in enumerate(words):
        if k < len(first) and k < len(second) and first[k] == second[k]:
            continue
        out.append(f"    word {k} {word!r}: {reference} {top_two(ref_p[PUNCT_HEAD.name][k], names)} | "
                   f"{other} {top_two(other_p[PUNCT_HEAD.name][k], names)}")
        if len(out) >= 3:
            break
    return out


def compare_file(path: str, engines: dict[str, Punctuator], show: int) -> int:
    instances = DatasetReader().read(path)
    lines = [" ".join(instance.words) for instance in instances]
    outputs = {name: p.predict(lines) for name, p in engines.items()}
    (reference, ref_out), (other, other_out) = outputs.items()
    differing = [i for i, (a, b) in enumerate(zip(ref_out, other_out)) if a != b]
    words = [prepare_spaced(line, "keep")[0] for line in lines]
    ref_p, other_p = (p.probabilities(words) for p in engines.values())
    gap = max(float(np.abs(ref_p[h] - other_p[h]).max()) for h in ref_p)
    case_gap = float(np.abs(ref_p[CASE_HEAD.name] - other_p[CASE_HEAD.name]).max())
    print(f"{path}: {len(lines)} lines, {sum(map(len, words))} words; {len(differing)} lines differ "
          f"({100 * len(differing) / max(1, len(lines)):.2f}%); largest probability difference {gap:.2e} "
          f"(case head {case_gap:.2e})")
    for i in differing[:show]:
        print(f"  line {i + 1}:\n    {reference}: {ref_out[i]}\n    {other}: {other_out[i]}")
        print("\n".join(explain(lines[i], engines)))
    return len(differing)


@dataclass(kw_only=True)
class CompareEnginesFlags(Settings):
    model_path: list[str] = flag([FAST_MODEL], "model or ensemble folder(s)", default_text="models/default_en")
    dev: list[str] = flag(help="preprocessed dev files (.tagged)")
    precision: str = flag("float32", "the onnx engine's precision; at float32 the engines should agree",
                          choices=ENGINE_PRECISIONS)
    fragments: bool = reused(PredictionSettings, "fragments", help="read the lines as fragments (predict.py --fragments)")
    batch_size: int = reused(PredictionSettings, "batch_size")
    show: int = flag(10, "differing lines shown per file", min=0)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, CompareEnginesFlags)
    args = p.settings(CompareEnginesFlags, p.parse_args(argv))
    options = {"batch_size": args.batch_size, "fragments": args.fragments}
    engines = {"torch": Punctuator.load(args.model_path, engine="torch", device="cpu", **options),
               f"onnx {args.precision}": Punctuator.load(args.model_path, precision=args.precision, **options)}
    differing = sum(compare_file(path, engines, args.show) for path in args.dev)
    print(f"{differing} lines differ in all")
    return 0


if __name__ == "__main__":
    run_script(main)
