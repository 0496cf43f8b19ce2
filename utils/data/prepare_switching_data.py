#!/usr/bin/env python
"""Build the data of a "switching tokens" tagger (seed paper 001): one tagger trained on separate single-task
sets (disfluency deletion, punctuation, "no conversion"), evaluated zero-shot on joint disfluency deletion +
punctuation.

    python utils/data/prepare_switching_data.py --out work/switch/data \\
        --fluent_train work/default_en/ted.train.tgt --fluent_dev work/default_en/cased.dev.tgt

Every set NAME is three line-aligned files: NAME.src (source words), NAME.tgt (target line), NAME.del (one
0/1 per source word, space-separated; 1: disfluent, delete it). The target's words are always the source words
without the 1-words, up to case and marks at word edges; this is checked for every line when writing.
  swbd.{train,dev,test}    Switchboard (deep-disfluency 0.0.1) sides split by conversation
                           (switchboard.split_sides), cut into 10-60 word lines (switchboard.cut_side);
                           src: all words ASR-like (lower case, no marks; ``th-`` -> ``th``); tgt: the fluent ones.
  swbd_sides.{dev,test}    the same sides, one whole side per line.
  gen.train                the disfluency generator (disfluency.insert_disfluencies, statistics of the
                           Switchboard TRAIN sides only) over the first --gen_words words' worth of lines of
                           --fluent_train; src: ASR-like disfluent words; tgt: the line ASR-like.
  none.train               the next --none_words words' worth of lines: src = tgt = the restored line, all 0.
  gen_punc.train           with --punc_fluent: the generator over those lines (a punctuation set's text, e.g.
                           ted.train.tgt); src: ASR-like disfluent words; tgt: the line as it is (cased,
                           punctuated), for ``preprocess_data.py --tasks punc --kept_disfluencies``: punctuation
                           over disfluent speech, the disfluencies kept (the disf task stays off).
  gen.dev                  the generator over --fluent_dev (ASR-like src and tgt): disfluency-only dev.
  joint.dev                gen.dev's src and .del (the same draw), tgt: the --fluent_dev line exactly as it is
                           (cased, punctuated): the zero-shot joint evaluation set.
Also writes generator_stats.json (disfluency.statistics of the train sides) and card.json (per set: lines,
words, deleted words, deletion rate, origin, licence; the options). Deterministic for a --seed.
"""
import json
import os
import random
import re
import sys
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write
from gector_punct_data.corpora import disfluency, switchboard
from gector_punct_data.corpora import switching as sw
from gector_punct_data.corpora.fetch import describe
from gector_punct_data.script import run_script

DEFAULT_CACHE = cache_root()
SWBD_LICENCE = ("deep-disfluency 0.0.1 (PyPI sdist, licence UNKNOWN in its metadata): experiment output with the "
                "gold disfluency tags of Switchboard conversations; Switchboard and its disfluency annotation are "
                "LDC corpora: research use, do not republish")
TED_LICENCE = "TED talks (IWSLT): CC BY-NC-ND 4.0, research use"
MIXED_LICENCE = "per source, in the file's own data card (PREFIX.stats.json of PREFIX.dev.tgt)"


def source_licences(path: str) -> dict:
    """PREFIX.{train,dev}.tgt -> {source: licence} from PREFIX.stats.json beside it (utils/data/prepare_default_data.py's
    card), or {} where there is none."""
    prefix = re.sub(r"\.(train|dev)\.tgt$", "", path)
    card = prefix + ".stats.json"
    if prefix == path or not os.path.isfile(card):
        return {}
    with open(card, encoding="utf-8") as f:
        sources = json.load(f).get("sources", {})
    return {name: s.get("licence", "") for name, s in sources.items() if isinstance(s, dict)}


@dataclass(kw_only=True)
class SwitchingDataFlags(Settings):
    out: str = flag(help="output folder (created); every file in it is written atomically")
    cache: str = flag(DEFAULT_CACHE, "where the deep-disfluency sdist is found or downloaded to",
                      default_text=CACHE_TEXT)
    fluent_train: str = flag(help="restored (punctuated) text lines for gen.train and none.train, e.g. ted.train.tgt")
    fluent_dev: str = flag(help="held-apart restored, cased, punctuated lines for gen.dev and joint.dev, e.g. "
                                "cased.dev.tgt")
    gen_words: int = flag(200000, "words of --fluent_train (whole lines from its start) for gen.train", min=1)
    none_words: int = flag(60000, "words of the following --fluent_train lines for none.train (0: no set)", min=0)
    punc_fluent: str | None = flag(None, "restored lines of the punctuation set (e.g. ted.train.tgt) for "
                                         "gen_punc.train: the same lines with generated disfluencies, the target as "
                                         "it is", default_text="no such set")
    seed: int = flag(1, "random seed of the line cuts and the generator")
    max_dev_lines: int | None = flag(None, "use only the first N lines of --fluent_dev for gen.dev/joint.dev", min=1,
                                     default_text="all")
    train_note: str = flag(TED_LICENCE, "licence note of --fluent_train")
    dev_note: str = flag(MIXED_LICENCE, "licence note of --fluent_dev",
                         default_text="its data card's, PREFIX.stats.json, where found")


def parse_args(argv) -> SwitchingDataFlags:
    p = FlagParser(__doc__)
    add_flags(p, SwitchingDataFlags)
    return p.settings(SwitchingDataFlags, p.parse_args(argv))


def rng(seed: int, name: str) -> random.Random:
    """One independent, reproducible random stream per set (string seeds hash the same in every run)."""
    return random.Random(f"{seed}/{name}")


