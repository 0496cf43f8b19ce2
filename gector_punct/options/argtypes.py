"""``type=`` functions for command-line flags: each turns a flag's text into its value or raises
``argparse.ArgumentTypeError`` with a one-line reason, so that argparse stops with
``SCRIPT: error: argument --FLAG: REASON`` and exit status 2 before any work starts.

Integers: ``positive_int`` (>= 1), ``nonnegative_int`` (>= 0). Floats are always finite (no nan, no inf):
``finite_float`` (any sign), ``nonnegative_float`` (>= 0), ``positive_float`` (> 0), ``probability``
(0 .. 1). ``task_set`` parses a ``--tasks`` value (``tasks.parse_tasks``); ``engine_name`` checks an
``--engine`` value (``engines.choice.ENGINES``).
"""
from __future__ import annotations

import argparse
import math

from gector_punct.engines.choice import ENGINES
from gector_punct.text.tasks import parse_tasks


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _whole_at_least(text: str, minimum: int) -> int:
    value = _integer(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value} is not allowed: it must be {minimum} or more")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1 (a count or size that cannot be empty)."""
    return _whole_at_least(text, 1)


def nonnegative_int(text: str) -> int:
    """A whole number >= 0 (an index, or a count that may be zero)."""
    return _whole_at_least(text, 0)


def finite_float(text: str) -> float:
    """Any finite number, negative included (a bias added to a probability)."""
    return _finite(text)


def nonnegative_float(text: str) -> float:
    """A finite number >= 0 (a threshold on a probability, where above 1 means never)."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value:g} is not allowed: it must be 0 or more")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (a size or a time that cannot be nothing)."""
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{value:g} is not allowed: it must be more than 0")
    return value


def probability(text: str) -> float:
    """A number from 0 to 1, both included."""
    value = _finite(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{value:g} is not a probability: it must be from 0 to 1")
    return value


def task_set(text: str) -> frozenset[str]:
    """A ``--tasks`` value (``punc``, ``disf``, ``disf,punc``, ``none``) as the set of tasks it names."""
    try:
        return parse_tasks(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def engine_name(text: str) -> str:
    """An ``--engine`` value: one of ``engines.choice.ENGINES``."""
    if text not in ENGINES:
        raise argparse.ArgumentTypeError(f"{text!r} is not an engine: one of {', '.join(ENGINES)}")
    return text
