#!/usr/bin/env python
"""Shape restored target lines like real transcripts: numbers in words, sources that keep part of the marks.

    python utils/data/shape_data.py --target data/cased.train.tgt --out_prefix data/cased_shaped --spoken 0.7 --partial 0.5
    python utils/data/shape_data.py --target data/ted.dev.tgt --out_prefix data/ted_given30 --spoken 0 --share 0.3

writes OUT_PREFIX.tgt and OUT_PREFIX.src, line for line with the input (gector_punct_data/corpora/shaping.py says
what each setting does). The output depends only on the input and --seed.
"""
import random
import sys
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write, error_text, read_lines
from gector_punct_data.corpora.shaping import shape_pair
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class ShapeFlags(Settings):
    target: str = flag(help="restored text, one line per segment")
    out_prefix: str = flag(help="writes OUT_PREFIX.tgt and OUT_PREFIX.src")
    spoken: float = flag(0.7, "share of lines whose numbers are written in words, as most recognisers write them "
                              "(the rest keep digits)", min=0, max=1)
    partial: float = flag(0.5, "share of lines whose source keeps a random share (0-100%) of the marks and case "
                               "(the rest are fully unpunctuated)", min=0, max=1)
    share: float | None = flag(None, "keep exactly this share of marks and case in every source line instead "
                                     "(dev sets)", min=0, max=1, default_text="none: --partial decides")
    seed: int = flag(1, "random seed", min=0)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ShapeFlags)
    args = p.settings(ShapeFlags, p.parse_args(argv))
    rng = random.Random(args.seed)
    try:
        pairs = [shape_pair(line, rng, args.spoken, args.partial, args.share) for _, line in read_lines(args.target)]
        for side, suffix in ((0, "tgt"), (1, "src")):
            with atomic_write(f"{args.out_prefix}.{suffix}") as out:
                out.writelines(pair[side] + "\n" for pair in pairs)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: {error_text(err, args.out_prefix)}", file=sys.stderr)
        return 2
    print(f"{len(pairs)} lines -> {args.out_prefix}.tgt/.src", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
