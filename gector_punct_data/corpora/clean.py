"""The text cleaning shared by the sources of the training-data builder, and the cut into lines.

``clean(text)``: transcript text -> speech only (the rules are ``RULES``, written into the data card).
``words_of(text)``: text -> words, each mark attached to a word. ``cut_lines(words, rng, lo, hi, whole)``: a
word stream cut into lines of random length at arbitrary points, or at sentence ends (``line_spans``). ``blocks(items, n)``: n consecutive items per
pseudo-document. ``fix_mojibake``, ``dashes``, ``interruptions``, ``well_formed``: helpers of single readers.
``label_colons(words)``: which words carry a label's colon; ``without_labelled_sentences(words)``: a word
stream without the sentences that have one (training text only: speech has no labels).
"""
from __future__ import annotations

import html
import random
import re
import unicodedata

from gector_punct.text.sentences import ends_sentence
from gector_punct.text.units import OPENING, narrow_marks, split_edges

RULES = [
    "missing space after . ? ! (or a closing quote after them) before a capitalised word restored; "
    "runs of 4+ dots to ...; leading marks of a line dropped",
    "HTML entities unescaped; curly quotes to straight; NBSP and other odd spaces to a space; \u2026 to ...",
    "speaker labels removed (upper-case name + colon at a line start, or glued after . ? !)",
    "lines of AUDIENCE MEMBER(S) removed; lines mostly in upper case removed",
    "every (...) span removed (stage directions, (sic), (ph), (inaudible)); [crosstalk]-like notes removed, "
    "other [editorial words] kept without brackets",
    "em/en dashes and stand-alone - or -- become a comma on the previous word (none if it already ends in a mark)",
    "' & ' becomes ' and '; stand-alone marks attach to the previous word (opening marks to the next)",
]
LABEL_REACH = 2  # a colon after a sentence's first or second word (or a colon's) is a label's
CHARMAP = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u00a0": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ", "\u2007": " ",
                         "\u200b": "", "\ufeff": "", "\u2026": "...", "\u266a": " ", "\u266b": " ", "\u2013": " \u2014 ",
                         "\u2014": " \u2014 ", "\t": " ", "\r": "\n"})
LABEL = re.compile(r"^\s*(?:n?[A-Z][A-Z0-9 .,'\-]*|(?:Wo)?[Mm]an(?: ?# ?\d+)?|Narrator|Voice|Audience(?: [Mm]embers?)?)\s*:\s*")
GLUED_LABEL = re.compile(r"(?<=[.?!])\s*[A-Z][A-Z.'\-]+(?: [A-Z][A-Z.'\-]+)*:\s")
STAGE = re.compile(r"\([A-Za-z, ]*(?:applause|cheers|laughter|boos)\b[.,]?\)?|\b(?:applause|cheers|laughter)\.?\)", re.I)
NOTE = re.compile(r"\[\s*(?:crosstalk|inaudible|applause|laughter|unintelligible|cross-talk)[^\]]*\]", re.I)
CODE_LIKE = r"[`{}<>=_|\\#@*~^\[\]]|https?:"  # characters of code, markup and addresses, not of speech
DASH = "\u2014"


