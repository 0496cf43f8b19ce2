#!/usr/bin/env python
"""Which form the French references give the space around ``? ! : ; «  »``: none, a space, a no-break space
(U+00A0) or a narrow one (U+202F), counted per mark in the French text the multilingual model is taught and
measured on, read from its packages as the builder reads them (nothing written):

    python utils/report/french_spacing.py --cache_dir W/cache

Sources: the public-meeting reports (every meeting, body paragraphs; ``languages.read_meetings``' paragraphs)
and the Debian handbook's French pages (prose paragraphs, sentences with code left out as the builder leaves
them, ``multitext.keep_sentences``). ``text/typography.py`` writes the form they use.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from gector_punct.text.files import cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.corpora import multitext as mt
from gector_punct_data.corpora.fetch import fetch
from gector_punct_data.corpora.languages import HANDBOOK, HANDBOOK_DIR, MEETING_STYLES, MEETINGS, meeting_ids
from gector_punct_data.script import run_script

FORMS = {" ": "space", "\u00a0": "no-break", "\u202f": "narrow no-break"}
BEFORE, AFTER = "?!:;»", "«"


@dataclass(kw_only=True)
class FrenchSpacingFlags(Settings):
    cache_dir: str = flag(cache_root(), "where the packages are fetched (and found again)")


def spacing_counts(texts: list[str]) -> Counter:
    """(mark, form) -> how often: the character before ``? ! : ; »`` and after ``«`` (``FORMS``, or
    ``none`` for a letter, digit or mark), where a word stands on the mark's other side."""
    counts = Counter()
    for text in texts:
        for m in re.finditer(rf"(\S|\s)([{BEFORE}])(?=\s|$)", text):
            counts[m.group(2), FORMS.get(m.group(1), "none")] += 1
        for m in re.finditer(rf"(?:^|\s)([{AFTER}])(\S|\s)", text):
            counts[m.group(1), FORMS.get(m.group(2), "none")] += 1
    return counts


def meeting_texts(cache_dir: str) -> list[str]:
    wheel = fetch(MEETINGS, cache_dir)
    texts = []
    for meeting in meeting_ids(wheel):
        paragraphs = mt.docx_paragraphs(wheel.read(f"public_meetings/data/{meeting}.docx"), keep_no_break=True)
        texts.extend(text for style, text in paragraphs if style in MEETING_STYLES)
    return texts


def handbook_texts(cache_dir: str) -> list[str]:
    folder = os.path.join(fetch(HANDBOOK, cache_dir), "usr", "share", "doc", "debian-handbook", "html",
                          HANDBOOK_DIR["fr"])
    texts = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".html") and n != "index.html"):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            texts.extend(mt.keep_sentences(p) for p in mt.handbook_paragraphs(f.read(), keep_no_break=True))
    return texts


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, FrenchSpacingFlags)
    args = p.settings(FrenchSpacingFlags, p.parse_args(argv))
    forms = ["none", *FORMS.values()]
    print("source    mark  " + "  ".join(f"{form:>15}" for form in forms))
    for name, texts in (("meetings", meeting_texts(args.cache_dir)), ("handbook", handbook_texts(args.cache_dir))):
        counts = spacing_counts(texts)
        for mark in BEFORE + AFTER:
            print(f"{name:8}  {mark:4}  " + "  ".join(f"{counts[mark, form]:15,}" for form in forms))
    return 0


if __name__ == "__main__":
    run_script(main)
