"""The conversions a tagger can be switched to do, and the switching tokens that tell it (seed 001).

``TASKS``: ``disf`` (delete disfluencies: ``$DELETE``) and ``punc`` (restore punctuation and case). A set of
tasks is written ``punc``, ``disf``, ``disf,punc`` or ``none``; ``parse_tasks(text) -> frozenset`` reads
it (raising ValueError naming the bad part). A model with ``ModelConfig.switches`` (the tasks it has a
switch for, e.g. ``("disf", "punc")``) reads one switch token per task at the start of every window, on or
off: ``switch_states(tasks, switches) -> (0|1, ...)``. A task that is off leaves its part of the output
alone whatever the model says (``Punctuator`` masks it when decoding): with ``punc`` off, the input's
marks and case stay as they are; with ``disf`` off, no word is deleted.
"""
from __future__ import annotations

TASKS = ("disf", "punc")
DEFAULT_TASKS = frozenset({"punc"})  # what every tagger did before switches: punctuation and case only
NONE = "none"


def parse_tasks(text: str) -> frozenset[str]:
    """``"disf,punc"`` -> {"disf", "punc"}; ``"none"`` (or ``""``) -> no task."""
    parts = [p.strip() for p in text.replace("+", ",").split(",") if p.strip()]
    if parts == [NONE] or not parts:
        return frozenset()
    unknown = [p for p in parts if p not in TASKS]
    if unknown:
        raise ValueError(f"unknown task {unknown[0]!r} in {text!r} (tasks: {', '.join(TASKS)}, or {NONE})")
    return frozenset(parts)


def format_tasks(tasks: frozenset[str]) -> str:
    return ",".join(t for t in TASKS if t in tasks) or NONE


def switch_states(tasks: frozenset[str], switches: tuple[str, ...]) -> tuple[int, ...]:
    """One state per switch of a model, in its order: 1 for a task that is on."""
    return tuple(int(name in tasks) for name in switches)
