#!/usr/bin/env python
"""How much of each dev text already occurs in the training text: the fraction of a dev file's word n-grams
(default 10-grams) that occur anywhere in the training files.

    python utils/report/ngram_overlap.py --train data/all.train.tgt --dev data/ted.dev.tgt data/cased.dev.tgt

Words are compared as make_source writes them (lower-cased, marks at word edges stripped), so a punctuated
target and its source file count alike. Each file is one word stream (its lines are cut at arbitrary points
inside documents, so n-grams run across line ends). The fraction counts n-gram occurrences (positions) in the
dev file. Only the dev n-grams are held in memory; the training files are streamed.
"""
import json
import sys
from collections import deque
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, read_lines
from gector_punct.text.tags import make_source
from gector_punct_data.script import run_script


def ngrams(path: str, n: int):
    """The word n-grams of a file, in order, as tuples (the file as one stream of make_source words)."""
    window = deque(maxlen=n)
    for _, line in read_lines(path):
        for word in make_source(line).split():
            window.append(word)
            if len(window) == n:
                yield tuple(window)


def overlap(train_paths: list, dev_paths: list, n: int = 10) -> dict:
    """dev path -> {"ngrams": occurrences, "in_train": how many occur in the training text, "fraction"}."""
    dev = {path: list(ngrams(path, n)) for path in dev_paths}
    wanted = set().union(*dev.values()) if dev else set()
    found = set()
    for path in train_paths:
        found.update(g for g in ngrams(path, n) if g in wanted)
    out = {}
    for path, grams in dev.items():
        hits = sum(g in found for g in grams)
        out[path] = {"ngrams": len(grams), "in_train": hits, "fraction": hits / len(grams) if grams else 0.0}
    return out


@dataclass(kw_only=True)
class OverlapFlags(Settings):
    train: list[str] = flag(help="training text files (targets or sources)")
    dev: list[str] = flag(help="dev text files, each scored on its own")
    n: int = flag(10, "n-gram length in words", min=1, short="-n")
    json: bool = flag(False, "print the result as JSON instead of a table")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, OverlapFlags)
    args = p.settings(OverlapFlags, p.parse_args(argv))
    try:
        result = overlap(args.train, args.dev, args.n)
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for path, r in result.items():
            print(f"{path}: {r['in_train']}/{r['ngrams']} {args.n}-grams in the training text ({100 * r['fraction']:.2f}%)")
    return 0


if __name__ == "__main__":
    run_script(main)
