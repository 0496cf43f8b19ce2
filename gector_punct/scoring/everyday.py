"""The everyday test file (``tests/data/everyday.jsonl``): raw lines, each with what a careful editor accepts.

A record is one JSON object per line: ``id`` (``category-NN``, unique), ``part`` (``A`` | ``B`` | ``C``: C is
the held-aside check nobody tunes on), ``lang`` (``LANGUAGES``), ``tasks`` (as ``predict.py --tasks``:
``punc``, ``disf,punc``, ``disf``), ``input`` (one raw line) and EITHER ``expect`` (the one output an editor
accepts, compared with the output stripped of surrounding whitespace) OR ``must`` / ``must_not`` (substrings
that must / must not occur in the output; case and marks count, so ``"March third"`` fails on ``march, third``).

``violations(output, record) -> list of str``: what the output line breaks, empty when it passes (pure).
``part_at(position)``: the part of the record at that 0-based position of the file (A B C A B C ...), so
parts are fixed by position before any model runs. ``record_problems(record, position) -> list of str``:
what is wrong with a record itself. ``read_records(path)``, ``category(record)``, ``pass_rates(records,
failed) -> {part: (passed, total)}`` with ``"all"`` for the whole file.
"""
from __future__ import annotations

import re

from gector_punct.text.files import read_json_objects
from gector_punct.text.tasks import parse_tasks

PARTS = ("A", "B", "C")
LANGUAGES = ("en", "zh", "es", "fr", "de", "it")
ID_PATTERN = re.compile(r"[a-z]+-[0-9]+")
FIELDS = {"id", "part", "lang", "tasks", "input", "expect", "must", "must_not"}


def part_at(position: int) -> str:
    """Every third record is part C; the others alternate A, B."""
    return PARTS[position % len(PARTS)]


def category(record: dict) -> str:
    """``phone-03`` -> ``phone``."""
    return record["id"].rsplit("-", 1)[0]


def violations(output: str, record: dict) -> list[str]:
    """What ``output`` (the restored ``record["input"]``) breaks of the record's expectations."""
    found = []
    if "expect" in record and output.strip() != record["expect"]:
        found.append(f"expected {record['expect']!r}")
    found += [f"missing {s!r}" for s in record.get("must", []) if s not in output]
    found += [f"has {s!r}" for s in record.get("must_not", []) if s in output]
    return found


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) and s for s in value)


def record_problems(record: dict, position: int) -> list[str]:
    """What is wrong with the record at ``position`` (0-based) itself; empty when it is well-formed."""
    problems = [f"unknown field {k!r}" for k in sorted(set(record) - FIELDS)]
    if not isinstance(record.get("id"), str) or not ID_PATTERN.fullmatch(record["id"]):
        problems.append("id is not category-NN")
    if record.get("part") != part_at(position):
        problems.append(f"part is {record.get('part')!r}, its position gives {part_at(position)!r}")
    if record.get("lang") not in LANGUAGES:
        problems.append(f"lang {record.get('lang')!r} is not one of {', '.join(LANGUAGES)}")
    try:
        if not parse_tasks(record.get("tasks", "")):
            problems.append("no task")
    except (ValueError, AttributeError):
        problems.append(f"tasks {record.get('tasks')!r} unreadable")
    if not isinstance(record.get("input"), str) or not record["input"].strip():
        problems.append("no input")
    checks = [k for k in ("must", "must_not") if k in record]
    if ("expect" in record) == bool(checks):
        problems.append("needs either expect or must / must_not")
    if "expect" in record and not (isinstance(record["expect"], str) and record["expect"].strip()):
        problems.append("expect is empty")
    if any(not _strings(record[k]) for k in checks):
        problems.append("must / must_not are not lists of non-empty strings")
    if checks and not (record.get("must") or record.get("must_not")):
        problems.append("must and must_not are both empty")
    return problems


def read_records(path: str) -> list[dict]:
    """The file's records in order (blank lines skipped); a line that is not a JSON object raises InputError."""
    return [record for _, record in read_json_objects(path)]


def pass_rates(records: list[dict], failed: list[bool]) -> dict[str, tuple[int, int]]:
    """(passed, total) per part present and for ``"all"``; ``failed[i]`` is whether record i failed."""
    rates = {}
    for part in [*PARTS, "all"]:
        chosen = [f for r, f in zip(records, failed) if part in (r["part"], "all")]
        if chosen:
            rates[part] = (chosen.count(False), len(chosen))
    return rates
