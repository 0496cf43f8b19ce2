#!/usr/bin/env python
"""Write restored lines where spoken numbers, codes, e-mail addresses and names sit at and across sentence
ends (gector_punct_data/corpora/templates.py says what and why), one a line, to shape and preprocess like
any other target file:

    python utils/data/speech_templates.py --out work/templates.tgt --lines 3000
    python utils/data/shape_data.py --target work/templates.tgt --out_prefix work/templates_shaped --spoken 0
    python utils/preprocess_data.py -s work/templates_shaped.src -t work/templates_shaped.tgt -o work/templates.tagged

The output depends only on --lines and --seed.
"""
import random
import sys
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write, error_text
from gector_punct_data.corpora.templates import template_lines
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class TemplateFlags(Settings):
    out: str = flag(help="the restored lines' file (written atomically)")
    lines: int = flag(3000, "lines to write", min=1)
    seed: int = flag(1, "random seed", min=0)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, TemplateFlags)
    args = p.settings(TemplateFlags, p.parse_args(argv))
    try:
        with atomic_write(args.out) as out:
            out.writelines(line + "\n" for line in template_lines(args.lines, random.Random(args.seed)))
    except OSError as err:
        print(f"error: {error_text(err, args.out)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    run_script(main)
