"""Source/target text files -> preprocessed (GECToR-format) lines. Used by ``utils/preprocess_data.py``.

``preprocess_files(source, target, case="auto", skip_bad=False) -> (tagged lines, stats)``: both files are
read line by line in step; a pair whose words do not correspond, or files of different lengths, raise
``InputError`` naming the files and the line (with ``skip_bad`` a bad pair is skipped and counted in
``stats["skipped"]``). A pair of empty lines is passed over. ``case="auto"`` treats a target without a
upper-case letter in at least 1 of 200 words as an uncased corpus: its case tags become ``$CASE_UNKNOWN``.
With ``line_numbers=True``, ``stats["line_numbers"]`` lists the input line of each written line (so that a
parallel audio list can follow).

``tasks`` (``gector_punct.text.tasks``) says what the pairs teach: with ``disf`` the target may leave source
words out (``$DELETE``); without ``punc`` the target must keep the source's marks and case (a pair that
changes them raises), and case is known to be unchanged (never ``$CASE_UNKNOWN``). ``kept_disfluencies``
(punc on, disf off): the source holds disfluencies that the target leaves out, and the tagger is to keep
them: they are tagged ``$DELETE`` (so that the words around them align) and ``reader.word_labels`` teaches
nothing for them, only the marks of the words around them: a punctuation set over disfluent speech.
"""
from __future__ import annotations

from itertools import zip_longest

from gector_punct.text.files import InputError, read_all_lines
from gector_punct.text.tags import CASE_UNKNOWN, KEEP, format_tagged, looks_cased, tags_from_pair
from gector_punct.text.alignment import AlignmentError
from gector_punct.text.tasks import DEFAULT_TASKS
from gector_punct.text.units import split_units


def preprocess_files(source_path: str, target_path: str, case: str = "auto", skip_bad: bool = False,
                     line_numbers: bool = False, tasks: frozenset[str] = DEFAULT_TASKS,
                     kept_disfluencies: bool = False):
    if kept_disfluencies and tasks != DEFAULT_TASKS:
        raise ValueError("kept disfluencies belong to a punctuation set (tasks punc: punc on, disf off)")
    sources = read_all_lines(source_path)
    targets = read_all_lines(target_path)
    if len(sources) != len(targets):
        raise InputError(f"{source_path} has {len(sources)} lines but {target_path} has {len(targets)}: "
                         "the files must be parallel, one text per line")
    if case == "auto":
        cased = looks_cased(targets) if "punc" in tasks else True
    else:
        cased = case == "cased"
    out, stats = [], {"lines": len(sources), "written": 0, "skipped": 0, "empty": 0, "cased": cased}
    numbers = []
    for number, (source, target) in enumerate(zip_longest(sources, targets), start=1):
        words = split_units(source)
        if not words and not target.strip():
            stats["empty"] += 1
            continue
        try:
            if not words or not target.strip():
                raise AlignmentError("one side is empty")
            tags = tags_from_pair(words, target, cased, deletions="disf" in tasks or kept_disfluencies)
            if "punc" not in tasks:
                _check_unpunctuated(words, tags)
        except AlignmentError as err:
            if skip_bad:
                stats["skipped"] += 1
                continue
            raise InputError(f"{source_path}:{number} / {target_path}:{number}: {err}") from None
        out.append(format_tagged(words, tags))
        stats["written"] += 1
        numbers.append(number)
    if line_numbers:
        stats["line_numbers"] = numbers
    return out, stats


def _check_unpunctuated(words: list[str], tags: list) -> None:
    """Without the punc task a target may only delete words: marks and case stay as the source has them."""
    for k, (word, tag) in enumerate(zip(words, tags)):
        if tag.adds_marks or tag.case not in (KEEP, CASE_UNKNOWN):
            raise AlignmentError(f"word {k + 1} ({word!r}): the target changes its marks or case ({tag}), but the "
                                 "punc task is off for this file (--tasks)")
