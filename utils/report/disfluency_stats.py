#!/usr/bin/env python
"""Disfluency statistics of Switchboard (deep-disfluency 0.0.1, see gector_punct_data/corpora/switchboard.py),
measured on the train sides only, and the "drop uh/um" rule's per-word deletion P/R/F1 on the dev sides.

    python utils/report/disfluency_stats.py --out work/disfluency_stats.json

The JSON holds {"source", "split" (side ids and word counts per part), "train": disfluency.statistics of the
train sides (the input of disfluency.insert_disfluencies), "baseline": {"dev", "test", "all" (the 100
sides)}}; a summary is printed. The sdist is fetched into --cache_dir once (read in place).
"""
import json
import sys
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.scoring.metrics import deletion_prf
from gector_punct.text.files import atomic_write
from gector_punct_data.corpora import disfluency, switchboard
from gector_punct_data.corpora.fetch import describe
from gector_punct_data.script import run_script


def measure(sides: dict) -> dict:
    """{side id: [Word]} -> the JSON document (split, train statistics, rule baseline per held-out part)."""
    parts = switchboard.split_sides(sides)
    split = {name: {"sides": ids, "words": sum(len(sides[s]) for s in ids),
                    "disfluent_words": sum(w.disfluent for s in ids for w in sides[s])} for name, ids in parts.items()}
    train = disfluency.statistics({s: sides[s] for s in parts["train"]})
    baseline = {}
    for name in ("dev", "test", "all"):
        words = [w for s in (parts[name] if name in parts else sorted(sides)) for w in sides[s]]
        baseline[name] = deletion_prf([w.disfluent for w in words], switchboard.drop_uh_um(words))
    return {"source": f"{describe(switchboard.PACKAGE)}: {switchboard.MEMBER}", "split": split, "train": train,
            "baseline": {"rule": "delete every uh and um", **baseline}}


def top(dist: dict, k: int) -> str:
    return ", ".join(f"{key} {100 * share:.1f}%" for key, share in list(dist.items())[:k])


def summary(doc: dict) -> str:
    t, r = doc["train"], doc["train"]["repairs"]
    lines = [f"{name}: {p['words']} words in {len(p['sides'])} sides, {p['disfluent_words']} disfluent "
             f"({100 * p['disfluent_words'] / max(p['words'], 1):.1f}%)" for name, p in doc["split"].items()]
    lines += [
        (f"train: disfluent {100 * t['disfluent_share']:.1f}% of words (edit terms "
         f"{100 * t['edit_word_share']:.1f}%, reparanda {100 * t['reparandum_word_share']:.1f}%)"),
        f"filler runs per fluent word {t['fillers']['rate']:.4f}; phrases: {top(t['fillers']['phrases'], 10)}",
        f"disfluencies per fluent word {r['rate']:.4f}: " + ", ".join(
            f"{k} {v['rate']:.4f} ({100 * v['share']:.1f}%)" for k, v in r["types"].items()),
        f"reparandum length (words): mean {r['mean_reparandum_length']:.2f}; {top(r['reparandum_length'], 6)}",
        f"interregnum in {100 * t['interregnum']['share']:.1f}% of disfluencies; {top(t['interregnum']['phrases'], 5)}",
        (f"partial words: {t['partial_words']['count']} ({100 * t['partial_words']['rate']:.2f}% of words, "
         f"{100 * t['partial_words']['in_reparandum']:.0f}% in reparanda); of reparanda ending in one: ") + ", ".join(
            f"{k} {100 * v['partial']:.1f}%" for k, v in r["types"].items())]
    for name in ("dev", "test", "all"):
        b = doc["baseline"][name]
        lines.append(f"drop uh/um on {name}: P {b['precision']:.1f} R {b['recall']:.1f} "
                     f"F1 {b['f1']:.1f} (tp {b['tp']}, fp {b['fp']}, fn {b['fn']})")
    return "\n".join(lines)


@dataclass(kw_only=True)
class DisfluencyStatsFlags(Settings):
    cache_dir: str = flag(cache_root(),
                          "where the sdist is downloaded to / found", default_text=CACHE_TEXT)
    out: str = flag("work/disfluency_stats.json", "the JSON file to write")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, DisfluencyStatsFlags)
    args = p.settings(DisfluencyStatsFlags, p.parse_args(argv))
    try:
        sides = switchboard.load(args.cache_dir)
    except (RuntimeError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    doc = measure(sides)
    with atomic_write(args.out) as f:
        json.dump(doc, f, indent=1)
    print(summary(doc))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    run_script(main)
