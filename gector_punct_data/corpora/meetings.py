"""French meetings from the PyPI wheel ``public-meetings`` 0.1.0rc3 (pre-release), read in place: a real
ASR -> written text test set. Nothing of the package is installed or run; its pickles hold only plain
dicts, lists, strings and booleans and are read with an unpickler that refuses every class.

The package (found by reading its code, ``public_meetings/prepare.py``), 22 meetings under
``public_meetings/data/``, each named by a 32-hex id:
  ``ID.docx``          the professional report (cased, punctuated, near-verbatim), read from word/document.xml.
  ``ID.N.ctm``         ASR output, N = 0, 1...: ``FILE CHANNEL START DURATION WORD CONFIDENCE`` per line, with
                       ``<start=..,end=..,speaker=..>`` segment markers as words; the ASR writes case, ``,`` and
                       ``.`` as words, and elisions as ``l'`` + ``assemblée``.
  ``ID.aligned.pckl``  ``{"initial": ..., "final": {"doc": [...], "ctm": [...]}}`` (the human-validated
                       alignment is ``final``): ``doc`` = report segments ``{"id", "text", "validated"}``,
                       ``ctm`` = ASR segments ``{"id", "text", "aligned", "validated"}``, ``aligned`` the id of
                       a doc segment or ``""``. Both texts are lower case and re-tokenised (``l' assemblée``,
                       ``aujourd ' hui``, ``est -ce``, ``<unk>``); doc texts carry ``<h>`` (header), ``<nom>``
                       (speaker name), ``<p>``, ``<table>`` tags.

A test line is one doc segment: source = the ASR words of every ctm segment aligned to it (lower case, edge
marks stripped, elisions joined: ``l'assemblée``, ``aujourd'hui``, ``est-ce``), target = the same words with
the report's case and marks projected on them (``project_marks``). The report's words come from the docx (the
pickle's doc text has no case): the docx words are aligned to the pickle's doc words, which tell each docx
word's segment and whether it is spoken (headers, speaker names and tables are not).
"""
from __future__ import annotations

import difflib
import io
import os
import pickle
import re
import xml.etree.ElementTree as ET
import zipfile

from gector_punct.text.sentences import SENTENCE_END
from gector_punct.text.units import OPENING, split_edges

PACKAGE = ("wheel", "public-meetings", "0.1.0rc3")
HELD_OUT = 4  # the last 4 meeting ids in sorted order are the test meetings (kept out of training)
UNSPOKEN_TAGS = {"h", "nom", "table"}  # doc-text tags whose words are not in the audio
ABBREVIATIONS = {"m", "mm", "mme", "mmes", "mlle", "mlles", "dr", "pr", "me", "st", "ste", "cf", "p", "n°"}
PAUSE = ",;:"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


