#!/usr/bin/env python
"""Make an ASR-like SOURCE file from a restored TARGET file: lower-case, marks at word edges removed
(inner ' and - kept), one output line per input line.

    python utils/make_source.py target.txt source.txt
"""
import sys
from dataclasses import dataclass, fields

from gector_punct.options.flags import FlagParser, Settings, flag, help_text
from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct.text.tags import make_source
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class MakeSourceFlags(Settings):
    target: str = flag(help="restored text, one text per line ('-': stdin)")
    source: str = flag(help="where to write the ASR-like text ('-': stdout)")


def parse_args(argv=None) -> MakeSourceFlags:
    """Both fields are arguments without a flag name, in order: ``make_source.py TARGET SOURCE``."""
    p = FlagParser(__doc__)
    for f in fields(MakeSourceFlags):
        p.add_argument(f.name, help=help_text(f))
    return p.settings(MakeSourceFlags, p.parse_args(argv))


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        with atomic_write(args.source) as out:
            for _, line in read_lines(args.target):
                out.write(make_source(line) + "\n")
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    run_script(main)
