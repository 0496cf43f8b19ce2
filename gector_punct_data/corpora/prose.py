"""Readers of written prose (fiction, news, sentences of the web): a fetched package -> documents, in source
order. A reader's docstring says what cleaning it does.
"""
from __future__ import annotations

import html
import json
import os
import re

from .clean import CODE_LIKE, blocks, clean, dashes, well_formed
from .rdata import LazyDB
from .tsv import CLITICS

FORTUNE_FILES = ("people", "men-women", "work", "politics", "science", "wisdom", "law", "love", "pets", "kids",
                 "food", "education", "medicine", "miscellaneous", "humorists", "news", "platitudes", "sports",
                 "drugs", "magic", "paradoxum", "pratchett", "startrek", "goedel", "cookie")  # no code, verse, art
FORTUNE_BLOCK = 20  # fortunes per pseudo-document
NLP_BLOCK = 20  # nlp-corpus sentences per pseudo-document
AUSTEN_DB = os.path.join("usr", "lib", "R", "site-library", "janeaustenr", "data", "Rdata.rdx")
AUSTEN_NOVELS = ("sensesensibility", "prideprejudice", "mansfieldpark", "emma", "northangerabbey", "persuasion")
CLOSING = set(".,;:?!)]}")


def read_fortunes(root: str) -> list:
    """Debian fortunes, the prose files FORTUNE_FILES: attribution lines (-- Name) dropped; fortunes with
    code-like characters, verse (3+ lines averaging under 45 characters), under 5 words, not starting upper-case
    or not ending in . ? ! dropped; duplicates dropped; blocks of FORTUNE_BLOCK fortunes."""
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
            if (re.search(CODE_LIKE + r"|\t", text) or len(text.split()) < 5 or not text[:1].isupper()
                    or text[-1] not in ".?!\"" or text in seen):
                continue
            seen.add(text)
            kept.append(text)
    return blocks(kept, FORTUNE_BLOCK)


def read_nlpcorpus(package) -> list:
    """nlp-corpus: single sentences from many sources, already shuffled (builds/doc-0.json, doc-1.json, ... in
    number order); glued ``--`` dashes spaced; kept when ``clean.well_formed`` after clean (3+ words, starts
    upper-case, ends in . ? !, no URL, code or emoji); duplicates dropped; blocks of NLP_BLOCK sentences as pseudo-documents. Its README asks
    not to republish the texts: the registry marks the source train-only."""
    names = [n for n in package.namelist() if re.search(r"(?:^|/)builds/doc-\d+\.json$", n)]
    seen, kept = set(), []
    for name in sorted(names, key=lambda n: int(re.search(r"(\d+)\.json$", n).group(1))):
        for sentence in json.loads(package.read(name).decode("utf-8")):
            text = clean(dashes(" ".join(html.unescape(str(sentence)).split())))
            if well_formed(text) and text not in seen:
                seen.add(text)
                kept.append(text)
    return blocks(kept, NLP_BLOCK)


def detokenise(tokens: list) -> str:
    """Tokens (tags already stripped) -> text: `` and '' become " attached to the next / previous word, a lone
    ' alternately opens and closes, marks and clitics (n't 's 'll ...) attach to the previous word, opening
    brackets to the next one; -- stays a free-standing dash (dropped before a closing mark); a . ; ? ! after the
    same mark is dropped (Brown doubles them: ``Jr. .``, ``? ?``)."""
    words, pending, single_open = [], "", False
    for token in tokens:
        attach = None
        if token == "``":
            pending += '"'
        elif token == "''":
            attach = '"'
        elif token == "'":
            attach, pending = (token, pending) if single_open else (None, pending + token)
            single_open = not single_open
        elif token.lower() in CLITICS or (token and all(ch in CLOSING for ch in token)):
            attach = token
        elif token in ("(", "[", "{"):
            pending += token
        else:
            words.append(pending + token)
            pending = ""
        if attach is not None and words and set(words[-1]) == {"-"}:
            words.pop()  # a dash right before a closing mark: the mark alone
        if attach is not None and words and not (attach in ".;?!" and words[-1].endswith(attach)):
            words[-1] += attach
    return " ".join(words)


def read_brown(package) -> list:
    """The Brown corpus (NLTK's word/tag files ca01 .. cr09): one document per file, in file order. Tags stripped
    and tokens detokenised (``detokenise``); paragraphs (blank-line separated) through clean (headlines in
    upper case and (...) spans go); paragraphs with formula placeholders (``**zg``, ``f{t}``) or other code-like
    characters dropped."""
    docs = []
    for name in sorted(n for n in package.namelist() if re.search(r"(?:^|/)c[a-r]\d\d$", n)):
        paragraphs = re.split(r"\n\s*\n", package.read(name).decode("utf-8"))
        text = [clean(detokenise([t.rsplit("/", 1)[0] for t in p.split()])) for p in paragraphs]
        text = [t for t in text if t and not re.search(CODE_LIKE, t)]
        if text:
            docs.append(" ".join(text))
    return docs


def read_austen(root: str) -> list:
    """Jane Austen's six novels from the R package janeaustenr (its lazy-load database read by ``rdata``, no R):
    one document per novel, in publication order. Line-wrapped lines joined into paragraphs (blank-line
    separated); chapter and volume headings, titles and other paragraphs not ending in . ? ! : " ' dropped;
    _emphasis_ underscores and footnote stars removed, footnotes and [editorial notes] dropped; glued ``--``
    dashes spaced (a comma); then clean."""
    db = LazyDB(os.path.join(root, AUSTEN_DB))
    docs = []
    for novel in AUSTEN_NOVELS:
        paragraphs, current = [], []
        for line in list(db.get(novel)) + [""]:
            if line and line.strip():
                current.append(line.strip())
            elif current:
                paragraphs.append(" ".join(current))
                current = []
        kept = []
        for paragraph in paragraphs:
            if re.match(r"(?i)(?:chapter|volume)\b|\*", paragraph):
                continue
            paragraph = re.sub(r"\[[^\]]*(?:\]|$)", " ", paragraph).replace("_", "").replace("*", "")
            paragraph = clean(dashes(paragraph))
            if paragraph and paragraph[-1] in ".?!:\"'":
                kept.append(paragraph)
        docs.append(" ".join(kept))
    return docs
