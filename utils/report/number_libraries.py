#!/usr/bin/env python
"""How inverse text normalisation libraries write the numbers of spoken lines as digits, on probe lines:

    python utils/report/number_libraries.py --lines tests/data/number_lines.tsv [--show_failures]

Each row of ``--lines`` is ``LANG<TAB>spoken<TAB>written``: a recogniser's lower-case line without marks, and
the line an editor writes with its numbers as digits (words that are no quantity, and one to ten in running
text, stay words). Libraries compared, each as installed (one skipped when missing): ``nemo``
(nemo_text_processing's InverseNormalizer, pynini grammars, ``input_case`` lower_cased; its grammars are built
once per language into ``--cache_dir``) and ``text2num`` (``text_to_num.alpha2digit``). Per library and
language: lines right, lines where a word that is no quantity became digits (the harm), and the milliseconds
per 1,000 words once loaded (and the load).
"""
from __future__ import annotations

import difflib
import os
import time
from collections import Counter
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError
from gector_punct_data.script import run_script

LANGS = ("en", "fr", "es", "de", "it")


@dataclass(kw_only=True)
class LibraryFlags(Settings):
    lines: str = flag("tests/data/number_lines.tsv", "LANG<TAB>spoken<TAB>written rows")
    cache_dir: str = flag(os.path.join(os.path.expanduser("~"), ".cache", "gector_punct", "itn"),
                          "where nemo's built grammars are kept")
    show_failures: bool = flag(False, "print each line a library writes otherwise")


def read_rows(path: str) -> list[tuple[str, str, str]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                raise InputError(f"{path}, line {n}: give LANG<TAB>spoken<TAB>written")
            rows.append((parts[0], parts[1], parts[2]))
    return rows


def nemo(cache_dir: str):
    from nemo_text_processing.inverse_text_normalization.inverse_normalize import InverseNormalizer

    normalizers: dict[str, object] = {}

    def convert(lang: str, text: str) -> str:
        if lang not in normalizers:
            try:
                normalizers[lang] = InverseNormalizer(lang=lang, input_case="lower_cased", cache_dir=cache_dir)
            except NotImplementedError:  # a language it has no inverse grammars for: the line stays spoken
                normalizers[lang] = None
        return normalizers[lang].inverse_normalize(text, verbose=False) if normalizers[lang] else text
    return convert


def text2num(cache_dir: str):  # noqa: ARG001 (no grammars to keep)
    from text_to_num import alpha2digit

    return lambda lang, text: alpha2digit(text, lang)


def over_converted(written: str, got: str) -> bool:
    """Whether ``got`` holds digits where the editor's line keeps words (a word that is no quantity, or one to
    ten in running text): a stretch of ``got`` with digits aligned (difflib) to one of ``written`` without."""
    a, b = written.split(), got.split()
    blocks = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    digits = lambda words: any(ch.isdigit() for w in words for ch in w)  # noqa: E731
    return any(op != "equal" and digits(b[j1:j2]) and not digits(a[i1:i2]) for op, i1, i2, j1, j2 in blocks)


def measure(name: str, convert, rows: list[tuple[str, str, str]], show: bool) -> None:
    start = time.perf_counter()
    for lang in sorted({lang for lang, _, _ in rows}):
        convert(lang, "one")  # load (nemo: build or read its grammars)
    load = time.perf_counter() - start
    counts, words, seconds, failures = Counter(), Counter(), Counter(), []
    for lang, spoken, written in rows:
        start = time.perf_counter()
        got = " ".join(convert(lang, spoken).split())
        seconds[lang] += time.perf_counter() - start
        words[lang] += len(spoken.split())
        counts[lang, "lines"] += 1
        counts[lang, "right"] += got == written
        counts[lang, "harm"] += over_converted(written, got)
        if got != written:
            failures.append(f"  {lang}: {spoken!r} -> {got!r} (editor: {written!r})")
    cells = [f"{lang} {counts[lang, 'right']}/{counts[lang, 'lines']} right, {counts[lang, 'harm']} over-converted, "
             f"{1000 * 1000 * seconds[lang] / words[lang]:.0f} ms/1k words" for lang in LANGS if counts[lang, "lines"]]
    print(f"{name} (loaded in {load:.1f} s): " + "; ".join(cells))
    if show:
        print("\n".join(failures))


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, LibraryFlags)
    flags = p.settings(LibraryFlags, p.parse_args(argv))
    rows = read_rows(flags.lines)
    for name, make in (("nemo", nemo), ("text2num", text2num)):
        try:
            convert = make(flags.cache_dir)
        except ImportError:
            print(f"{name}: not installed")
            continue
        measure(name, convert, rows, flags.show_failures)
    return 0


if __name__ == "__main__":
    run_script(main)
