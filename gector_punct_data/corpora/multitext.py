"""Text helpers of the multilingual readers (gector_punct_data/corpora/languages.py): Chinese normalisation, a
function-word language check, the Debian handbook's HTML and Word's document.xml as paragraphs.

``normalise_zh(text)``: Chinese text -> one line in written form (no spaces between Chinese characters,
full-width marks). ``widen(unit)``: one tagging unit with its ASCII marks made full-width. ``cjk_share(text)``.
``in_language(text, lang)``: whether a paragraph is in lang (fr de es it) rather than untranslated English.
``handbook_paragraphs(html)``: an XHTML page -> its prose paragraphs, code replaced by ``CODE``.
``keep_sentences(paragraph, zh)``: the sentences of a paragraph without code, addresses or paths.
``docx_paragraphs(data)``: a .docx file's bytes -> (style, text) per paragraph, in order.
``mend_italian(text)``: the ASCII accents of old Italian text (``e'`` ``piu'``) -> è, più.
``edited_zh(text)``: whether Chinese text reads as edited (ends in a mark of ``ZH_END`` ...); ``zh_blocks``.
"""
from __future__ import annotations

import html
import io
import re
import zipfile
from html.parser import HTMLParser
from xml.etree import ElementTree

from gector_punct.text.units import TO_WIDE
from .clean import CODE_LIKE

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WIDE_MARK = r"\u3000-\u303f\uff00-\uffef\u2018-\u201f\u2026\u2014\u00b7"  # CJK and full-width marks, curly quotes
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\x1b")
FULL_WIDTH = TO_WIDE  # units.py: the one table of full-width marks
ODD = "[\u2122\u00ae\u00a9\u200b-\u200d\u2060\ufeff]"  # ™ ® © and zero-width characters: removed
CODE = "\x00"  # stands for dropped code in a paragraph: its sentence is dropped
ZH_END = "。？！…”」』"  # marks that end a Chinese sentence or paragraph
STOPWORDS = {
    "en": "the and of to is that this with for are be it can which on as by you not from have or an will this "
          "these they their was were has when but if all also",
    "de": "der die das und ist nicht mit sich von zu den ein eine auf für werden wird auch es sie dass dem des "
          "im ihre sind oder kann können bei wenn wie nur noch einen einem aus über",
    "fr": "le la les et des est une un du dans que qui pour pas sur au ce il sont avec être peut aux ou cette "
          "ces plus leur se ne nous vous elle mais",
    "es": "el la los las y de que en es un una por para con no se del al su lo como más pero sus este esta "
          "puede son también si",
    "it": "il la le e di che è un una per non con del della si sono da gli al dei delle nel alla questo "
          "anche può più essere come",
}
STOP = {lang: set(words.split()) for lang, words in STOPWORDS.items()}


def cjk_share(text: str) -> float:
    """The share of Chinese characters among the letters of text (0 when it has none)."""
    letters = [c for c in text if c.isalpha()]
    return sum(bool(re.match(f"[{CJK}]", c)) for c in letters) / len(letters) if letters else 0.0


def normalise_zh(text: str) -> str:
    """Chinese text -> one line: HTML entities, ANSI colour codes, (...) and （...） spans (as clean.clean
    does), manual-section numbers ``(1)``, ™ ® and zero-width characters removed; spaces next to a Chinese
    character or a full-width mark removed (written Chinese has none); ASCII , ? ! ; : after a Chinese
    character made full-width, and a . there made 。 (not inside a number); runs of 。 squashed."""
    text = ANSI.sub("", html.unescape(text)).replace("\u3000", " ")
    text = re.sub(r"[(（][^()（）]*[)）]|" + ODD, "", text)
    text = " ".join(text.split())
    text = re.sub(f"(?<=[{CJK}{WIDE_MARK}]) (?=\\S)|(?<=\\S) (?=[{CJK}{WIDE_MARK}])", "", text)
    text = re.sub(f"(?<=[{CJK}])[,?!;:]+|(?<=[{CJK}])\\.(?!\\d)",
                  lambda m: m.group().translate(FULL_WIDTH), text)
    return re.sub(r"。{2,}", "。", text)



def zh_blocks(items: list, n: int) -> list:
    """n consecutive Chinese items per pseudo-document, joined without spaces."""
    return ["".join(items[i: i + n]) for i in range(0, len(items), n)]


def edited_zh(text: str, min_chars: int = 4) -> bool:
    """Chinese that reads as edited text: min_chars Chinese characters, mostly Chinese (cjk_share >= 0.5),
    ends in a mark of ZH_END, no code-like characters."""
    return (len(re.findall(f"[{CJK}]", text)) >= min_chars and cjk_share(text) >= 0.5
            and text[-1:] in tuple(ZH_END) and not re.search(CODE_LIKE, text))


def widen(unit: str) -> str:
    """A unit whose last letter is a Chinese character with its trailing ASCII marks made full-width
    (the comma that clean.words_of writes for a dash)."""
    core = unit.rstrip(",.?!;:")
    if core != unit and re.search(f"[{CJK}]$", core):
        return core + unit[len(core):].translate(FULL_WIDTH)
    return unit


