"""Data of a "switching tokens" tagger: separate single-task sets (disfluency deletion, punctuation, no
conversion) and a zero-shot joint disfluency + punctuation dev set (seed paper 001, "Zero-Shot Joint Modeling of
Multiple Spoken-Text-Style Conversion Tasks using Switching Tokens").

A set is a list of ``Row``s: the source words, one deletion flag per source word (True: the word is disfluent
and must be deleted) and the target line. Its invariant (``check_row``): the target's words are the source
words without the flagged ones, up to case and the marks at word edges (``asr_word``). Builders:
  ``switchboard_rows(sides, ids, rng, whole)``  Switchboard sides -> ASR-like lines (or one line per side);
  ``generated_rows(lines, stats, rng)``          restored lines -> (ASR-like disfluency rows, joint rows),
                                                 both from one draw of ``disfluency.insert_disfluencies``;
  ``none_rows(lines)``                           restored lines -> "no conversion" rows (source = target);
  ``take_words(lines, n)``                       the first lines holding n words, and the rest.
``read_fluent(path)`` reads restored lines (errors name file and line); ``write_set`` writes NAME.src/.tgt/.del
atomically after checking every row; ``set_card`` counts a set for the data card.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass

from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct.text.tags import make_source
from . import disfluency


@dataclass(frozen=True)
class Row:
    """One line of a set: ``src`` words, ``delete`` flags (one per source word), ``tgt`` the target line."""

    src: tuple
    delete: tuple
    tgt: str


class RowError(ValueError):
    """A row whose target is not its source minus the deleted words (a bug of a builder, not bad input)."""


def asr_word(token: str) -> str:
    """A token as a recogniser writes it: marks at its edges removed, lower case (``th-`` -> ``th``,
    ``Don't,`` -> ``don't``, ``--`` -> ``''``: a token made only of marks vanishes): ``tags.make_source``."""
    return make_source(token)


def asr_row(words: list, delete: list, tgt: str) -> Row:
    """Words and their deletion flags -> a Row with ASR-like source words (``asr_word``); words that vanish are
    dropped together with their flags, so that the flags stay aligned."""
    kept = [(w, d) for w, d in ((asr_word(w), bool(d)) for w, d in zip(words, delete, strict=True)) if w]
    return Row(tuple(w for w, _ in kept), tuple(d for _, d in kept), tgt)


def normal_words(tokens) -> list:
    """Tokens -> their ``asr_word`` forms, empty ones left out: the form in which source and target compare."""
    return [w for w in map(asr_word, tokens) if w]


def check_row(row: Row, where: str) -> None:
    """Raise RowError (naming ``where``) unless the row has one flag per source word, no word with a space
    or an empty word, and a target equal to the source minus the flagged words (``normal_words`` forms)."""
    if len(row.src) != len(row.delete):
        raise RowError(f"{where}: {len(row.src)} source words, {len(row.delete)} deletion flags")
    if any(not w or w != w.strip() or len(w.split()) != 1 for w in row.src):
        raise RowError(f"{where}: an empty source word or one with a space in {row.src!r}")
    kept = normal_words(w for w, d in zip(row.src, row.delete) if not d)
    if kept != normal_words(row.tgt.split()):
        raise RowError(f"{where}: the target {row.tgt!r} is not the source minus the deleted words {kept!r}")


def switchboard_rows(sides: dict, ids: list, rng: random.Random, whole: bool = False) -> list:
    """Switchboard sides ({side id: [switchboard.Word]}) and the ids to use, in that order -> rows: each side
    cut into lines by ``switchboard.cut_side`` (``whole``: one line per side). Source: all words, ASR-like
    (a partial word ``th-`` becomes ``th``); flags: the disfluent words (edit terms, reparanda); target: the
    fluent words, in the same form."""
    from .switchboard import cut_side
    rows = []
    for side in ids:
        for line in [sides[side]] if whole else cut_side(sides[side], rng):
            row = asr_row([w.word for w in line], [w.disfluent for w in line], "")
            rows.append(Row(row.src, row.delete, " ".join(w for w, d in zip(row.src, row.delete) if not d)))
    return rows


def read_fluent(path: str) -> list:
    """A file of restored lines -> [(line number, line)]. InputError naming the file (and line) for a missing,
    empty or non-UTF-8 file and for a line without a word (blank, or marks only)."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    lines = list(read_lines(path))
    if not lines:
        raise InputError(f"{path}: the file is empty")
    for number, line in lines:
        if not normal_words(line.split()):
            raise InputError(f"{path}:{number}: the line has no word ({line!r}); remove it")
    return lines