def mostly_upper(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return not letters or sum(c.isupper() for c in letters) > 0.5 * len(letters)


def clean(text: str) -> str:
    """Transcript text -> speech only: no labels, stage directions, audience lines or odd characters."""
    text = html.unescape(text).translate(CHARMAP)
    text = re.sub(r"\([^()]*\)", " ", text)
    text = re.sub(r"(?<=[\w'][^\W_][.?!])(\"?)(?=[A-Z](?:[a-z']|\s))", r"\1 ", text)  # deported."I -> deported." I
    text = STAGE.sub(" ", text)
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


def line_spans(ends: list[bool], rng: random.Random, min_words: int, max_words: int,
               whole: float = 0.0) -> list[tuple[int, int]]:
    """Spans ``[start, end)`` that cut a stream of ``len(ends)`` words into lines of min_words..max_words
    words (the last one shorter); ``ends[k]``: word k ends a sentence. A line is cut at an arbitrary point,
    or, with probability ``whole``, at the sentence end nearest its drawn length (within max_words): then
    the next line starts a sentence, and a line that starts and ends at sentence boundaries is a whole
    utterance, as a recogniser's segment can be. ``whole=0`` draws exactly what it always drew."""
    spans, i = [], 0
    while i < len(ends):
        end = min(i + rng.randint(min_words, max_words), len(ends))
        if whole and rng.random() < whole:
            stops = [k + 1 for k in range(i, min(i + max_words, len(ends))) if ends[k]]
            end = min(stops, key=lambda stop: (abs(stop - end), stop)) if stops else end
        spans.append((i, end))
        i = end
    return spans


def cut_lines(words: list, rng: random.Random, min_words: int, max_words: int, whole: float = 0.0) -> list:
    """One document's words as lines (``line_spans``): cut anywhere, or with probability ``whole`` at a
    sentence end."""
    ends = [ends_sentence(split_edges(w)[2]) for w in words] if whole else [False] * len(words)
    return [" ".join(words[a:b]) for a, b in line_spans(ends, rng, min_words, max_words, whole)]


def whole_lines(lines: list) -> int:
    """How many of a document's consecutive lines are whole utterances (start and end at a sentence
    boundary; the first line starts the document)."""
    count, starts = 0, True
    for line in lines:
        words = line.split()
        ends = bool(words) and ends_sentence(split_edges(words[-1])[2])
        count += starts and ends
        starts = ends
    return count


def blocks(items: list, n: int) -> list:
    """n consecutive items (segments, utterances, sentences) joined per pseudo-document."""
    return [" ".join(items[i: i + n]) for i in range(0, len(items), n)]


def fix_mojibake(text: str, codec: str = "cp1252") -> str:
    """UTF-8 bytes once decoded as ``codec`` and written again (``Ã©`` for é under cp1252, ``ֳ©`` under cp1255)
    -> the intended characters. A run of non-ASCII characters is mended only when it re-encodes to valid UTF-8,
    so correct text passes unchanged."""
    def mend(match):
        try:
            return match.group().encode(codec).decode("utf-8")
        except UnicodeError:
            return match.group()
    return re.sub(r"[^\x00-\x7f]+", mend, text)


def dashes(text: str) -> str:
    """A dash of two or more hyphens glued to its words (``thing--and``) stands alone (``thing -- and``), so that
    words_of makes it a comma."""
    return re.sub(r"\s*--+\s*", " -- ", text)


def interruptions(text: str) -> str:
    """Script dashes of a broken-off word (``I can't-``, ``Oscar---``): ``...`` at the end of the text, a dash
    (later a comma) inside it."""
    text = re.sub(r"(?<=\w)-+\s*$", "...", text.strip())
    return re.sub(r"(?<=\w)-+(?=\s)", f" {DASH}", text)


def well_formed(text: str, min_words: int = 3) -> bool:
    """A typed message or sentence that reads as edited text: at least min_words words, starts upper-case, ends
    in . ? ! (or a closing quote), no code, markup, address, symbol (emoji) or control characters, not mostly
    upper case."""
    return (len(text.split()) >= min_words and text[:1].isupper() and text[-1] in ".?!\""
            and not re.search(CODE_LIKE, text) and not mostly_upper(text)
            and not any(unicodedata.category(c) in ("So", "Sk", "Co", "Cn", "Cs", "Cc") for c in text))


def label_colons(words: list[str]) -> list[bool]:
    """Per word (marks attached; a Chinese character is one), whether the colon after it is a label's: it
    follows the first or second word of a sentence or of what follows another colon (``Memoria: La
    probabilità``, ``Louisiana: Ein Mann``, ``Bill Gates: un uomo``, ``Mi: chiamo``). A speaker's sentence
    seldom has one; headings, dictionary entries, speaker names and jokes of written text do."""
    out, since = [], 0
    for word in words:
        since += 1
        trail = narrow_marks(split_edges(word)[2])
        out.append(trail.endswith(":") and since <= LABEL_REACH)
        if trail and (trail[-1] == ":" or ends_sentence(trail)):
            since = 0
    return out


def without_labelled_sentences(words: list[str]) -> list[str]:
    """A word stream without its sentences (up to a word that ``ends_sentence``) that have a label's colon
    (``label_colons``); the other sentences as they were, in order."""
    out, sentence, labelled = [], [], False
    for word, label in zip(words, label_colons(words)):
        sentence.append(word)
        labelled = labelled or label
        if ends_sentence(split_edges(word)[2]):
            out.extend([] if labelled else sentence)
            sentence, labelled = [], False
    return out + ([] if labelled else sentence)
