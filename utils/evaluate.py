#!/usr/bin/env python
"""Score restored text against a reference: per-class precision / recall / F1 of punctuation (IWSLT
classes COMMA, PERIOD, QUESTION and their micro-average), of case (non-lower-case words) and of sentence
boundaries.

    python utils/evaluate.py --reference ref.txt --prediction pred.txt [--json]
    python utils/evaluate.py --reference ../shared/data/iwslt/dev2012.tsv --prediction dev2012.restored.txt

The reference is punctuated text (same lines and words as the prediction) or a ``token<TAB>LABEL`` file.
Marks fold into classes the IWSLT way (: - -> COMMA, ! ; -> PERIOD); --map changes that.
"""
import json
import sys
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError
from gector_punct.scoring.metrics import (IWSLT_CLASSES, IWSLT_MAP, added_only, format_report, given_marks,
                                  labels_from_files, score)
from gector_punct_data.script import run_script


def mark_class(text: str) -> str:
    """A --map item, ``MARK=CLASS``, checked."""
    mark, sep, _ = text.partition("=")
    if not sep or not mark:
        raise ValueError(f"takes MARK=CLASS items, not {text!r}")
    return text


@dataclass(kw_only=True)
class EvaluateFlags(Settings):
    reference: str = flag(help="reference: punctuated text, or token<TAB>LABEL lines")
    prediction: str = flag(help="restored text to score")
    map: list[str] = flag([], "fold marks into classes, MARK=CLASS items, e.g. '!=EXCLAMATION' ':=COLON'",
                          parse=mark_class, allow_empty=True, default_text="the IWSLT folding")
    classes: list[str] = flag(list(IWSLT_CLASSES), "punctuation classes to report and micro-average", allow_empty=True)
    case: str = flag("auto", "score case: auto = when the reference looks cased", choices=("auto", "yes", "no"))
    given: str | None = flag(None, "the partly punctuated input that was restored: score only what restoration added "
                                   "(words whose input had a mark after them leave the scores; their case too where "
                                   "capitalised)")
    json: bool = flag(False, "print the scores as JSON instead of a table")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, EvaluateFlags)
    args = p.settings(EvaluateFlags, p.parse_args(argv))
    mapping = dict(IWSLT_MAP)
    for item in args.map:
        mark, _, name = item.partition("=")
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
    run_script(main)
