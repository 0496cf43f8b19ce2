"""argparse ``type=`` functions that check a numeric flag's range, so a bad value is a one-line parser
error (exit 2) naming the flag, never a traceback later."""
from __future__ import annotations

import argparse


def probability(text: str) -> float:
    """A float in [0, 1]."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value
