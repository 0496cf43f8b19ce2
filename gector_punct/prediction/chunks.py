"""A text restored in pieces: where it is cut, and how the restored pieces are written.

``word_chunks(items, chunk_words, text)`` groups consecutive items (lines, or anything ``text`` turns into a
line) into chunks: a chunk closes as soon as its words (``units.split_units``) reach ``chunk_words``; the
last chunk holds what is left. Every item is in exactly one chunk, in order, and no chunk is empty (an empty
input gives no chunk). ``predict.py`` restores a file one chunk per ``Punctuator.predict`` call, and so do
``utils/predict_ray.py``'s actors: ``predict`` forms its batches inside a chunk, so a chunk's output depends
on that chunk alone, and the chunks restored anywhere, in any order, concatenate to the same bytes.

``write_lines(out, restored, sentences, endings)`` writes restored lines, each ended by ``\\n`` (an empty one
too), or by ``\\r\\n`` where its input line's ending (``endings``, from ``files.read_ended_lines``) was CRLF;
with ``sentences``, each line's sentences (``sentences.split_sentences``) one per line, each ended as its
line; returns the lines written. Importing this module does not import torch.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from gector_punct.text.files import line_end
from gector_punct.text.sentences import split_sentences
from gector_punct.text.units import split_units

Item = TypeVar("Item")
DEFAULT_CHUNK_WORDS = 20000  # predict.py's --chunk_words: its memory bound, and the unit its output is cut in


def word_chunks(items: Iterable[Item], chunk_words: int,
                text: Callable[[Item], str] = str) -> Iterator[tuple[list[Item], int]]:
    """(chunk, its word count) for consecutive items, each chunk closed once it holds ``chunk_words`` words."""
    chunk, words = [], 0
    for item in items:
        chunk.append(item)
        words += len(split_units(text(item)))
        if words >= chunk_words:
            yield chunk, words
            chunk, words = [], 0
    if chunk:
        yield chunk, words


def write_lines(out, restored: Iterable[str], sentences: bool = False, endings: Iterable[str] | None = None) -> int:
    restored = list(restored)
    count = 0
    for line, ending in zip(restored, ["\n"] * len(restored) if endings is None else endings, strict=True):
        parts = split_sentences(line) if sentences else [line]
        for part in parts or [""]:
            out.write(part + line_end(ending))
            count += 1
    out.flush()
    return count