def in_language(text: str, lang: str) -> bool:
    """Whether a paragraph is written in lang and not English: at least two of lang's function words, and
    more than twice as many as English ones (words both lists share do not count)."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    own, english = STOP[lang] - STOP["en"], STOP["en"] - STOP[lang]
    n_own, n_en = sum(w in own for w in words), sum(w in english for w in words)
    return n_own >= 2 and n_own > 2 * n_en


class _Paragraphs(HTMLParser):
    """The div.para texts of a handbook page; pre blocks, screens and code that is not one plain word become
    CODE. A para inside a para ends the outer one's text so far."""
    SKIP = frozenset({"pre", "script", "style"})
    CODE_TAGS = frozenset({"code", "kbd", "samp"})

    def __init__(self, keep_no_break: bool = False):
        super().__init__(convert_charrefs=True)
        self.keep_no_break = keep_no_break
        self.paragraphs, self.stack, self.open = [], [], []  # stack: (tag, kind); open: para text buffers
        self.code = None  # text of the code element being read

    def _flush(self):
        if self.open and "".join(self.open[-1]).strip():
            self.paragraphs.append(squeeze("".join(self.open[-1]), self.keep_no_break))
        if self.open:
            self.open[-1] = []

    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        kind = ("para" if tag == "div" and "para" in cls else "skip" if tag in self.SKIP
                else "code" if tag in self.CODE_TAGS or "userinput" in cls or "replaceable" in cls else "")
        if kind == "para":
            self._flush()
            self.open.append([])
        elif kind == "code" and self.code is None:
            self.code = []
        elif kind == "skip" and self.open:
            self.open[-1].append(" " + CODE + " ")
        self.stack.append((tag, kind))

    def handle_endtag(self, tag):
        while self.stack:
            top, kind = self.stack.pop()
            if kind == "para":
                self._flush()
                self.open.pop()
            elif kind == "code" and self.code is not None and not any(k == "code" for _, k in self.stack):
                word = "".join(self.code).strip()
                if self.open:
                    self.open[-1].append(word if re.fullmatch(r"[^\W\d_][\w-]*", word) else CODE)
                self.code = None
            if top == tag:
                break

    def handle_data(self, data):
        if any(k == "skip" for _, k in self.stack):
            return
        if self.code is not None:
            self.code.append(data)
        elif self.open:
            self.open[-1].append(data)


def squeeze(text: str, keep_no_break: bool = False) -> str:
    """Runs of white space as one space, the text's ends stripped; ``keep_no_break``: a no-break space (U+00A0,
    U+202F) stays as it is (``utils/report/french_spacing.py`` counts them)."""
    return re.sub(r"[^\S\u00a0\u202f]+", " ", text).strip(" ") if keep_no_break else " ".join(text.split())


def handbook_paragraphs(page: str, keep_no_break: bool = False) -> list:
    """An XHTML page of the Debian handbook -> the texts of its div.para elements (lists, sidebars and
    tables included), in page order; headings, navigation, pre blocks are not paragraphs; inline code that is
    not a plain word (``apt``, ``apt-get`` stay; ``/etc/apt``, ``apt update`` go) becomes CODE."""
    parser = _Paragraphs(keep_no_break)
    parser.feed(page)
    parser.close()
    return parser.paragraphs


def keep_sentences(paragraph: str, zh: bool = False) -> str:
    """The sentences of a paragraph (split after . ? ! before a capital, or after 。？！) without CODE, URLs,
    paths, options (--foo) or code-like characters, joined again."""
    if zh:
        sentences = re.split(r"(?<=[。？！])", paragraph)
    else:
        sentences = re.split(r"(?<=[.?!…])\s+(?=[\"«¿¡(]?[A-ZÀ-ÖØ-Þ])", paragraph)
    bad = re.compile(CODE_LIKE + r"|" + CODE + r"|www\.|\w/\w|(?:^|\s)/\w|(?:^|\s)--?\w|\w\.\w+\.\w|\$")
    return ("" if zh else " ").join(s.strip() for s in sentences if s.strip() and not bad.search(s))


W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def docx_paragraphs(data: bytes, keep_no_break: bool = False) -> list:
    """A .docx file's bytes -> [(style or None, text)], one per w:p of word/document.xml in order; runs
    joined, tabs and line breaks as spaces; deleted (tracked) text left out."""
    root = ElementTree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    paragraphs = []
    for p in root.iter(W + "p"):
        style = p.find(f"{W}pPr/{W}pStyle")
        parts = [(e.text or "") if e.tag == W + "t" else " " for e in p.iter() if e.tag in (W + "t", W + "tab",
                                                                                              W + "br", W + "cr")]
        text = squeeze("".join(parts), keep_no_break)
        paragraphs.append((style.get(W + "val") if style is not None else None, text))
    return paragraphs


def mend_italian(text: str) -> str:
    """Old ASCII Italian: a word-final vowel + apostrophe (``e'`` ``piu'`` ``perche'``) -> the accented vowel
    (è, più, perché), after an elision too (``c'e'`` ``dov'e'`` ``l'eta'`` -> c'è, dov'è, l'età); ``po'``
    ``mo'`` ``de'`` ``be'`` stay (true elisions); ``E'`` -> È; a word in single quotes (``'casa'``) stays."""
    def mend(match):
        word = match.group(1)
        if word.lower() in ("po", "mo", "de", "be", "to", "va", "fa", "sta", "da", "di"):
            return match.group()
        if re.search(r"(?:ch|n|s)e$", word) and word.lower() not in ("e",):
            return word[:-1] + "é"
        return word[:-1] + "àèìòùÀÈÌÒÙ"["aeiouAEIOU".index(word[-1])]
    return re.sub(r"(?:(?<=\w')|(?<![\w']))(\w*[aeiouAEIOU])'(?!\w)", mend, text)


def balanced(text: str) -> bool:
    """Whether every closing quote or bracket of text (」』”）》) has its opening one before it, and all close."""
    depth = {}
    for ch in text:
        for pair in ("「」", "『』", "“”", "（）", "《》", "()"):
            if ch in pair:
                depth[pair] = depth.get(pair, 0) + (1 if ch == pair[0] else -1)
                if depth[pair] < 0:
                    return False
    return not any(depth.values())
