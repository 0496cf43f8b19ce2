"""Subtitle files (SubRip .srt, WebVTT .vtt) in and out: the text of all cues is restored as one stream, so
a sentence may run across cues, and every word goes back to its own cue and line.

``read_subtitles(path, fmt) -> Subtitles``: blocks in file order, read by the format's class
(``formats.SubtitleFormat.read``). A cue keeps its index or identifier and its timing line verbatim, and its
text lines as tokens; other blocks (the WEBVTT header, NOTE, STYLE, REGION) pass through untouched. Markup
stays attached to its word and is not read as text (``<i>``, ``</i>``, ``<v Speaker>``, ``<00:00:01.000>``,
``{\\an8}``), and an entity (``&amp;``) is written back as it was, never escaped again. A cue without a valid
timing line, or an empty file, raises ``InputError`` naming the file and line. ``restore_subtitles(punctuator,
subtitles)`` restores the words in place (under ``--numbers digits`` a number's words in one line become one);
``format_subtitles(subtitles)`` gives the file's text through the same format class as cues built from words
(blocks separated by one empty line, tokens of a line by one space). ``subtitle_format_of(path)``: the format
a file's first lines show (a WEBVTT header, a cue's timing line), for a file given as plain text.
"""
from __future__ import annotations

from gector_punct.text.numbers.spans import line_number_spans, merged_words
from gector_punct.transcripts.formats import MARKUP, SUBTITLE_FORMATS, Block, Subtitles
from gector_punct.transcripts.formats import subtitle_format_of  # noqa: F401 (the subtitle side's, read from here)


def read_subtitles(path: str, fmt: str) -> Subtitles:
    if fmt not in SUBTITLE_FORMATS:
        raise ValueError(f"unknown subtitle format {fmt!r} (one of {', '.join(SUBTITLE_FORMATS)})")
    return SUBTITLE_FORMATS[fmt].read(path)


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
    return SUBTITLE_FORMATS[subtitles.fmt].write(subtitles)
