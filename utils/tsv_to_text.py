#!/usr/bin/env python
"""Turn an IWSLT ``token<TAB>LABEL`` file into punctuated TARGET text and its SOURCE, cut into lines of
random length at arbitrary points (ASR-like streams), optionally split into a train and a held-out part.

    python utils/tsv_to_text.py ../shared/data/iwslt/dev2012.tsv data/iwslt --heldout 0.1

writes data/iwslt.train.tgt/.src and data/iwslt.dev.tgt/.src (the held-out part is the *end* of the file,
whole talks apart from the training part).
"""
import argparse
import random
import sys

from gector_punct.text.files import InputError, atomic_write
from gector_punct.scoring.iwslt import read_tsv
from gector_punct_data.corpora import join_contractions, tsv_to_text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tsv", help="token<TAB>LABEL file")
    p.add_argument("prefix", help="output prefix: PREFIX.train.tgt, PREFIX.train.src (and PREFIX.dev.* with --heldout)")
    p.add_argument("--heldout", type=float, default=0.0, help="fraction of tokens (from the end) held out as dev (default 0)")
    p.add_argument("--min_words", type=int, default=10, help="shortest line, in words (default 10)")
    p.add_argument("--max_words", type=int, default=60, help="longest line, in words (default 60)")
    p.add_argument("--keep_split_contractions", action="store_true", help="keep IWSLT's 'it 's' instead of joining to 'it's'")
    p.add_argument("--seed", type=int, default=1, help="random seed of the line cuts (default 1)")
    p.add_argument("--whole", type=float, default=0.0,
                   help="share of lines cut at a sentence end instead of anywhere, so that whole utterances occur "
                        "(default 0: every cut arbitrary)")
    args = p.parse_args(argv)
    try:
        pairs = read_tsv(args.tsv)
        pairs = pairs if args.keep_split_contractions else join_contractions(pairs)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    cut = len(pairs) - int(round(args.heldout * len(pairs)))
    parts = {"train": pairs[:cut], "dev": pairs[cut:]} if args.heldout else {"train": pairs}
    rng = random.Random(args.seed)
    for name, part in parts.items():
        lines = tsv_to_text(part, rng, args.min_words, args.max_words, args.whole)
        for side, suffix in ((0, "tgt"), (1, "src")):
            with atomic_write(f"{args.prefix}.{name}.{suffix}") as out:
                out.writelines(pair[side] + "\n" for pair in lines)
        print(f"{name}: {len(part)} tokens, {len(lines)} lines -> {args.prefix}.{name}.tgt/.src", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
