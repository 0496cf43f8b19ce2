"""Word-timed transcripts written back in their shape and layout (``timed_words``' reading undone), in bounded
memory: ``TimedJsonWriter(out, shape, layout)`` (its source's: ``timed_words.TranscriptSource``), then
``write(segment, words, text)`` per ``Segment`` read, in order, then ``close(top)``.

``write`` takes a segment's new word objects (each word's restored ``word`` and its ``confidence``) and, with
its last part, its rebuilt ``text`` (put where the segment had one; a Vosk result always has one). The parts
of a long segment (``Segment.more``) make one segment object: their words wait in a temporary file until the
last part brings the text. A run of segments without words (``Segment.silent``) is written as it was read.
The segment's fields come first as they were read, its words last. ``close(top)`` ends the document with the
top-level fields ``read_segments`` gathered, in their order after the segments; those it rebuilds from what was
written: ``word_segments`` (WhisperX's words again) from the words, ``text`` (openai-whisper's whole
transcript) from the segments' texts joined as Whisper joins them (each carries its own leading space), both
spooled to temporary files as they are written. No byte-order mark is written (JSON has none).
"""
from __future__ import annotations

import functools
import json
import shutil
import tempfile

from gector_punct.transcripts.timed_words import DUMPS, WORDS, Segment

OPENING = {"list": "[", "document": '{"segments": ['}  # what comes before the first segment, by layout
_spool = functools.partial(tempfile.TemporaryFile, "w+", encoding="utf-8")  # text waiting for its place


class TimedJsonWriter:
    """Segments written back in their shape as they come (module docstring)."""

    def __init__(self, out, shape: str, layout: str):
        self.out, self.shape, self.key, self.layout = out, shape, WORDS[shape], layout
        self.count = 0  # segments written
        self.parts = None  # a long segment's words so far, in a temporary file; whether it holds any
        self.spooled = False
        self.repeat = self.texts = None  # a document's words and texts, for its fields after the segments
        if self.layout == "document":
            self.repeat, self.texts = _spool(), _spool()
        self.repeated = False
        out.write(OPENING.get(self.layout, ""))

    def write(self, segment: Segment, words: list[dict], text: str | None) -> None:
        """One segment (or part: ``text`` then unused), its words replaced by ``words`` (objects), its ``text``
        by ``text`` where it had one."""
        if segment.silent is not None:
            for item in segment.silent.lines():
                self._item(item)
                self._text(json.loads(item).get("text"))
            return
        dumped = [DUMPS(word) for word in words]
        if self.repeat is not None and dumped:
            self.repeat.write(("," if self.repeated else "") + "\n" + ",\n".join(dumped))
            self.repeated = True
        if segment.more:
            self.parts = self.parts or _spool()
            if dumped:
                self.parts.write((", " if self.spooled else "") + ", ".join(dumped))
                self.spooled = True
            return
        fields = dict(segment.fields)
        if "text" in fields or self.shape == "vosk":
            fields["text"] = text
        self._text(text)
        head = DUMPS({**fields, self.key: []})[:-2]  # up to its words' "["
        self._begin()
        self.out.write(head)
        if self.spooled:
            self._copy(self.parts)
            self.parts.seek(0)
            self.parts.truncate()
            self.out.write(", " if dumped else "")
            self.spooled = False
        self.out.write(", ".join(dumped) + "]}")
        self._end()

    def _item(self, item: str) -> None:
        self._begin()
        self.out.write(item)
        self._end()

    def _begin(self) -> None:
        if self.layout != "values":
            self.out.write(("," if self.count else "") + "\n")

    def _end(self) -> None:
        self.count += 1
        if self.layout == "values":
            self.out.write("\n")  # one result per line

    def _text(self, text) -> None:
        """A segment's text kept for the document's ``text`` (escaped: JSON escapes character by character)."""
        if self.texts is not None and isinstance(text, str):
            self.texts.write(DUMPS(text)[1:-1])

    def _copy(self, spool) -> None:
        spool.seek(0)
        shutil.copyfileobj(spool, self.out)

    def close(self, top: dict) -> None:
        """The end of the document: its top-level fields (``top``, ``read_segments``') after its segments."""
        if self.layout == "list":
            self.out.write("\n]\n")
        elif self.layout == "document":
            self.out.write("\n]")
            for key, value in top.items():
                if key == "segments":
                    continue
                self.out.write(f", {DUMPS(key)}: ")
                if key == "word_segments":
                    self.out.write("[")
                    self._copy(self.repeat)
                    self.out.write("\n]")
                elif key == "text" and value is None:
                    self.out.write('"')
                    self._copy(self.texts)
                    self.out.write('"')
                else:
                    self.out.write(DUMPS(value))
            self.out.write("}\n")
        for spool in (self.repeat, self.texts, self.parts):
            if spool is not None:
                spool.close()