def switchboard_sets(sides: dict, parts: dict, seed: int) -> dict:
    """Sides and their split -> {set name: (rows, card notes)} of the swbd.* and swbd_sides.* sets."""
    origin = f"{describe(switchboard.PACKAGE)}: {switchboard.MEMBER}"
    sets = {}
    for part, ids in parts.items():
        notes = {"origin": origin, "sides": len(ids), "licence": SWBD_LICENCE}
        sets[f"swbd.{part}"] = (sw.switchboard_rows(sides, ids, rng(seed, f"swbd.{part}")), notes)
        if part != "train":
            sets[f"swbd_sides.{part}"] = (sw.switchboard_rows(sides, ids, None, whole=True), notes)
    return sets


def fluent_sets(args, stats: dict) -> dict:
    """Options and generator statistics -> {set name: (rows, card notes)} of gen.train, none.train, gen.dev
    and joint.dev."""
    train = sw.read_fluent(args.fluent_train)
    gen_lines, rest = sw.take_words(train, args.gen_words)
    none_lines, _ = sw.take_words(rest, args.none_words)
    if args.none_words and not none_lines:
        raise InputError(f"{args.fluent_train}: no line left for none.train after the {len(gen_lines)} lines of "
                         f"gen.train; lower --gen_words or set --none_words 0")
    dev = sw.read_fluent(args.fluent_dev)[:args.max_dev_lines]
    gen_train, _ = sw.generated_rows(gen_lines, stats, rng(args.seed, "gen.train"))
    gen_dev, joint_dev = sw.generated_rows(dev, stats, rng(args.seed, "gen.dev"))

    def notes(path, lines, licence, what):
        span = f"lines {lines[0][0]}-{lines[-1][0]}" if lines else "no line"
        found = source_licences(path)
        return {"origin": f"{path} {span}: {what}", "licence": licence, **({"source_licences": found} if found else {})}
    generated = "disfluencies generated with the Switchboard train statistics (generator_stats.json)"
    sets = {"gen.train": (gen_train, notes(args.fluent_train, gen_lines, args.train_note, generated + ", ASR-like"))}
    if args.none_words:
        sets["none.train"] = (sw.none_rows(none_lines), notes(args.fluent_train, none_lines, args.train_note,
                                                               "no conversion, src = tgt = the line"))
        if sum(len(r.src) for r in sets["none.train"][0]) < args.none_words:
            sets["none.train"][1]["short"] = f"the file ended: fewer than the {args.none_words} words asked for"
    if args.punc_fluent:
        punc_lines = sw.read_fluent(args.punc_fluent)
        _, gen_punc = sw.generated_rows(punc_lines, stats, rng(args.seed, "gen_punc.train"))
        sets["gen_punc.train"] = (gen_punc, notes(args.punc_fluent, punc_lines, args.train_note,
                                                  generated + "; target: the line as it is (disfluencies kept)"))
    sets["gen.dev"] = (gen_dev, notes(args.fluent_dev, dev, args.dev_note, generated + ", ASR-like"))
    sets["joint.dev"] = (joint_dev, notes(args.fluent_dev, dev, args.dev_note,
                                          "gen.dev's source and flags; target: the restored line as in the file"))
    return sets


def stats_card(stats: dict, train_ids: list) -> dict:
    """The generator statistics in brief, for card.json (the whole dict is generator_stats.json)."""
    r = stats["repairs"]
    return {"file": "generator_stats.json", "measured_on": "Switchboard train sides only", "train_sides": train_ids,
            "words": stats["words"], "disfluent_share": stats["disfluent_share"],
            "filler_rate": stats["fillers"]["rate"], "repair_rate": r["rate"],
            "repair_type_rates": {k: v["rate"] for k, v in r["types"].items()}}


def build(args) -> dict:
    """Options -> the card (dict); writes every set, generator_stats.json and card.json into args.out."""
    sides = switchboard.load(args.cache)
    parts = switchboard.split_sides(sides)
    stats = disfluency.statistics({s: sides[s] for s in parts["train"]})  # never a dev or test side
    sets = switchboard_sets(sides, parts, args.seed)
    sets.update(fluent_sets(args, stats))
    os.makedirs(args.out, exist_ok=True)
    card = {"options": vars(args), "sets": {}, "split": parts,
            "generator_statistics": stats_card(stats, parts["train"]),
            "del_format": "one 0/1 per source word, space-separated; 1: disfluent, delete it"}
    for name, (rows, notes) in sets.items():
        sw.write_set(args.out, name, rows)
        card["sets"][name] = sw.set_card(rows, **notes)
    with atomic_write(os.path.join(args.out, "generator_stats.json")) as f:
        json.dump(stats, f, indent=1)
    with atomic_write(os.path.join(args.out, "card.json")) as f:
        json.dump(card, f, indent=1)
    return card


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        card = build(args)
    except sw.RowError:
        raise  # a builder's bug, not bad input: the traceback says where
    except (ValueError, RuntimeError, KeyError, OSError) as err:  # InputError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return 2
    for name, c in card["sets"].items():
        print(f"{name:<16}{c['lines']:>7} lines {c['source_words']:>8} source words {c['deleted_words']:>7} deleted "
              f"({100 * c['deletion_rate']:.1f}%)" + (f"  [{c['short']}]" if "short" in c else ""))
    print(f"written to {args.out} (card.json, generator_stats.json)")
    return 0


if __name__ == "__main__":
    run_script(main)
