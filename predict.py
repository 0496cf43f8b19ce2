#!/usr/bin/env python
"""Restore punctuation, case and sentence boundaries, one output line per input line: the command line of
``gector_punct.cli.predict`` (installed as the ``gector-punct`` command too; ``--help`` lists every flag).

    python predict.py --input_file talk.txt --output_file talk.restored.txt      # the shipped best model
    echo "so i went to new york did you" | gector-punct --input_file -
"""
import sys

from gector_punct.cli.predict import *  # noqa: F401,F403 (main and its parts, as tests and tools call them)
from gector_punct.cli.predict import main

if __name__ == "__main__":
    sys.exit(main())