def take_words(lines: list, n: int) -> tuple:
    """[(number, line)] -> (the first lines, whole, until they hold at least n words; the lines after them).
    Words are whitespace-separated tokens."""
    total, k = 0, 0
    while k < len(lines) and total < n:
        total += len(lines[k][1].split())
        k += 1
    return lines[:k], lines[k:]


def generated_rows(lines: list, stats: dict, rng: random.Random) -> tuple:
    """Restored lines [(number, line)] -> (disfluency rows, joint rows), one draw of
    ``disfluency.insert_disfluencies`` per line shared by both: the same ASR-like disfluent source words and
    flags (inserted words flagged); disfluency target: the line ASR-like (``make_source``); joint target:
    the line exactly as it is (cased, punctuated)."""
    disf, joint = [], []
    for _, line in lines:
        words, inserted = disfluency.insert_disfluencies(line.split(), stats, rng)
        row = asr_row(words, inserted, make_source(line))
        disf.append(row)
        joint.append(Row(row.src, row.delete, line))
    return disf, joint


def none_rows(lines: list) -> list:
    """Restored lines [(number, line)] -> "no conversion" rows: source = target = the line as it is (its
    whitespace-separated tokens), no word deleted."""
    return [Row(tuple(line.split()), (False,) * len(line.split()), " ".join(line.split())) for _, line in lines]


def write_set(out_dir: str, name: str, rows: list) -> None:
    """Check every row (``check_row``; RowError names the set and line) and write NAME.src (words joined by
    spaces), NAME.tgt and NAME.del (one 0/1 per source word, space-separated) in out_dir, each atomically."""
    for k, row in enumerate(rows, 1):
        check_row(row, f"{name} line {k}")
    columns = {"src": [" ".join(r.src) for r in rows], "tgt": [r.tgt for r in rows],
               "del": [" ".join("1" if d else "0" for d in r.delete) for r in rows]}
    for ext, lines in columns.items():
        with atomic_write(os.path.join(out_dir, f"{name}.{ext}")) as f:
            f.writelines(line + "\n" for line in lines)


def set_card(rows: list, **notes) -> dict:
    """Rows -> {"lines", "source_words", "deleted_words", "deletion_rate" (deleted / source words),
    "target_words", "empty_target_lines", **notes}."""
    src = sum(len(r.src) for r in rows)
    deleted = sum(sum(r.delete) for r in rows)
    return {"lines": len(rows), "source_words": src, "deleted_words": deleted,
            "deletion_rate": round(deleted / src, 5) if src else 0.0,
            "target_words": sum(len(r.tgt.split()) for r in rows),
            "empty_target_lines": sum(not r.tgt.strip() for r in rows), **notes}


def read_rows(out_dir: str, name: str) -> list:
    """NAME.src/.tgt/.del of out_dir -> rows again (for checks and tests)."""
    def lines(ext):
        return [text for _, text in read_lines(os.path.join(out_dir, f"{name}.{ext}"))]
    src, tgt, flags = lines("src"), lines("tgt"), lines("del")
    if not len(src) == len(tgt) == len(flags):
        raise InputError(f"{out_dir}/{name}: {len(src)} source, {len(tgt)} target, {len(flags)} .del lines")
    return [Row(tuple(s.split()), tuple(f == "1" for f in d.split()), t) for s, t, d in zip(src, tgt, flags)]
