#!/usr/bin/env python
"""Written dialogue in French, German, Spanish and Italian from the translations of the Battle for Wesnoth
campaigns (Debian ``wesnoth-1.16-*``, GPL-2+): questions without a question word (``Possiamo fidarci di
lui?``), exclamations and short replies, which the multilingual model's other text (jokes, a handbook) holds
few of. The multilingual model's stage 5 reads it (utils/build/build_multilingual_model.sh).

    python utils/data/prepare_game_dialogue.py --out_dir work/dialogue

Writes LANG.train.tgt (written lines) and LANG.train.src (``tags.make_source``) per language: each string of
a campaign's message catalogue (``.mo``: the string table gettext reads, no code) that reads as edited text
(``languages.clean_latin`` and ``edited``: 3+ words, a capital, an end mark, Spanish ``¿ ¡`` paired), holds
no markup (``<b>``, ``$name``, ``{MACRO}``), no dash and no ``!`` (battle cries: ``!`` is 30 a 1,000 words here, 0.1
to 8 in the other text), strings joined in catalogue order into lines of --min_words
words or more, each line ending where a string ends. Train text only: the scored dev sets stay the builder's.
"""
import gettext
import glob
import os
import re
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write
from gector_punct.text.tags import make_source
from gector_punct_data.corpora.fetch import fetch_deb
from gector_punct_data.corpora.languages import clean_latin, edited
from gector_punct_data.script import run_script

CAMPAIGNS = "did dm dw ei httt l low nr sof sota sotbe thot trow tsg ttb utbs".split()
VERSION = "1:1.16.9-1"
LOCALE = "usr/share/games/wesnoth/1.16/locale/{lang}/LC_MESSAGES"
MARKUP = re.compile(r"[<>{}$@~|#=*_\[\]\\—–]")  # and dashes, which the cleaning leaves when spaced oddly


@dataclass(kw_only=True)
class GameDialogueFlags(Settings):
    out_dir: str = flag("work/dialogue", "writes LANG.train.tgt and LANG.train.src here")
    cache_dir: str = flag(cache_root(), "where the Debian packages are downloaded and unpacked",
                          default_text=CACHE_TEXT)
    languages: str = flag("fr,de,es,it", "comma-separated languages")
    min_words: int = flag(8, "a line joins strings until it has this many words", min=1)
    max_words: int = flag(40, "a string longer than this is left out", min=1)


def catalogue_strings(path: str) -> list[str]:
    """The translated strings of one ``.mo`` catalogue, in its order (plural forms: the first)."""
    with open(path, "rb") as f:
        catalogue = gettext.GNUTranslations(f)._catalog  # noqa: SLF001 (the table itself, no lookup)
    return [text for key, text in catalogue.items() if key and isinstance(key, str) and text]


def dialogue_lines(strings: list[str], lang: str, min_words: int, max_words: int) -> list[str]:
    """Strings -> the lines of the kept ones (see the module's docstring)."""
    lines, current = [], []
    for text in strings:
        text = clean_latin(" ".join(text.split()), lang)
        if MARKUP.search(text) or "!" in text or not edited(text, 3, lang) or len(text.split()) > max_words:
            continue
        current.append(text)
        if sum(len(t.split()) for t in current) >= min_words:
            lines.append(" ".join(current))
            current = []
    return lines


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, GameDialogueFlags)
    args = p.settings(GameDialogueFlags, p.parse_args(argv))
    roots = [fetch_deb(f"wesnoth-1.16-{c}", VERSION, args.cache_dir) for c in CAMPAIGNS]
    for lang in args.languages.split(","):
        lines = []
        for root in roots:
            for path in sorted(glob.glob(os.path.join(root, LOCALE.format(lang=lang), "wesnoth-*.mo"))):
                lines += dialogue_lines(catalogue_strings(path), lang, args.min_words, args.max_words)
        for part, rows in (("tgt", lines), ("src", [make_source(line) for line in lines])):
            with atomic_write(os.path.join(args.out_dir, f"{lang}.train.{part}")) as out:
                out.writelines(row + "\n" for row in rows)
        print(f"{lang}: {len(lines)} lines, {sum(len(x.split()) for x in lines)} words")
    return 0


if __name__ == "__main__":
    run_script(main)
