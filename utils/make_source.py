#!/usr/bin/env python
"""Make an ASR-like SOURCE file from a restored TARGET file: lower-case, marks at word edges removed
(inner ' and - kept), one output line per input line.

    python utils/make_source.py target.txt source.txt
"""
import argparse
import sys

from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct.text.tags import make_source


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", help="restored text, one text per line ('-': stdin)")
    p.add_argument("source", help="where to write the ASR-like text ('-': stdout)")
    args = p.parse_args(argv)
    try:
        with atomic_write(args.source) as out:
            for _, line in read_lines(args.target):
                out.write(make_source(line) + "\n")
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