class _NoClasses(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused {module}.{name}: the meeting pickles hold no classes")


def load_alignment(data: bytes) -> dict:
    """Bytes of an ``ID.aligned.pckl`` of the package -> its dict (no class may be loaded)."""
    return _NoClasses(io.BytesIO(data)).load()


class MeetingFiles:
    """The data files of the package: ``source`` a folder (searched for ``*.aligned.pckl``), a wheel/zip path,
    or an open archive with ``namelist()``/``read()`` (``fetch.fetch``'s answer). Files by base name."""

    def __init__(self, source):
        if isinstance(source, str) and os.path.isdir(source):
            paths = [os.path.join(d, f) for d, _, fs in os.walk(source) for f in fs]
            self._read = _raw
        else:
            archive = zipfile.ZipFile(source) if isinstance(source, str) else source
            paths, self._read = archive.namelist(), archive.read
        self.files = {os.path.basename(p): p for p in paths if re.match(r"[0-9a-f]{32}\.", os.path.basename(p))}

    def read(self, name: str) -> bytes:
        return self._read(self.files[name])

    def meeting_ids(self) -> list[str]:
        """Sorted ids of the meetings that have an alignment."""
        return sorted(n.split(".")[0] for n in self.files if n.endswith(".aligned.pckl"))

    def ctm_names(self, meeting_id: str) -> list[str]:
        """``ID.0.ctm``, ``ID.1.ctm``... in numeric order."""
        found = [n for n in self.files if re.fullmatch(re.escape(meeting_id) + r"\.\d+\.ctm", n)]
        return sorted(found, key=lambda n: int(n.split(".")[1]))


def locate(cache_dir: str) -> MeetingFiles:
    """The package's files, the wheel fetched into (or found in) ``cache_dir/public_meetings``."""
    from .fetch import fetch
    return MeetingFiles(fetch(PACKAGE, os.path.join(cache_dir, "public_meetings")))


def split_ids(meeting_ids: list[str], which: str = "held_out") -> list[str]:
    """``held_out``: the last ``HELD_OUT`` ids in sorted order; ``train``: the others; ``all``."""
    ids = sorted(meeting_ids)
    return {"held_out": ids[-HELD_OUT:], "train": ids[:-HELD_OUT], "all": ids}[which]


def _raw(source) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    with open(source, "rb") as f:
        return f.read()


def read_ctm(source) -> list[tuple[float, float, str, float]]:
    """A ctm file (path or bytes) -> (start s, duration s, word, confidence) per word line, in file order.
    Segment markers (``<start=...>``) stay in as words; lines of fewer than 5 fields are skipped."""
    words = []
    for line in _raw(source).decode("utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 5:
            confidence = float(fields[5]) if len(fields) > 5 else 1.0
            words.append((float(fields[2]), float(fields[3]), fields[4], confidence))
    return words


def read_docx(source) -> list[str]:
    """A .docx (path or bytes) -> the text of its body paragraphs (``w:p``, tables' included), in order.
    Tabs and breaks become spaces; a paragraph nested in another (text box) is its own paragraph; the
    ``mc:Fallback`` copies of drawings are skipped."""
    with zipfile.ZipFile(io.BytesIO(_raw(source))) as docx:
        root = ET.fromstring(docx.read("word/document.xml"))
    paragraphs: list[list[str]] = []

    def walk(element, current):
        for child in element:
            if child.tag == FALLBACK:
                continue
            if child.tag == W + "p":
                paragraphs.append([])
                walk(child, paragraphs[-1])
                continue
            if current is not None:
                if child.tag == W + "t":
                    current.append(child.text or "")
                elif child.tag in (W + "tab", W + "br", W + "cr"):
                    current.append(" ")
                elif child.tag == W + "noBreakHyphen":
                    current.append("-")
            walk(child, current)

    walk(root, None)
    return ["".join(p) for p in paragraphs]


def attach_marks(tokens: list[str]) -> list[str]:
    """Whitespace tokens of written text -> words: a token of marks only (French ``?``, ``»``, ``:``) joins the
    word before it, an opening one (``«``, ``(``, an odd ``"``) the word after it; leftover marks are dropped."""
    words, pending, quotes = [], "", 0
    for token in tokens:
        if split_edges(token)[1]:
            words.append(pending + token)
            pending = ""
            continue
        opening = all(ch in OPENING for ch in token)
        if token == '"':
            opening, quotes = quotes % 2 == 0, quotes + 1
        if opening or not words:
            pending += token
        else:
            words[-1] += token
    return words


def word_key(word: str) -> str:
    """The comparable form of a word: its core (edge marks off), lower case, ``’`` as ``'``."""
    return split_edges(word.replace("’", "'"))[1].lower()


def join_tokens(items: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """(token, flag) pairs of the pickle's tokenisation -> words as the ASR writes them: ``l'`` + next word,
    ``aujourd ' hui`` -> ``aujourd'hui``, ``est -ce`` -> ``est-ce``; ``’`` -> ``'``. A joined word keeps the
    first piece's flag."""
    out: list[list] = []
    glue = False  # the last word ends with an elision apostrophe: the next word joins it
    for token, flag in items:
        token = token.replace("’", "'")
        starts_word = token[:1].isalnum()
        if out and token == "'":
            out[-1][0] += "'"
        elif out and ((glue and starts_word) or re.match(r"-\w", token)):
            out[-1][0] += token
        else:
            out.append([token, flag])
        glue = bool(re.search(r"\w'$", out[-1][0])) if out else False
    return [(t, f) for t, f in out]


def tagged_tokens(text: str) -> list[tuple[str, bool]]:
    """A pickle text -> (token, spoken) pairs without the ``<...>`` tags; spoken is False inside ``<h>``,
    ``<nom>``, ``<table>``. ``<unk>`` is dropped."""
    out, inside = [], []
    for token in text.split():
        tag = re.fullmatch(r"<(/?)([^<>/]+)>", token)
        if tag:
            if tag.group(2) in UNSPOKEN_TAGS:
                inside = inside[:-1] if tag.group(1) else inside + [tag.group(2)]
            continue
        out.append((token, not inside))
    return out


def asr_words(text: str) -> list[str]:
    """ASR text (a pickle ctm text, or ctm words joined by spaces) -> source words: tags and ``<unk>`` out,
    elisions joined, lower case, edge marks stripped, empty words dropped."""
    return [w for w in (word_key(t) for t, _ in join_tokens(tagged_tokens(text))) if w]


def align_words(a: list[str], b: list[str], max_cells: int = 250_000) -> list[tuple]:
    """Word-level edit-distance alignment of ``a`` and ``b`` -> (i, j) pairs in order: (i, j) a match or a
    substitution, (i, None) a word of ``a`` only, (None, j) a word of ``b`` only. Exact dynamic programming
    (unit costs, ties towards matches) up to ``max_cells``; longer inputs are first cut at their longest common
    run of words, recursively."""
    if not a or not b:
        return [(i, None) for i in range(len(a))] + [(None, j) for j in range(len(b))]
    if len(a) * len(b) <= max_cells:
        return _dp_align(a, b)
    run = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    if run.size == 0:
        return _dp_align(a[:1], b) + [(i + 1, None) for i in range(len(a) - 1)]
    left = align_words(a[:run.a], b[:run.b], max_cells)
    ia, jb = run.a + run.size, run.b + run.size
    right = align_words(a[ia:], b[jb:], max_cells)
    shift = [(None if i is None else i + ia, None if j is None else j + jb) for i, j in right]
    return left + [(run.a + k, run.b + k) for k in range(run.size)] + shift


def _dp_align(a: list[str], b: list[str]) -> list[tuple]:
    rows = [list(range(len(b) + 1))]
    for i, word in enumerate(a, 1):
        prev, row = rows[-1], [i]
        for j, other in enumerate(b, 1):
            row.append(min(prev[j - 1] + (word != other), prev[j] + 1, row[j - 1] + 1))
        rows.append(row)
    pairs, i, j = [], len(a), len(b)
    while i or j:
        cell = rows[i][j]
        if i and j and cell == rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif i and cell == rows[i - 1][j] + 1:
            i -= 1
            pairs.append((i, None))
        else:
            j -= 1
            pairs.append((None, j))
    return pairs[::-1]


def _sentence_end(word: str) -> str:
    """The sentence-final marks a written word ends with ('' for none, and for ``M.``-like abbreviations)."""
    _, core, trail = split_edges(word)
    marks = "".join(ch for ch in trail if ch in SENTENCE_END)
    if marks == "." and (len(core) == 1 or core.lower() in ABBREVIATIONS):
        return ""
    return marks


def _end_with(word: str, marks: str) -> str:
    """``word`` ending a sentence with ``marks``: a trailing pause mark (, ; :) is replaced."""
    if any(ch in SENTENCE_END for ch in split_edges(word)[2]):
        return word
    return word.rstrip(PAUSE) + marks


def project_marks(report_words: list[str], asr: list[str], stats: dict | None = None) -> list[str]:
    """The report's case and marks put on the ASR words.

    ``report_words``: whitespace tokens of the written report (stand-alone marks allowed); ``asr``: source
    words (lower case, no edge marks). Returns one target word per ASR word: an ASR word that the alignment
    matches exactly to a report word takes that word's case and its leading and trailing marks (``’`` as
    ``'``); any other ASR word stays as it is. The sentence-final mark of an unmatched report word goes onto
    the last ASR word before the next matched word (or the segment's end), unless it has one already.
    ``stats`` (optional) counts ``asr_words``, ``asr_matched``, ``report_words``, ``sentence_ends_moved``."""
    written = attach_marks(report_words)
    keys = [word_key(w) for w in written]
    target, last, pending, matched = list(asr), None, "", 0

    def flush():
        nonlocal pending
        if pending and last is not None and target[last] != _end_with(target[last], pending):
            target[last] = _end_with(target[last], pending)
            _count(stats, "sentence_ends_moved")
        pending = ""

    for i, j in align_words(keys, asr):
        if i is not None and j is not None and keys[i] == asr[j]:
            flush()
            lead, core, trail = split_edges(written[i].replace("’", "'"))
            target[j] = lead + core + trail if core.lower() == asr[j] else asr[j]
            matched += 1
        elif i is not None and _sentence_end(written[i]):
            pending = _sentence_end(written[i])
        if j is not None:
            last = j
    flush()
    for name, n in (("asr_words", len(asr)), ("asr_matched", matched), ("report_words", len(written))):
        _count(stats, name, n)
    return target


def _count(stats: dict | None, name: str, n: int = 1) -> None:
    if stats is not None:
        stats[name] = stats.get(name, 0) + n


def report_segments(paragraphs: list[str], doc_segments: list[dict]) -> dict[str, list[str]]:
    """The docx's words cut into the pickle's doc segments: {segment id: spoken report words (with marks)}.

    The docx words (marks attached) are aligned to the doc texts' words; a segment runs from its first to its
    last matched docx word (clipped to start after the previous segment); within it the words matched to
    unspoken words (headers, speaker names, tables), and unmatched words after them, are left out. A segment
    none of whose words is found is absent."""
    written = attach_marks([t for p in paragraphs for t in p.split()])
    doc = [(word_key(t), k, spoken) for k, seg in enumerate(doc_segments)
           for t, spoken in join_tokens(tagged_tokens(seg["text"]))]
    doc = [d for d in doc if d[0]]
    owner: dict[int, tuple[int, bool]] = {}
    matcher = difflib.SequenceMatcher(None, [word_key(w) for w in written], [d[0] for d in doc], autojunk=False)
    for block in matcher.get_matching_blocks():
        for n in range(block.size):
            owner[block.a + n] = doc[block.b + n][1:]
    spans: dict[int, list[int]] = {}
    for i, (k, _) in sorted(owner.items()):
        spans.setdefault(k, [i, i])[1] = i
    out, end = {}, -1
    for k in sorted(spans):
        start, stop = max(spans[k][0], end + 1), spans[k][1]
        words, spoken = [], True
        for i in range(start, stop + 1):
            spoken = owner[i][1] if i in owner else spoken
            if spoken:
                words.append(written[i])
        if stop >= start:
            out[doc_segments[k]["id"]] = words
        end = max(end, stop)
    return out


def ctm_agreement(files: MeetingFiles, meeting_id: str, alignment: dict) -> tuple[int, int]:
    """A check of the pickle's ASR text against the ctm files: (ctm words, of them in the pickle's ctm
    texts too, in order), both as source words."""
    ctm = [w for name in files.ctm_names(meeting_id) for _, _, w, _ in read_ctm(files.read(name))]
    ctm = asr_words(" ".join(ctm))
    pickled = asr_words(" ".join(seg["text"] for seg in alignment["final"]["ctm"]))
    blocks = difflib.SequenceMatcher(None, ctm, pickled, autojunk=False).get_matching_blocks()
    return len(ctm), sum(b.size for b in blocks)


def meeting_pairs(files: MeetingFiles, meeting_id: str, stats: dict | None = None) -> list[tuple[str, str, int]]:
    """One meeting -> (source line, target line, ASR words matched to the report) per doc segment that has
    aligned ASR segments, in order.
    ``stats`` (optional) counts what ``project_marks`` counts and ``segments``, ``no_report_words`` (segments
    with ASR but no docx words found), ``ctm_words``/``ctm_words_in_alignment`` (``ctm_agreement``)."""
    alignment = load_alignment(files.read(meeting_id + ".aligned.pckl"))["final"]
    reports = report_segments(read_docx(files.read(meeting_id + ".docx")), alignment["doc"])
    spoken: dict[str, list[str]] = {}
    for seg in alignment["ctm"]:
        if seg["aligned"] not in ("", "-1", -1, None):
            spoken.setdefault(seg["aligned"], []).append(seg["text"])
    pairs = []
    for doc in alignment["doc"]:
        asr = asr_words(" ".join(spoken.get(doc["id"], [])))
        if not asr:
            continue
        _count(stats, "segments")
        if not reports.get(doc["id"]):
            _count(stats, "no_report_words")
            continue
        counts: dict = {}
        target = project_marks(reports[doc["id"]], asr, counts)
        pairs.append((" ".join(asr), " ".join(target), counts["asr_matched"]))
        for name, n in counts.items():
            _count(stats, name, n)
    total, agreeing = ctm_agreement(files, meeting_id, {"final": alignment})
    _count(stats, "ctm_words", total)
    _count(stats, "ctm_words_in_alignment", agreeing)
    return pairs


def asr_pairs(package_dir, meeting_ids: list[str], stats: dict | None = None) -> list[tuple[str, str, str]]:
    """The package (``MeetingFiles``' source: folder, wheel path or open archive, or a ``MeetingFiles``) and
    meeting ids -> (source line, target line, meeting id) for every aligned segment of those meetings, in
    the given meeting order. ``stats``: see ``meeting_pairs``."""
    files = package_dir if isinstance(package_dir, MeetingFiles) else MeetingFiles(package_dir)
    return [(src, tgt, mid) for mid in meeting_ids for src, tgt, _ in meeting_pairs(files, mid, stats)]
