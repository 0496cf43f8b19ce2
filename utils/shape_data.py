#!/usr/bin/env python
"""Shape restored target lines like real transcripts: numbers in words, sources that keep part of the marks.

    python utils/shape_data.py --target data/cased.train.tgt --out_prefix data/cased_shaped --spoken 0.7 --partial 0.5
    python utils/shape_data.py --target data/ted.dev.tgt --out_prefix data/ted_given30 --spoken 0 --share 0.3

writes OUT_PREFIX.tgt and OUT_PREFIX.src, line for line with the input (gector_punct_data/corpora/shaping.py says
what each setting does). The output depends only on the input and --seed.
"""
import argparse
import random
import sys

from gector_punct.options.argtypes import nonnegative_int, probability
from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct_data.corpora.shaping import shape_pair


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", required=True, help="restored text, one line per segment")
    p.add_argument("--out_prefix", required=True, help="writes OUT_PREFIX.tgt and OUT_PREFIX.src")
    p.add_argument("--spoken", type=probability, default=0.7,
                   help="share of lines whose numbers are written in words, as most recognisers write them "
                        "(default 0.7; the rest keep digits)")
    p.add_argument("--partial", type=probability, default=0.5,
                   help="share of lines whose source keeps a random share (0-100%%) of the marks and case "
                        "(default 0.5; the rest are fully unpunctuated)")
    p.add_argument("--share", type=probability, default=None,
                   help="keep exactly this share of marks and case in every source line instead (dev sets)")
    p.add_argument("--seed", type=nonnegative_int, default=1, help="random seed (default 1)")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    try:
        pairs = [shape_pair(line, rng, args.spoken, args.partial, args.share) for _, line in read_lines(args.target)]
        for side, suffix in ((0, "tgt"), (1, "src")):
            with atomic_write(f"{args.out_prefix}.{suffix}") as out:
                out.writelines(pair[side] + "\n" for pair in pairs)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{len(pairs)} lines -> {args.out_prefix}.tgt/.src", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
