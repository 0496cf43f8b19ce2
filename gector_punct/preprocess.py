"""Source/target text files -> preprocessed (GECToR-format) lines. Used by ``utils/preprocess_data.py``.

``preprocess_files(source, target, case="auto", skip_bad=False) -> (tagged lines, stats)``: both files are
read line by line in step; a pair whose words do not correspond, or files of different lengths, raise
``InputError`` naming the files and the line (with ``skip_bad`` a bad pair is skipped and counted in
``stats["skipped"]``). A pair of empty lines is passed over. ``case="auto"`` treats a target without a
upper-case letter in at least 1 of 200 words as an uncased corpus: its case tags become ``$CASE_UNKNOWN``.
With ``line_numbers=True``, ``stats["line_numbers"]`` lists the input line of each written line (so that a
parallel audio list can follow).
"""
from __future__ import annotations

from itertools import zip_longest

from .io import InputError, read_all_lines
from .tags import AlignmentError, format_tagged, looks_cased, tags_from_pair


def preprocess_files(source_path: str, target_path: str, case: str = "auto", skip_bad: bool = False,
                     line_numbers: bool = False):
    sources = read_all_lines(source_path)
    targets = read_all_lines(target_path)
    if len(sources) != len(targets):
        raise InputError(f"{source_path} has {len(sources)} lines but {target_path} has {len(targets)}: "
                         "the files must be parallel, one text per line")
    cased = looks_cased(targets) if case == "auto" else case == "cased"
    out, stats = [], {"lines": len(sources), "written": 0, "skipped": 0, "empty": 0, "cased": cased}
    numbers = []
    for number, (source, target) in enumerate(zip_longest(sources, targets), start=1):
        words = source.split()
        if not words and not target.strip():
            stats["empty"] += 1
            continue
        try:
            if not words or not target.strip():
                raise AlignmentError("one side is empty")
            tags = tags_from_pair(words, target, cased)
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
