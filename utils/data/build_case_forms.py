#!/usr/bin/env python
"""Write a model folder's case forms (``case_forms.tsv.gz``): how each word is written when it is not
lower-case, counted in cased training text (``gector_punct.text.case_forms``; the predictor reads it at load time).

    python utils/data/build_case_forms.py --text work/corpora/all.train.tgt --model_path models/default_en

Give it target (written) text only, and training text only: dev text would leak into what is scored.
"""
import os
import sys
from dataclasses import dataclass
from itertools import islice

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.case_forms import FILE_NAME, CaseForms
from gector_punct.text.files import InputError, read_lines
from gector_punct.text.tags import capitalize, looks_cased
from gector_punct_data.script import run_script


def cased_lines(paths: list[str]):
    """The lines of every file, after checking that each carries case (an uncased file teaches nothing)."""
    for path in paths:
        sample = [line for _, line in islice(read_lines(path), 2000)]
        if not looks_cased(sample):
            raise InputError(f"{path}: its first {len(sample)} lines carry no case; give cased target text")
        yield from (line for _, line in read_lines(path))


@dataclass(kw_only=True)
class CaseFormsFlags(Settings):
    text: list[str] = flag(help="cased target text files (training split only)")
    model_path: str = flag(help=f"model folder to write {FILE_NAME} into")
    min_count: int = flag(5, "keep words seen at least this often away from a sentence start", min=1)


def main(argv=None) -> None:
    p = FlagParser(__doc__)
    add_flags(p, CaseFormsFlags)
    args = p.settings(CaseFormsFlags, p.parse_args(argv))
    if not os.path.isdir(args.model_path):
        sys.exit(f"error: {args.model_path} is not a model folder")
    try:
        forms = CaseForms.count(cased_lines(args.text), args.min_count)
    except InputError as e:
        sys.exit(f"error: {e}")
    forms.save(args.model_path)
    named = sum(f.share >= 50 for f in forms.forms.values())
    shaped = sum(f.form != capitalize(f.form) for f in forms.forms.values())
    size = os.path.getsize(os.path.join(args.model_path, FILE_NAME))
    print(f"{len(forms.forms)} words ({named} mostly not lower-case, {shaped} upper or mixed case), "
          f"{size / 1024:.0f} KiB -> {os.path.join(args.model_path, FILE_NAME)}")


if __name__ == "__main__":
    run_script(main)
