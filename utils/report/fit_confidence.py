#!/usr/bin/env python
"""Fit a model's per-word confidence (``prediction.confidence``) on dev data, measure it on dev data it was not
fitted on, and store it in the model folder (``confidence.json``):

    python utils/report/fit_confidence.py --model_path default_en --dev W/ted_whole.dev.tagged W/cased_whole.dev.tagged

Each dev file (``utils/preprocess_data.py`` output) is read as predict.py reads its lines (whole utterances,
unless --fragments) and split by position: its first --fit_share of lines (part A) fit a logistic model
over ``confidence.FEATURES`` (scikit-learn), the rest (part B, later talks and documents) measure it. A word
is wrong when its written form (marks before and after it, its case; case not compared where the
reference has none, as in TED) differs from the reference's. Printed per file, on part B: the error rate,
the expected calibration error (15 equal-width bins), and the share of wrong words among the 10% and 20%
least confident (beside the same share when words are ranked by the punctuation head's largest
probability alone). The review thresholds are part A's confidence quantiles. --plot writes an SVG: the
reliability diagram and the share of errors caught against the share of words flagged, on part B.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression

from gector_punct.dataset.reader import DatasetReader, Instance
from gector_punct.model.vocabulary import PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.confidence import KINDS, Calibration, unit_features, write_calibration
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct.text.files import atomic_write
from gector_punct.text.tags import CASE_UNKNOWN, written_forms
from gector_punct_data.script import run_script

BINS = 15
MIN_UNITS = 50
SHARES = (0.1, 0.2)


@dataclass(kw_only=True)
class FitFlags(Settings):
    dev: list[str] = flag(help="tagged dev files (utils/preprocess_data.py output)")
    fit_share: float = flag(0.5, "share of each file's lines, from its start, that fits; the rest measures",
                            min=0.05, max=0.95)
    store: bool = flag(True, "write the calibration into the (first) model folder's confidence.json")
    plot: str | None = flag(None, "write the reliability diagram and the errors-caught curve here (SVG)")


@dataclass
class Scored:
    """One dev part's units: features, right or wrong (its whole form; ``marks_right``: its marks alone, case
    aside), and the punctuation head's largest probability."""
    features: np.ndarray
    right: np.ndarray
    marks_right: np.ndarray
    top: np.ndarray

    @classmethod
    def join(cls, parts: list[Scored]) -> Scored:
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("features", "right", "marks_right", "top")))


def score_instances(punctuator, instances: list[Instance]) -> Scored:
    """The dev lines tagged as predict.py tags them; each unit's features and whether its form is right."""
    words = [punctuator.tagger_line(instance.words) for instance in instances]
    probabilities = punctuator.probabilities(words)
    tags = punctuator.decode(words, probabilities, whole=not punctuator.fragments)
    features = unit_features(words, probabilities, punctuator.names, tags)
    right, marks_right = [], []
    for instance, line, line_tags in zip(instances, words, tags):
        cased = not any(t.case == CASE_UNKNOWN for t in instance.tags)
        ours, theirs = written_forms(line, line_tags), written_forms(instance.words, instance.tags)
        for a, b in zip(ours, theirs):
            right.append(a == b if cased or a is None or b is None else a.lower() == b.lower())
            marks_right.append(a == b if a is None or b is None else a.lower() == b.lower())
    top = probabilities[PUNCT_HEAD.name].max(-1)  # the simple maximum the issue compared against
    return Scored(np.concatenate(features), np.array(right, dtype=bool), np.array(marks_right, dtype=bool), top)


def expected_calibration_error(confidence: np.ndarray, right: np.ndarray) -> tuple[float, list[tuple]]:
    """ECE over ``BINS`` equal-width bins, and per non-empty bin (mean confidence, accuracy, count)."""
    bins = np.minimum((confidence * BINS).astype(int), BINS - 1)
    rows, ece = [], 0.0
    for b in range(BINS):
        inside = bins == b
        if inside.any():
            rows.append((float(confidence[inside].mean()), float(right[inside].mean()), int(inside.sum())))
            ece += inside.mean() * abs(rows[-1][0] - rows[-1][1])
    return float(ece), rows


def caught(confidence: np.ndarray, right: np.ndarray, share: float) -> float:
    """The share of wrong units among the ``share`` least confident (ties broken by position)."""
    wrong = ~right
    if not wrong.any():
        return 1.0
    order = np.argsort(confidence, kind="stable")[: int(round(share * len(confidence)))]
    return float(wrong[order].sum() / wrong.sum())


def measure(calibration: Calibration, part: Scored) -> dict:
    confidence = calibration.confidence(part.features)
    ece, bins = expected_calibration_error(confidence, part.right)
    out = {"words": int(len(part.right)), "error_rate": float(1 - part.right.mean()), "ece": ece, "bins": bins,
           "curve": [caught(confidence, part.right, s / 100) for s in range(0, 101, 2)]}
    for share in SHARES:
        out[f"caught_{int(share * 100)}"] = caught(confidence, part.right, share)
        out[f"caught_{int(share * 100)}_marks"] = caught(confidence, part.marks_right, share)
        out[f"caught_{int(share * 100)}_top_punct"] = caught(part.top, part.right, share)
    return out


