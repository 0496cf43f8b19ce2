"""Switchboard disfluency annotation from the PyPI sdist ``deep-disfluency`` 0.0.1, read in place.

Only one member is used (``MEMBER``), and nothing else from the package. ``load(cache_dir)`` -> {side id: [Word]};
``pair(words)`` -> (disfluent source words, fluent target words); ``split_sides(ids)`` -> train/dev/test ids;
``cut_side(words, rng)`` -> ASR-like lines; ``repairs(words)`` -> the disfluency structures of a side;
``drop_uh_um(words)``: a rule baseline (scored with ``metrics.deletion_prf``).

The file format (found by reading the package; every line of the real file follows it):
  ``Speaker: 4008A``                 starts a conversation side: conversation 4008, speaker A. 100 sides, 50
                                     conversations, both sides of each, in file order (sorted by id).
  ``START<TAB>END<TAB>WORD<TAB>GOLD@PRED``   one word; every word line is followed by an empty line.
    START, END   the word's times in seconds from the conversation start (floats, e.g. ``8.3715``).
    WORD         lower case, no apostrophes (``im``, ``lets``), compounds with ``-`` (``uh-huh``,
                 ``eighty-six``); a partial (broken-off) word ends with ``-`` (``th-``, 217 of them); a word
                 outside the tagger's vocabulary carries the prefix ``$unc$`` (``$unc$macintoshes``), removed
                 here; spelled letters are words (``p c`` for PC). One odd word: ``four!``.
    GOLD         the gold tags (the part before ``@``; after it is a model's prediction, ignored), a
                 concatenation of empty XML elements:
      ``<f/>`` fluent word; ``<e/>`` edit term (``uh``, ``um``, ``you know``, ``well``, ``i mean``, ``like``...);
      ``<i id="N"/>`` with ``<e/>``: the edit term is the interregnum of disfluency N;
      ``<rms id="N"/>`` first word of the reparandum of disfluency N, ``<rm id="N"/>`` a later one;
      ``<rps id="N"/>`` first word of its repair, ``<rp id="N"/>`` a later one, and on the repair's last word
      ``<rpnrep id="N"/>`` (repetition), ``<rpnsub id="N"/>`` (substitution) or ``<rpndel id="N"/>`` (deletion:
      a restart, the repair replaces nothing; the tags then sit on the first word after the reparandum).
      A word can carry several ids (nested and chained disfluencies: ``i want i want`` -> ``<rps id="2"/><rm
      id="7"/>``). Ids are reused within a side (they are not unique): a disfluency runs from its ``rms`` to
      its ``rpn*`` tag.
      ``<tc/> <cc/> <ct/> <tt/>``: utterance boundaries, left and right of the word (t: boundary, c: the
      utterance continues): ``<ct/>`` and ``<tt/>`` end an utterance, ``<tt/>`` is a one-word utterance.
      ``<diact type="sd"/>``: the utterance's dialogue act (SWBD-DAMSL: sd statement, sv opinion, b backchannel,
      qy yes-no question, qw wh-question, qy^d declarative question, qo, qh, qrr, ...): a type starting with
      ``q`` is a question. ``<speechLaugh/>``: the word is laughed.
A word is disfluent (deleted in a fluent transcript) when it is an edit term or in a reparandum:
46,801 words, 6,291 disfluent (3,725 edit term words, the rest reparandum words).

Which member: 15 files under ``deep_disfluency/experiments/`` are named ``*swbd_disf_test_*_final.text``
(model outputs of experiments 021 and 033-041). The 13 ``*_partial_*`` ones hold the same 100 sides with
identical words, times and gold tags (only the prediction after ``@`` differs); the two without ``partial``
(021, 041 ``swbd_disf_test_data_output_final``) leave out the partial words (46,584 words). ``MEMBER`` is
experiment 033's partial file, with the partial words. The ``*_increco.text`` files are incremental outputs
(every prefix re-tagged), not one line per word; ``data/lm_corpora/swbd_disf_test_*`` are outside
``experiments/`` and not used.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .clean import line_spans

PACKAGE = ("sdist", "deep-disfluency", "0.0.1")
MEMBER = "deep_disfluency/experiments/033/epoch_45/swbd_disf_test_partial_data_output_final.text"
DISFLUENCY_TAGS = ("rms", "rm", "i", "rps", "rp", "rpnrep", "rpnsub", "rpndel")
REPAIR_TYPES = {"rpnrep": "repetition", "rpnsub": "substitution", "rpndel": "deletion"}
TAG = re.compile(r'<(\w+)(?:\s+(\w+)="([^"]*)")?\s*/>')
UNKNOWN = "$unc$"


@dataclass(frozen=True)
class Word:
    """One word of a side. ``kind``: ``reparandum`` (any rm/rms tag), else ``edit`` (``<e/>``), else ``repair``
    (any rps/rp/rpn* tag), else ``fluent``. ``disfluent``: edit or reparandum (deleted for a fluent transcript).
    ``ids``: the (tag, id) pairs of its disfluency tags in file order. ``start``/``end``: seconds, or None."""

    word: str
    kind: str
    side: str
    start: float | None = None
    end: float | None = None
    ids: tuple = ()
    act: str = ""  # the dialogue act of its utterance
    utterance_end: bool = False
    laughed: bool = False

    @property
    def disfluent(self) -> bool:
        return self.kind in ("edit", "reparandum")

    @property
    def interregnum(self) -> bool:
        return any(tag == "i" for tag, _ in self.ids)

    @property
    def partial(self) -> bool:
        return len(self.word) > 1 and self.word.endswith("-")

    @property
    def question(self) -> bool:
        return self.act.startswith("q")


def _time(field: str) -> float | None:
    try:
        return float(field)
    except ValueError:
        return None


def parse_word(line: str, side: str) -> Word:
    """``START<TAB>END<TAB>WORD<TAB>GOLD@PRED`` (or ``WORD<TAB>GOLD@PRED`` without times) -> a Word."""
    fields = line.rstrip("\n").split("\t")
    if len(fields) not in (2, 4):
        raise ValueError(f"side {side}: expected 4 tab-separated fields, got {line!r}")
    start, end = (_time(fields[0]), _time(fields[1])) if len(fields) == 4 else (None, None)
    word, gold = fields[-2], fields[-1].split("@")[0]
    word = word.removeprefix(UNKNOWN)
    tags = TAG.findall(gold)
    if not tags:
        raise ValueError(f"side {side}: no gold tag in {line!r}")
    names = {name for name, _, _ in tags}
    ids = tuple((name, value) for name, attr, value in tags if name in DISFLUENCY_TAGS and attr == "id")
    if names & {"rms", "rm"}:
        kind = "reparandum"
    elif "e" in names:
        kind = "edit"
    elif names & {"rps", "rp", "rpnrep", "rpnsub", "rpndel"}:
        kind = "repair"
    else:
        kind = "fluent"
    act = next((value for name, attr, value in tags if name == "diact" and attr == "type"), "")
    return Word(word, kind, side, start, end, ids, act, bool(names & {"ct", "tt"}), "speechLaugh" in names)


def parse(text: str) -> dict:
    """The text of a member -> {side id: [Word, ...]} in file order."""
    sides, side = {}, None
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if line.startswith("Speaker:"):
            side = line[len("Speaker:"):].strip()
            if side in sides:
                raise ValueError(f"line {number}: side {side} a second time")
            sides[side] = []
        elif side is None:
            raise ValueError(f"line {number}: a word before the first 'Speaker:' line")
        else:
            sides[side].append(parse_word(line, side))
    return sides


def read_switchboard(package, member: str = MEMBER) -> dict:
    """A fetched deep-disfluency sdist (``fetch.TarPackage``) -> {side id: [Word]} of ``member`` (matched by
    the end of its name, the sdist's top folder aside)."""
    names = [n for n in package.namelist() if n == member or n.endswith("/" + member)]
    if len(names) != 1:
        raise KeyError(f"{len(names)} members named {member} in the package")
    return parse(package.read(names[0]).decode("utf-8"))


def load(cache_dir: str) -> dict:
    """{side id: [Word]} of ``MEMBER``, the sdist fetched into (or found in) cache_dir."""
    from .fetch import fetch
    return read_switchboard(fetch(PACKAGE, cache_dir))


def pair(words: list) -> tuple:
    """A side (or a line of it) -> (source words: all, in order; target words: the fluent ones)."""
    return [w.word for w in words], [w.word for w in words if not w.disfluent]


def conversation(side: str) -> str:
    """``4008A`` -> ``4008``: a side id without its speaker letter."""
    return side[:-1] if side[-1:].isalpha() else side


def split_sides(side_ids, train: float = 0.70, dev: float = 0.15) -> dict:
    """Side ids -> {"train", "dev", "test": sorted side ids}. Whole conversations (both sides of one go to the
    same part: a speaker's partner repeats and answers them), in sorted conversation order: the first
    round(train * n) conversations train, up to round((train + dev) * n) dev, the rest test. 50
    conversations -> 35/7/8 (70/14/16 sides)."""
    groups = {}
    for side in sorted(side_ids):
        groups.setdefault(conversation(side), []).append(side)
    order = sorted(groups)
    a, b = round(train * len(order)), round((train + dev) * len(order))
    parts = {"train": order[:a], "dev": order[a:b], "test": order[b:]}
    return {name: [s for c in convs for s in groups[c]] for name, convs in parts.items()}


def cut_side(words: list, rng: random.Random, min_words: int = 10, max_words: int = 60,
             whole: float = 0.0) -> list:
    """A side's words -> lines (lists of Words) of min_words..max_words words, cut at arbitrary points
    (``clean.line_spans``; with probability ``whole`` at the utterance end nearest the drawn length)."""
    ends = [w.utterance_end for w in words]
    return [words[a:b] for a, b in line_spans(ends, rng, min_words, max_words, whole)]


@dataclass
class Repair:
    """One disfluency: word indices (in its side) of its reparandum, interregnum and repair; ``type``:
    repetition, substitution, deletion, or None when no rpn* tag closes it."""

    id: str
    reparandum: list
    interregnum: list
    repair: list
    type: str | None = None


def repairs(words: list) -> list:
    """A side's disfluencies in the order their reparanda start. A disfluency opens at ``rms id=N``; the
    following rm/i/rps/rp/rpn* tags with id N belong to it until an rpn* tag closes it. Tags of an id that is not
    open are ignored (``stray`` of ``repair_anomalies`` counts them)."""
    return _repairs(words)[0]


def repair_anomalies(words: list) -> dict:
    """Counts of tags without an open disfluency (``stray``) and of disfluencies never closed (``open``)."""
    done, stray = _repairs(words)
    return {"stray": stray, "open": sum(r.type is None for r in done)}


def _repairs(words: list) -> tuple:
    done, opened, stray = [], {}, 0
    for k, w in enumerate(words):
        for tag, id_ in w.ids:
            if tag == "rms":
                opened[id_] = Repair(id_, [k], [], [])
                done.append(opened[id_])
                continue
            repair = opened.get(id_)
            if repair is None:
                stray += 1
            elif tag == "rm":
                repair.reparandum.append(k)
            elif tag == "i":
                repair.interregnum.append(k)
            elif k not in repair.repair:  # rps/rp/rpn*: the repair
                repair.repair.append(k)
            if repair is not None and tag in REPAIR_TYPES:
                repair.type = REPAIR_TYPES[tag]
                del opened[id_]
    return done, stray


FILLED_PAUSES = ("uh", "um")


def drop_uh_um(words: list) -> list:
    """The rule baseline: delete exactly the words ``uh`` and ``um`` (strings or Words) -> deletion flags."""
    return [(w.word if isinstance(w, Word) else w) in FILLED_PAUSES for w in words]
