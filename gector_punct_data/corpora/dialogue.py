"""Readers of dialogue (TV scripts, subtitles, typed chat): a fetched package -> documents, in source order.

A reader's docstring says what cleaning it does; speaker names never reach the text.
"""
from __future__ import annotations

import csv
import html
import io
import json
import re

from .clean import CHARMAP, CODE_LIKE, blocks, clean, dashes, fix_mojibake, interruptions, mostly_upper, well_formed

CHAT_BLOCK = 25  # chatterbot utterances (in file order, topic files sorted by name) per pseudo-document
OFFICE_CSV = "data/schrute.csv"
SEINFELD_DIR = "seinfeld_laugh_corpus/the_corpus/"
CHITCHAT_JSON = "chitchat_dataset/dataset.json"
# Typed-chat spellings that a well-formed message does not have: lower-case i, contractions without apostrophe
CHAT_SLOPPY = re.compile(r"\b(?:i|u|ur)\b|\b(?i:im|ive|dont|cant|wont|didnt|doesnt|isnt|wasnt|arent|thats|whats|"
                         r"youre|theyre|lol|omg|haha\w*)\b")


def member(package, suffix: str) -> str:
    """The one file of a package whose path ends in suffix (an sdist has a NAME-VER/ top folder)."""
    found = [n for n in package.namelist() if n == suffix or n.endswith("/" + suffix)]
    if len(found) != 1:
        raise KeyError(f"expected one file */{suffix} in the package, found {len(found)}")
    return found[0]


def chatterbot_utterances(wheel, language: str):
    """The utterances of chatterbot-corpus's ``data/<language>/*.yml`` (files sorted by name), HTML entities
    decoded, in file order."""
    try:
        import yaml
    except ImportError:
        raise RuntimeError("the chatterbot source needs PyYAML (pip install pyyaml), "
                           "or leave it out with --sources") from None
    for name in sorted(n for n in wheel.namelist() if re.search(rf"/data/{language}/[^/]+\.yml$", n)):
        for conversation in yaml.safe_load(wheel.read(name)).get("conversations") or []:
            for utt in conversation:
                yield html.unescape(str(utt))


def read_chatterbot(wheel) -> list:
    """chatterbot-corpus English dialogue: utterances with code-like characters, under 3 words, not starting
    upper-case or not ending in . ? ! dropped; duplicates dropped; blocks of CHAT_BLOCK utterances."""
    seen, kept = set(), []
    for utt in chatterbot_utterances(wheel, "english"):
        utt = " ".join(utt.translate(CHARMAP).split())
        if (re.search(CODE_LIKE + r"|[()]|\n", utt) or len(utt.split()) < 3 or not utt[0].isupper()
                or utt[-1] not in ".?!\"" or mostly_upper(utt) or utt in seen):
            continue
        seen.add(utt)
        kept.append(utt)
    return blocks(kept, CHAT_BLOCK)


def read_office(sdist) -> list:
    """The Office (US) scripts of schrutepy: one document per episode (season, episode order), the ``text``
    column (no [stage directions]; speaker names are a column of their own, never in the text). UTF-8 read as
    cp1252 mended (``donâ€™t``); left-over [...] and (...) notes removed; turns with censored words (``s*x``,
    ``* * *``) or e-mail addresses dropped; a broken-off word (``Wait-``) ends in ... at the end of a turn, else
    a dash (comma), as do glued ``--`` dashes; turns that
    end in no . ? ! (the scrape cut some at a colon) dropped."""
    episodes = {}
    for row in csv.DictReader(io.StringIO(sdist.read(member(sdist, OFFICE_CSV)).decode("utf-8"))):
        text = re.sub(r"\[[^\]]*(?:\]|$)", " ", fix_mojibake(row["text"]))
        if re.search(r"[*@]", text):
            continue
        text = clean(dashes(interruptions(text)))
        if text and text[-1] in ".?!\"'":
            episodes.setdefault((int(row["season"]), int(row["episode"])), []).append(text)
    return [" ".join(turns) for _, turns in sorted(episodes.items())]


def fix_ocr(text: str) -> str:
    """The l/I confusions of subtitle OCR: a lone ``l`` -> ``I``, ``l'm`` -> ``I'm``, ``lV`` -> ``IV``, ``lBM``
    -> ``IBM``, and the words ``lt lf ln ls`` -> ``It If In Is``."""
    text = re.sub(r"(?<![\w'])l(?=['\u2019]\w|[A-Z]|(?![\w'-]))", "I", text)
    return re.sub(r"(?<![\w'])l([tfns])(?![\w'])", r"I\1", text)


def decode_subtitles(raw: bytes) -> str:
    """A subtitle file's bytes -> text: UTF-8 (cp1252 where a file is not UTF-8), with two mojibakes of Hebrew
    Windows mended: UTF-8 read as cp1255 (``Consommֳ©``, ``ג™×`` = ♪) and cp1252 read as cp1255 (a Hebrew letter
    next to a Latin one: ``cafי`` = café)."""
    try:
        text = fix_mojibake(raw.decode("utf-8"), "cp1255")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")
    return re.sub(r"(?<=[A-Za-z])[\u05d0-\u05ea]|[\u05d0-\u05ea](?=[A-Za-z])",
                  lambda m: m.group().encode("cp1255").decode("cp1252"), text)


def read_seinfeld(sdist) -> list:
    """Seinfeld subtitles merged with speakers and laughs (the_corpus/*.merged): one document per episode, in
    season/episode order. Speaker lines (# NAME), time stamps and **LOL** marks dropped; the lines of one cue
    (a subtitle's line-wraps) and the cues joined with spaces; mojibake mended (``decode_subtitles``); broken-off
    words and dashes as in read_office; OCR l/I confusions fixed (``fix_ocr``); [SOUND NOTES] removed; cues with
    censored words (``f**k``) dropped."""
    docs = []
    for name in sorted(n for n in sdist.namelist() if SEINFELD_DIR in n and n.endswith(".merged")):
        cues, cue = [], []
        for line in decode_subtitles(sdist.read(name)).split("\n") + [""]:
            line = line.strip()
            if line and not re.fullmatch(r"\d+\.\d+|\*\*LOL\*\*|# .*", line):
                cue.append(line)
            elif cue:
                cues.append(" ".join(cue))
                cue = []
        kept = []
        for cue in cues:
            cue = re.sub(r"\[[^\]]*(?:\]|$)", " ", cue)
            if re.search(r"\*", cue):
                continue
            cue = clean(fix_ocr(dashes(interruptions(cue))))
            if cue:
                kept.append(cue)
        if kept:
            docs.append(" ".join(kept))
    return docs


def read_chitchat(wheel) -> list:
    """BYU chit-chat conversations (typed chat): one document per conversation (file order), its messages in
    order; only well-formed messages kept (``clean.well_formed``: 3+ words, starts upper-case, ends in . ? !, no
    URL, code or emoji) that have none of the typed-chat spellings of CHAT_SLOPPY (``i``, ``im``, ``dont``, ``u``,
    ``lol``); then clean; repeated ! or ? squashed to one, glued ``--`` dashes spaced; conversations with no
    such message dropped."""
    docs = []
    for conversation in json.loads(wheel.read(CHITCHAT_JSON).decode("utf-8")).values():
        kept = []
        for turn in conversation.get("messages") or []:
            for message in turn:
                text = clean(re.sub(r"([!?])\1+", r"\1", dashes(html.unescape(str(message.get("text", ""))))))
                if well_formed(text) and not CHAT_SLOPPY.search(text):
                    kept.append(text)
        if kept:
            docs.append(" ".join(kept))
    return docs
