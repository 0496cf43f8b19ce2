"""Restoring a folder of text files chunk by chunk, the chunks restored anywhere and in any order: the
pieces that ``utils/predict_ray.py`` runs on Ray (this module does not import Ray; each piece is plain Python).

Files: ``input_names(folder)`` lists the regular, non-hidden files directly in the input folder; each
becomes the same-named file of the output folder. An output appears only when its whole file is written
(``files.atomic_write``: a temporary file renamed into place), so an output that exists is a finished file:
``pending_names`` leaves those out, so that a run killed at any point and started again redoes only the
files it had not finished, and removes the temporary files a killed run left for the others.

Formats (``LineFormat``): ``plain``, one text per line, written exactly as ``predict.py`` writes it (the
same chunks, ``chunks.word_chunks``, each restored by one ``Punctuator.predict`` call and written by
``chunks.write_lines``); ``jsonl``, one JSON object per line, whose ``text_field`` is restored into
``output_field`` (added after its fields, or replaced in place when it is there already) while every other
field is kept, in its order; a blank line stays blank (and is restored as an empty text).

Rows (plain dicts, as Ray Data passes them): ``read_chunks({"name": N}, ...)`` reads one file and returns
its chunk rows ``{"name", "chunk", "chunks", "items", "endings", "words", "error"}`` (``items``: the chunk's
input lines; ``endings``: how each ended, so that a CRLF line is written with CRLF as ``predict.py`` writes
it); a file that cannot be read (not UTF-8, not JSON, a record without the text field) gives one row
whose ``error`` names the file and line, and no chunk. ``ChunkRestorer`` (one per actor: the model loads
once, ``loading.load_punctuator``) turns chunk rows into output rows ``{"name", "chunk", "chunks", "output",
"endings", "words", "error"}`` (``output``: the chunk's output lines). ``FileWriter`` takes output rows in any order and writes each file
as soon as all its chunks are in; it counts files, lines and words, and the failed files with their reason.
"""
from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field

from gector_punct.prediction.chunks import word_chunks, write_lines
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.text.files import InputError, atomic_write, error_text, parse_json_object, read_ended_lines

FORMATS = ("plain", "jsonl")


def input_names(folder: str) -> list[str]:
    """The regular files directly in ``folder`` whose names do not start with a dot, sorted."""
    return sorted(name for name in os.listdir(folder)
                  if not name.startswith(".") and os.path.isfile(os.path.join(folder, name)))


def pending_names(names: list[str], output_dir: str) -> list[str]:
    """The names without a finished output in ``output_dir``; the temporary files that ``atomic_write``
    leaves beside one of their outputs when a run is killed are removed."""
    pending = [name for name in names if not os.path.exists(os.path.join(output_dir, name))]
    for name in pending:
        for leftover in glob.glob(os.path.join(glob.escape(output_dir), f".{glob.escape(name)}.*.tmp")):
            os.unlink(leftover)
    return pending


@dataclass(frozen=True)
class LineFormat:
    """How one input line is read and written: ``plain`` (the line is the text) or ``jsonl``."""
    kind: str = "plain"
    text_field: str = "text"
    output_field: str = "restored"

    def check(self, line: str, path: str, number: int) -> None:
        """Raise ``InputError`` naming ``path:number`` unless ``text`` can read the line."""
        if self.kind == "jsonl" and line.strip():
            record = parse_json_object(line, f"{path}:{number}")
            if not isinstance(record.get(self.text_field), str):
                problem = "has no field" if self.text_field not in record else "has no text in its field"
                raise InputError(f"{path}:{number}: the record {problem} {self.text_field!r}")

    def text(self, line: str) -> str:
        """The text to restore of a checked line."""
        if self.kind == "plain":
            return line
        return json.loads(line)[self.text_field] if line.strip() else ""

    def output(self, line: str, restored: str) -> str:
        """The output line of a checked input line whose text was restored to ``restored``."""
        if self.kind == "plain":
            return restored
        if not line.strip():
            return ""
        record = json.loads(line)
        record[self.output_field] = restored
        return json.dumps(record, ensure_ascii=False)


def read_chunks(row: dict, input_dir: str, line_format: LineFormat, chunk_words: int) -> list[dict]:
    """The chunk rows of the file ``row["name"]`` (an empty file: one chunk without lines), or one error row."""
    path = os.path.join(input_dir, row["name"])
    try:
        lines = [(line, ending) for _, line, ending in read_ended_lines(path)]
        for number, (line, _) in enumerate(lines, start=1):
            line_format.check(line, path, number)
    except (InputError, OSError) as err:
        return [{"name": row["name"], "chunk": 0, "chunks": 1, "items": [], "endings": [], "words": 0,
                 "error": str(err)}]
    chunks = list(word_chunks(lines, chunk_words, text=lambda item: line_format.text(item[0]))) or [([], 0)]
    return [{"name": row["name"], "chunk": k, "chunks": len(chunks), "items": [line for line, _ in items],
             "endings": [ending for _, ending in items], "words": words, "error": ""}
            for k, (items, words) in enumerate(chunks)]


class ChunkRestorer:
    """One model, loaded once, restoring chunk rows: ``restorer(batch) -> batch``, a batch being columns
    (``{"name": [...], "items": [...], ...}``, Ray Data's form) of chunk rows, the result those of their
    output rows, in the same order. ``settings``: the model's (``loading.load_punctuator``); ``threads``:
    the engine's intra-op threads."""

    def __init__(self, settings: PredictionSettings, line_format: LineFormat, threads: int):
        from gector_punct.prediction.loading import load_punctuator

        self.punctuator = load_punctuator(settings, threads=threads)
        self.line_format = line_format

    def __call__(self, batch: dict) -> dict:
        from gector_punct.encoders.runtime import trim_heap

        outputs = []
        for items, error in zip(batch["items"], batch["error"]):
            lines = [str(item) for item in items]
            restored = self.punctuator.predict([self.line_format.text(line) for line in lines]) if not error else []
            outputs.append([self.line_format.output(line, text) for line, text in zip(lines, restored)])
            trim_heap()  # what this chunk's batches freed goes back to the OS
        return {"name": batch["name"], "chunk": batch["chunk"], "chunks": batch["chunks"], "output": outputs,
                "endings": batch["endings"], "words": batch["words"], "error": batch["error"]}


@dataclass
class FileWriter:
    """Output rows in, files out: a file is written (atomically, into ``output_dir``) once all its chunks
    have come; the counts are of the files written by this writer."""
    output_dir: str
    files: int = 0
    lines: int = 0
    words: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # name -> why
    waiting: dict[str, dict[int, dict]] = field(default_factory=dict)  # name -> chunk number -> output row

    def add(self, row: dict) -> None:
        name = row["name"]
        if row["error"]:
            self.failed[name] = row["error"]
            return
        chunks = self.waiting.setdefault(name, {})
        chunks[int(row["chunk"])] = row
        if len(chunks) < int(row["chunks"]):
            return
        del self.waiting[name]
        path = os.path.join(self.output_dir, name)
        try:
            with atomic_write(path) as out:
                lines = sum(write_lines(out, [str(line) for line in chunks[k]["output"]], False,
                                        [str(ending) for ending in chunks[k]["endings"]]) for k in sorted(chunks))
        except OSError as err:
            self.failed[name] = error_text(err, path)
            return
        self.files += 1
        self.lines += lines
        self.words += sum(int(chunk["words"]) for chunk in chunks.values())
