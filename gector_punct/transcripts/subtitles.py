"""Subtitle files (SubRip .srt, WebVTT .vtt) in and out: the text of all cues is restored as one stream, so
a sentence may run across cues, and every word goes back to its own cue and line.

``read_subtitles(path, fmt) -> Subtitles``: blocks in file order. A cue keeps its index or identifier and its
timing line verbatim, and its text lines as tokens; other blocks (the WEBVTT header, NOTE, STYLE, REGION)
pass through untouched. Markup stays attached to its word and is not read as text (``<i>``, ``</i>``,
``<v Speaker>``, ``<00:00:01.000>``, ``{\\an8}``). A cue without a valid timing line, or an empty file,
raises ``InputError`` naming the file and line. ``restore_subtitles(punctuator, subtitles)`` restores the
words in place (under ``--numbers digits`` a number's words in one line become one);
``format_subtitles(subtitles)`` gives the file's text (blocks separated by one empty line, tokens of a line
by one space). ``subtitle_format_of(path)``: the format a file's first lines show (a
WEBVTT header, a cue's timing line), for a file given as plain text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from gector_punct.text.files import InputError, excerpt, read_lines
from gector_punct.text.numbers.spans import line_number_spans, merged_words

FORMATS = ("srt", "vtt")
_SRT_TIME = re.compile(r"^\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}(\s.*)?$")
_VTT_TIME = re.compile(r"^(\d+:)?\d{2}:\d{2}\.\d{3}\s+-->\s+(\d+:)?\d{2}:\d{2}\.\d{3}(\s.*)?$")
_TOKEN = re.compile(r"(?:<[^>]*>|\{[^}]*\}|[^\s<{])+")
MARKUP = re.compile(r"<[^>]*>|\{[^}]*\}")


@dataclass
class Block:
    head: list[str]  # a cue: index/identifier and timing line; another block: all its lines
    lines: list[list[str]] = field(default_factory=list)  # a cue's text lines, as tokens
    is_cue: bool = True


@dataclass
class Subtitles:
    fmt: str
    blocks: list[Block]


def subtitle_format_of(path: str) -> tuple[str, int] | None:
    """(format, line number) when the first lines of ``path`` are a subtitle file's (the WEBVTT header, or
    a cue's timing line among the first three lines with text), else None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = [(n, line.strip().lstrip("\ufeff")) for n, line in zip(range(1, 21), f)]
    except OSError:
        return None  # the reader names the problem
    texts = [(n, line) for n, line in head if line][:3]
    for n, line in texts:
        if n == texts[0][0] and line.split(" ")[0] == "WEBVTT":
            return "vtt", n
        if _SRT_TIME.match(line) or _VTT_TIME.match(line):
            return ("srt" if "," in line.split("-->")[0] else "vtt"), n
    return None


def _blocks(path: str) -> list[list[tuple[int, str]]]:
    blocks, current = [], []
    for number, line in read_lines(path):
        if line.strip():
            current.append((number, line.rstrip()))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    if not blocks:
        raise InputError(f"{path}: no subtitles (empty file)")
    return blocks


def read_subtitles(path: str, fmt: str) -> Subtitles:
    if fmt not in FORMATS:
        raise ValueError(f"unknown subtitle format {fmt!r} (one of {', '.join(FORMATS)})")
    timing = _SRT_TIME if fmt == "srt" else _VTT_TIME
    out = []
    for k, block in enumerate(_blocks(path)):
        texts = [text for _, text in block]
        if fmt == "vtt" and (k == 0 or texts[0].split(" ", 1)[0] in ("NOTE", "STYLE", "REGION")):
            if k == 0 and not texts[0].startswith("WEBVTT"):
                raise InputError(f"{path}:{block[0][0]}: a WebVTT file starts with 'WEBVTT'")
            out.append(Block(texts, is_cue=False))
            continue
        at = 1 if fmt == "srt" or "-->" not in texts[0] else 0  # SRT: index first; VTT: identifier optional
        if len(texts) <= at or not timing.match(texts[at]):
            number = block[min(at, len(block) - 1)][0]
            raise InputError(f"{path}:{number}: expected a {fmt} timing line ('00:00:01{',' if fmt == 'srt' else '.'}000"
                             f" --> ...'), got {excerpt(texts[min(at, len(texts) - 1)])}")
        out.append(Block(texts[: at + 1], [_TOKEN.findall(text) for text in texts[at + 1:]]))
    return Subtitles(fmt, out)


def _split(token: str) -> tuple[str, str, str]:
    """``<i>Hello,</i>`` -> (``<i>``, ``Hello,``, ``</i>``): markup before and after, the visible text."""
    start, end = 0, len(token)
    while (m := MARKUP.match(token, start)) and m.end() <= end:
        start = m.end()
    while end > start and token[end - 1] in ">}":
        opening = token.rfind("<" if token[end - 1] == ">" else "{", start, end)
        if opening < 0 or not MARKUP.fullmatch(token, opening, end):
            break
        end = opening
    return token[:start], token[start:end], token[end:]


def restore_subtitles(punctuator, subtitles: Subtitles) -> Subtitles:
    """All cues' visible words restored as one stream (``Punctuator.restore_words``), each back in its slot.
    A line whose words would all vanish (marks only, under ``--existing strip``) keeps them."""
    slots, words = [], []
    for b, block in enumerate(subtitles.blocks):
        for li, tokens in enumerate(block.lines):
            for t, token in enumerate(tokens):
                visible = _split(token)[1]
                if visible and not MARKUP.search(visible):
                    slots.append((b, li, t))
                    words.append(visible)
    restored = punctuator.restore_words(words) if words else []
    new = {slot: word for slot, word in zip(slots, restored)}
    blocks = []
    for b, block in enumerate(subtitles.blocks):
        lines = []
        for li, tokens in enumerate(block.lines):
            out = []
            for t, token in enumerate(tokens):
                if (b, li, t) not in new:
                    out.append(token)
                elif new[(b, li, t)] is not None:
                    before, _, after = _split(token)
                    out.append(before + new[(b, li, t)] + after)
            lines.append(_numbered(out, punctuator.numbers) if out else tokens)
        blocks.append(Block(block.head, lines, block.is_cue))
    return Subtitles(subtitles.fmt, blocks)


def _numbered(tokens: list[str], mode: str) -> list[str]:
    """A cue line's tokens with their numbers written (``numbers.spans``), but over markup: a number stays
    within its line, its cue and its markup."""
    spans = [span for span in line_number_spans(tokens, mode)
             if not any(MARKUP.search(token) for token in tokens[span.start: span.end])]
    return merged_words(tokens, spans)


def format_subtitles(subtitles: Subtitles) -> str:
    return "\n\n".join("\n".join(block.head + [" ".join(tokens) for tokens in block.lines])
                       for block in subtitles.blocks) + "\n"