def fit(part: Scored) -> Calibration:
    """Per decision kind, a logistic model on that kind's units (the model fitted on all of them where a kind
    has fewer than ``MIN_UNITS`` units or one outcome only)."""
    x, kinds = part.features[:, :-1], part.features[:, -1].astype(int)

    def weights(inside: np.ndarray) -> tuple[float, ...]:
        model = LogisticRegression(C=1.0, max_iter=5000).fit(x[inside], part.right[inside])
        return tuple(float(w) for w in model.coef_[0]) + (float(model.intercept_[0]),)

    pooled = weights(np.ones(len(kinds), dtype=bool))
    table = tuple(weights(kinds == k) if (kinds == k).sum() >= MIN_UNITS and len(set(part.right[kinds == k])) == 2
                  else pooled for k in range(len(KINDS)))
    draft = Calibration(table, (0.0,) * 101, {})
    quantiles = np.quantile(draft.confidence(part.features), np.linspace(0, 1, 101))
    return Calibration(table, tuple(float(q) for q in quantiles), {})


def report_line(name: str, m: dict) -> str:
    return (f"{name}: {m['words']} words, {100 * m['error_rate']:.1f}% wrong; ECE {m['ece']:.3f}; the 10% least "
            f"confident hold {100 * m['caught_10']:.1f}% of the errors (punctuation maximum: "
            f"{100 * m['caught_10_top_punct']:.1f}%), the 20% {100 * m['caught_20']:.1f}% "
            f"({100 * m['caught_20_top_punct']:.1f}%); of the punctuation errors (case aside) the 10% hold "
            f"{100 * m['caught_10_marks']:.1f}%")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, FitFlags)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size", "fragments", "threads"))
    raw = p.parse_args(argv)
    args, prediction = p.settings(FitFlags, raw), p.settings(PredictionSettings, raw)
    punctuator = load_punctuator(prediction, calibration=Calibration.uncalibrated())  # not the folder's old one
    fits, held = [], {}
    for path in args.dev:
        instances = DatasetReader().read(path)
        cut = int(len(instances) * args.fit_share)
        fits.append(score_instances(punctuator, instances[:cut]))
        held[path] = score_instances(punctuator, instances[cut:])
    calibration = fit(Scored.join(fits))
    measured = {path: measure(calibration, part) for path, part in held.items()}
    measured["all"] = measure(calibration, Scored.join(list(held.values())))
    for name, m in measured.items():
        print(report_line(name, m))
    summary = {name: {k: round(v, 4) for k, v in m.items() if k not in ("bins", "curve")}
               for name, m in measured.items()}
    calibration = Calibration(calibration.weights, calibration.review_thresholds, summary)
    if args.store:
        write_calibration(model_paths(prediction.model_path, prediction.tasks)[0], calibration)
    if args.plot:
        with atomic_write(args.plot) as f:
            f.write(svg_plot(measured["all"]))
    return 0


def svg_plot(m: dict) -> str:
    """Two panels: confidence against accuracy per bin (dots sized by count, the diagonal), and the share of
    errors caught against the share of words flagged."""
    size, pad, gap = 260, 40, 60
    width = 2 * size + 2 * pad + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{size + 2 * pad}" '
             f'font-family="sans-serif" font-size="12">', '<rect width="100%" height="100%" fill="white"/>']

    def panel(x0: int, title: str, xlabel: str, ylabel: str) -> None:
        parts.append(f'<rect x="{x0}" y="{pad}" width="{size}" height="{size}" fill="none" stroke="#444"/>')
        parts.append(f'<text x="{x0 + size / 2}" y="{pad - 12}" text-anchor="middle">{title}</text>')
        parts.append(f'<text x="{x0 + size / 2}" y="{pad + size + 28}" text-anchor="middle">{xlabel}</text>')
        parts.append(f'<text x="{x0 - 28}" y="{pad + size / 2}" text-anchor="middle" '
                     f'transform="rotate(-90 {x0 - 28} {pad + size / 2})">{ylabel}</text>')
        for t in (0, 0.5, 1):
            parts.append(f'<text x="{x0 + t * size}" y="{pad + size + 14}" text-anchor="middle">{t:g}</text>')
            parts.append(f'<text x="{x0 - 4}" y="{pad + (1 - t) * size + 4}" text-anchor="end">{t:g}</text>')
        parts.append(f'<line x1="{x0}" y1="{pad + size}" x2="{x0 + size}" y2="{pad}" stroke="#bbb" '
                     'stroke-dasharray="4 3"/>')

    panel(pad, "Confidence against accuracy", "confidence", "share right")
    total = sum(count for _, _, count in m["bins"])
    for conf, acc, count in m["bins"]:
        r = 2 + 10 * (count / total) ** 0.5
        parts.append(f'<circle cx="{pad + conf * size:.1f}" cy="{pad + (1 - acc) * size:.1f}" r="{r:.1f}" '
                     'fill="#1f77b4" fill-opacity="0.7"/>')
    x0 = 2 * pad + size + gap - pad
    panel(x0, "Errors caught", "share of words flagged", "share of errors")
    points = " ".join(f"{x0 + (k * 2 / 100) * size:.1f},{pad + (1 - v) * size:.1f}" for k, v in enumerate(m["curve"]))
    parts.append(f'<polyline points="{points}" fill="none" stroke="#d62728" stroke-width="2"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    run_script(main)
