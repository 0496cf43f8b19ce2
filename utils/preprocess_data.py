#!/usr/bin/env python
"""Turn parallel SOURCE (ASR-like) / TARGET (restored) files into the tagged training format.

    python utils/preprocess_data.py -s train.src -t train.tgt -o train.tagged [--vocab_dir train.vocab]

Each output line is ``word SEPL|||SEPR tag`` per word (GECToR's format). TARGET may attach marks to words
("York,") or separate them by spaces ("York ,"). Pairs whose words differ, or files of different lengths,
stop with an error naming the file and line, unless --skip_bad.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gector_punct.io import InputError, atomic_write  # noqa: E402
from gector_punct.preprocess import preprocess_files  # noqa: E402
from gector_punct.tags import parse_tagged  # noqa: E402
from gector_punct.vocabulary import Vocabulary  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-s", "--source", required=True, help="source file: one lower-case, unpunctuated text per line")
    p.add_argument("-t", "--target", required=True, help="target file: the same lines restored (cased, punctuated)")
    p.add_argument("-o", "--output", required=True, help="output file in the tagged format")
    p.add_argument("--case", choices=["auto", "cased", "uncased"], default="auto",
                   help="uncased: case tags are unknown (masked in training); auto: uncased if TARGET has no capital letter")
    p.add_argument("--skip_bad", action="store_true", help="skip and count pairs that do not align instead of stopping")
    p.add_argument("--vocab_dir", default=None, help="also write the label vocabulary of this data (AllenNLP format)")
    args = p.parse_args(argv)
    try:
        lines, stats = preprocess_files(args.source, args.target, args.case, args.skip_bad)
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    with atomic_write(args.output) as out:
        out.writelines(line + "\n" for line in lines)
    if args.vocab_dir:
        Vocabulary.from_tags(parse_tagged(line)[1] for line in lines).save(args.vocab_dir)
    print(f"{stats['written']} of {stats['lines']} lines written to {args.output} "
          f"({stats['skipped']} skipped as bad, {stats['empty']} empty; case {'known' if stats['cased'] else 'unknown'})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
