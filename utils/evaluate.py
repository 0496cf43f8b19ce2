#!/usr/bin/env python
"""Score restored text against a reference: per-class precision / recall / F1 of punctuation (IWSLT
classes COMMA, PERIOD, QUESTION and their micro-average), of case (non-lower-case words) and of sentence
boundaries.

    python utils/evaluate.py --reference ref.txt --prediction pred.txt [--json]
    python utils/evaluate.py --reference ../shared/data/iwslt/dev2012.tsv --prediction dev2012.restored.txt

The reference is punctuated text (same lines and words as the prediction) or a ``token<TAB>LABEL`` file.
Marks fold into classes the IWSLT way (: - -> COMMA, ! ; -> PERIOD); --map changes that.
"""
import argparse
import json
import sys

from gector_punct.text.files import InputError
from gector_punct.scoring.metrics import (IWSLT_CLASSES, IWSLT_MAP, added_only, format_report, given_marks,
                                  labels_from_files, score)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reference", required=True, help="reference: punctuated text, or token<TAB>LABEL lines")
    p.add_argument("--prediction", required=True, help="restored text to score")
    p.add_argument("--map", nargs="*", default=[], metavar="MARK=CLASS",
                   help="fold marks into classes, e.g. '!=EXCLAMATION' ':=COLON' (default: the IWSLT folding)")
    p.add_argument("--classes", nargs="*", default=list(IWSLT_CLASSES),
                   help="punctuation classes to report and micro-average (default: COMMA PERIOD QUESTION)")
    p.add_argument("--case", choices=["auto", "yes", "no"], default="auto",
                   help="score case: auto = when the reference looks cased")
    p.add_argument("--given", default=None, metavar="INPUT",
                   help="the partly punctuated input that was restored: score only what restoration added "
                        "(words whose input had a mark after them leave the scores; their case too where capitalised)")
    p.add_argument("--json", action="store_true", help="print the scores as JSON instead of a table")
    args = p.parse_args(argv)
    mapping = dict(IWSLT_MAP)
    for item in args.map:
        mark, sep, name = item.partition("=")
        if not sep or not mark:
            p.error(f"--map takes MARK=CLASS, got {item!r}")
        mapping[mark] = name
    try:
        cased = None if args.case == "auto" else args.case == "yes"
        ref, pred = labels_from_files(args.reference, args.prediction, mapping, cased)
        if args.given:
            ref, pred = added_only(ref, pred, given_marks(args.given, mapping))
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    result = score(ref, pred, tuple(args.classes))
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
