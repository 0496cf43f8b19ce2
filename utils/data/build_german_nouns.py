#!/usr/bin/env python
"""Write the package's German noun list (``gector_punct/text/lexicon/german_nouns.txt.gz``): the words of the
Debian ``wngerman`` word list that it holds only with a capital (``gector_punct.text.german_nouns``).

    python utils/data/build_german_nouns.py

The package is fetched with ``apt-get download`` (not installed) into --cache_dir; --word_list reads a list
already at hand instead (``/usr/share/dict/ngerman`` where ``wngerman`` is installed).
"""
import gzip
import os
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write
from gector_punct.text.german_nouns import NOUNS_FILE, capital_only_words
from gector_punct_data.corpora.fetch import fetch_deb
from gector_punct_data.script import run_script

WNGERMAN = ("wngerman", "20161207-11")
LIST_IN_PACKAGE = "usr/share/dict/ngerman"
HEADER = """# German words written only with a capital (nouns and names), lower-case, one a line: the words the Debian
# wngerman {version} word list (igerman98 by Bjoern Jacke, GPL-2+) holds only capitalised.
# Written by utils/data/build_german_nouns.py; read by gector_punct/text/german_nouns.py.
"""


@dataclass(kw_only=True)
class GermanNounsFlags(Settings):
    cache_dir: str = flag(cache_root(), "where the Debian package is downloaded and unpacked", default_text=CACHE_TEXT)
    word_list: str | None = flag(None, "a wngerman word list to read instead of fetching the package")
    out: str = flag(NOUNS_FILE, "the gzipped list to write", default_text="the package's lexicon/german_nouns.txt.gz")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, GermanNounsFlags)
    args = p.settings(GermanNounsFlags, p.parse_args(argv))
    path = args.word_list or os.path.join(fetch_deb(*WNGERMAN, args.cache_dir), LIST_IN_PACKAGE)
    with open(path, encoding="utf-8") as f:
        nouns = capital_only_words(f)
    text = HEADER.format(version=WNGERMAN[1]) + "".join(w + "\n" for w in nouns)
    with atomic_write(args.out, "wb") as out:
        out.write(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{len(nouns)} words, {os.path.getsize(args.out) / 1024:.0f} KiB -> {args.out}")
    return 0


if __name__ == "__main__":
    run_script(main)
