#!/usr/bin/env python
"""Turn an IWSLT ``token<TAB>LABEL`` file into punctuated TARGET text and its SOURCE, cut into lines of
random length at arbitrary points (ASR-like streams), optionally split into a train and a held-out part.

    python utils/data/tsv_to_text.py ../shared/data/iwslt/dev2012.tsv data/iwslt --heldout 0.1

writes data/iwslt.train.tgt/.src and data/iwslt.dev.tgt/.src (the held-out part is the *end* of the file,
whole talks apart from the training part).
"""
import random
import sys
from dataclasses import dataclass, fields

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, help_text
from gector_punct.text.files import InputError, atomic_write
from gector_punct.scoring.iwslt import read_tsv
from gector_punct_data.corpora import join_contractions, tsv_to_text
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class TsvToTextFlags(Settings):
    tsv: str = flag(help="token<TAB>LABEL file")
    prefix: str = flag(help="output prefix: PREFIX.train.tgt, PREFIX.train.src (and PREFIX.dev.* with --heldout)")
    heldout: float = flag(0.0, "fraction of tokens (from the end) held out as dev", min=0, max=1)
    min_words: int = flag(10, "shortest line, in words", min=1)
    max_words: int = flag(60, "longest line, in words, at least --min_words", min=1)
    keep_split_contractions: bool = flag(False, "keep IWSLT's 'it 's' instead of joining to 'it's'")
    seed: int = flag(1, "random seed of the line cuts")
    whole: float = flag(0.0, "share of lines cut at a sentence end instead of anywhere, so that whole utterances "
                             "occur (0: every cut arbitrary)", min=0, max=1)


POSITIONAL = ("tsv", "prefix")  # given without a flag name, in this order: ``tsv_to_text.py TSV PREFIX ...``


def parse_args(argv=None) -> TsvToTextFlags:
    p = FlagParser(__doc__)
    for f in fields(TsvToTextFlags):
        if f.name in POSITIONAL:
            p.add_argument(f.name, help=help_text(f))
    add_flags(p, TsvToTextFlags, skip=POSITIONAL)
    args = p.settings(TsvToTextFlags, p.parse_args(argv))
    if args.min_words > args.max_words:
        p.error("need --min_words <= --max_words")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
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
    run_script(main)
