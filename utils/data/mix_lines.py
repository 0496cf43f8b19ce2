#!/usr/bin/env python
"""Files of lines -> one file of all their non-blank lines in a seeded random order (so that its first N lines
are a share of every file), written atomically:

    python utils/data/mix_lines.py --out W/distill/train.tagged W/ted_mix_shaped.train.tagged \\
        W/spoken_shaped.train.tagged
"""
import random
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write, check_input_file, read_all_lines
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class MixFlags(Settings):
    files: list[str] = flag(help="the files to mix (their lines in this order before the shuffle)")
    out: str = flag(help="the mixed file")
    seed: int = flag(42, "the shuffle's seed")


def main() -> int:
    parser = FlagParser(__doc__)
    add_flags(parser, MixFlags)
    args = parser.settings(MixFlags, parser.parse_args())
    for path in args.files:
        check_input_file(path)
    lines = [line for path in args.files for line in read_all_lines(path) if line.strip()]
    random.Random(args.seed).shuffle(lines)
    with atomic_write(args.out) as out:
        out.writelines(line + "\n" for line in lines)
    return 0


if __name__ == "__main__":
    run_script(main)
