"""The edit-tag set and its two directions, in one place.

A *tag* is what one source word needs to become its target word. It is a list of operations:

* ``$APPEND_<marks>``   marks written right after the word (``York`` -> ``York,``; ``?!``, ``."`` or ``。`` too)
* ``$PREPEND_<marks>``  marks written right before it (``¿``, ``¡``, an opening quote or bracket)
* ``$TRANSFORM_CASE_CAPITAL`` / ``_UPPER`` / ``_LOWER``, or ``$TRANSFORM_CASE_CHARS_0,2`` for mixed case
  (the positions of the upper-case characters: McDonald -> ``CHARS_0,2``, iPhone -> ``CHARS_1``)
* ``$ACRONYM``         a period after every letter (model card 002's ``<ACRONYM>``: ``usa`` -> ``U.S.A.``, ``am`` ->
                        ``a.m.``); its last period also ends a sentence (``in the U.S.`` takes no second one)
* ``$CASE_UNKNOWN``     the target's case is not known (an uncased corpus): nothing is taught about case
* ``$DELETE``           drop the word (a disfluency: ``uh``, a repeated or abandoned phrase); what it carried
                        moves to its neighbours (``resolve_deletions``: ``Uh, so we`` -> ``So we``)
* ``$KEEP``             none of the above

Case and punctuation are *separate* tag parts, predicted by separate heads, so a word that needs both
(``new york , usa`` -> ``New York, USA``) keeps both in its target; the case part can be masked out of the
loss on its own when the corpus has no case. In files the operations of one word are joined by
``SEPL__SEPR`` and the word and its tag by ``SEPL|||SEPR``, as in GECToR.

Directions:
  ``tags_from_pair(source_words, target_text, deletions=False) -> [Tag]``  (target -> tags; raises
  ``AlignmentError``; with ``deletions`` the target may leave source words out)
  ``apply_tags(source_words, tags) -> str``               (tags -> text; the exact inverse)
The words are ``units.split_units`` units: in Chinese or Japanese every character is one, so a mark can
follow any character. Labels are script-neutral (``，`` and ``,`` are one label); the line's script picks
how a mark is written (``units.render_marks``: full-width where most units are continuous-script).
Normalisation: ``apply_tags`` writes marks attached to their word and words separated by one space (none
between Chinese characters), so the round trip holds modulo the spacing around punctuation (``York , USA``
comes back as ``York, USA``) and the width of marks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

# Facts about marks of every script live in units.py; tags re-exports those its users import from here.
from .units import (OPENING, SENTENCE_END, ends_sentence, join_units, narrow_marks, render_marks,  # noqa: F401
                    split_edges, split_units, starts_lower)

KEEP = "$KEEP"
DELETE = "$DELETE"
CASE_UNKNOWN = "$CASE_UNKNOWN"
ACRONYM = "$ACRONYM"
APPEND = "$APPEND_"
PREPEND = "$PREPEND_"
CASE_PREFIX = "$TRANSFORM_CASE_"
CAPITAL, UPPER, LOWER, CHARS = (CASE_PREFIX + s for s in ("CAPITAL", "UPPER", "LOWER", "CHARS_"))
OP_SEP = "SEPL__SEPR"
TOKEN_SEP = "SEPL|||SEPR"

STRAIGHT_QUOTES = set("\"'")
# A dotted acronym's core (the last period is a trailing mark): U.S, a.m, N.A.S.A
ACRONYM_CORE = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")


class AlignmentError(ValueError):
    """A source line and its target do not correspond word by word."""


def make_source(target_line: str) -> str:
    """ASR-like source of a restored line: lower-case, marks at word edges removed (inner ' and - kept),
    dotted acronyms spelled as one word (``U.S.`` -> ``us``), no spaces between Chinese characters."""
    cores = (split_edges(unit)[1] for unit in split_units(target_line))
    return join_units([(core.replace(".", "") if ACRONYM_CORE.match(core) else core).lower() for core in cores if core])


@dataclass(frozen=True)
class Tag:
    """The edit of one word: ``punct`` (a label of the punctuation head) and ``case`` (of the case head)."""

    punct: str = KEEP
    case: str = KEEP

    def __str__(self) -> str:
        ops = [op for op in (self.case, self.punct) if op != KEEP]
        return OP_SEP.join(ops) if ops else KEEP

    @classmethod
    def parse(cls, text: str) -> Tag:
        case, punct_ops = KEEP, []
        for op in text.split(OP_SEP):
            if op.startswith(CASE_PREFIX) or op == CASE_UNKNOWN:
                case = op
            elif op.startswith((APPEND, PREPEND)) or op in (DELETE, ACRONYM):
                punct_ops.append(op)
            elif op != KEEP:
                raise ValueError(f"unknown tag operation {op!r} in {text!r}")
        return cls(punct=OP_SEP.join(sorted(punct_ops, key=_op_order)) or KEEP, case=case)

    @cached_property
    def prepend(self) -> str:
        return "".join(op[len(PREPEND):] for op in self.punct.split(OP_SEP) if op.startswith(PREPEND))

    @cached_property
    def append(self) -> str:
        return "".join(op[len(APPEND):] for op in self.punct.split(OP_SEP) if op.startswith(APPEND))

    @cached_property
    def acronym(self) -> bool:
        return ACRONYM in self.punct.split(OP_SEP)

    @property
    def deletes(self) -> bool:
        return self.punct == DELETE

    @property
    def is_edit(self) -> bool:
        """Whether the tag changes its word (an unknown case is no change: nothing is known to be wrong)."""
        return self.punct != KEEP or self.case not in (KEEP, CASE_UNKNOWN)

    def apply(self, word: str) -> str:
        """The written word: prepended marks + the word in its new case + appended marks. Deletion is the
        caller's to honour (scoring keeps every word aligned; ``apply_tags`` drops deleted ones)."""
        word = apply_case(word, self.case)
        if not self.acronym:
            return self.prepend + word + self.append
        lead, core, trail = split_edges(word)
        dotted = "".join(ch + "." for ch in core if ch != ".")
        return self.prepend + lead + dotted + trail + self.append.removeprefix(".")


def _op_order(op: str) -> int:
    return 0 if op.startswith(PREPEND) else 1 if op == ACRONYM else 2


def punct_label(prepend: str, append: str, acronym: bool = False) -> str:
    ops = ([PREPEND + prepend] if prepend else []) + ([ACRONYM] if acronym else []) + ([APPEND + append] if append else [])
    return OP_SEP.join(ops) or KEEP


def case_tag(source: str, target: str) -> str:
    """The case operation that turns ``source`` into ``target`` (which differ at most in case)."""
    if target == source:
        return KEEP
    if target == target.lower():
        return LOWER
    if target == target.upper() and sum(c.isalpha() for c in target) > 1:
        return UPPER
    if target == capitalize(target):
        return CAPITAL
    return CHARS + ",".join(str(i) for i, c in enumerate(target) if c != c.lower())


def capitalize(word: str) -> str:
    return word[:1].upper() + word[1:].lower()


def apply_case(word: str, case: str) -> str:
    """Change the case of the word's core; marks the word already carries stay where they are."""
    if case in (KEEP, CASE_UNKNOWN):
        return word
    lead, core, trail = split_edges(word)
    return lead + _apply_case(core, case) + trail


def _apply_case(word: str, case: str) -> str:
    if case == LOWER:
        return word.lower()
    if case == UPPER:
        return word.upper()
    if case == CAPITAL:
        return capitalize(word)
    if case.startswith(CHARS):
        upper = {int(i) for i in case[len(CHARS):].split(",") if i}
        return "".join(c.upper() if i in upper else c.lower() for i, c in enumerate(word))
    raise ValueError(f"unknown case operation {case!r}")


def apply_tags(source_words: list[str], tags: list[Tag], spacing: list[bool] | None = None) -> str:
    """Apply one tag per unit and join the result (``units.join_units``: single spaces, none between
    Chinese characters; ``spacing``, the source's ``units.unit_spacing``, keeps its spaces elsewhere).
    Deleted words vanish."""
    if len(source_words) != len(tags):
        raise ValueError(f"{len(source_words)} words but {len(tags)} tags")
    forms = written_forms(source_words, tags)
    kept = [i for i, form in enumerate(forms) if form is not None]
    return join_units([forms[i] for i in kept], None if spacing is None else [spacing[i] for i in kept])


def written_words(source_words: list[str], tags: list[Tag]) -> list[str]:
    """The tagged words as written, deleted ones left out."""
    return [w for w in written_forms(source_words, tags) if w is not None]


def written_forms(source_words: list[str], tags: list[Tag]) -> list[str | None]:
    """Word for word, each word as written, or None where it is deleted. What a deleted word carried (its
    marks, its case after its tag) moves first, as ``resolve_deletions`` says; the kept words' tags apply
    to the result."""
    deleted = [t.deletes for t in tags]
    if not any(deleted):
        return render_marks([tag.apply(word) for word, tag in zip(source_words, tags)], source_words)
    carried = [tag.apply(w) if gone else w for w, tag, gone in zip(source_words, tags, deleted)]
    forms = [None if gone else tag.apply(w) for w, tag, gone in zip(resolve_deletions(carried, deleted), tags, deleted)]
    return render_marks(forms, source_words)


PAUSE_MARKS = set(",;:-\u2013\u2014")  # marks that only join a deleted word to its neighbours: they go with it


def resolve_deletions(words: list[str], deleted: list[bool]) -> list[str]:
    """The words once the ``deleted`` ones are gone, as a reader expects them (deleted positions keep their
    word): a deleted word's leading marks go to the next kept word; its trailing marks, pause marks aside, to
    the kept word before (a sentence end replaces that word's pause marks; it never doubles one); and a
    deleted word that starts a sentence with a capital hands the capital to the next kept word
    (``Uh, so we`` -> ``So we``). Marks with no kept word to go to are dropped."""
    out, lead, capital, prev, at_start = list(words), "", False, None, True
    for i, (word, gone) in enumerate(zip(words, deleted)):
        w_lead, core, trail = split_edges(word)
        if gone:
            lead += w_lead
            capital = capital or (at_start and any(ch.isalpha() for ch in core) and not starts_lower(core))
            moved = "".join(ch for ch in trail if ch not in PAUSE_MARKS)
            if moved and prev is not None:
                out[prev] = _with_trail(out[prev], moved)
            at_start = at_start or ends_sentence(trail)
            continue
        word = lead + word
        if capital and starts_lower(word):
            k = next(j for j, ch in enumerate(word) if ch.isalpha())
            word = word[:k] + word[k].upper() + word[k + 1:]
        out[i], lead, capital, prev = word, "", False, i
        at_start = ends_sentence(split_edges(word)[2])
    return out


def _with_trail(word: str, marks: str) -> str:
    lead, core, trail = split_edges(word)
    if ends_sentence(marks):
        if ends_sentence(trail):
            marks = "".join(ch for ch in marks if ch not in SENTENCE_END)
        else:
            trail = trail.rstrip("".join(PAUSE_MARKS))
    return lead + core + trail + marks


def _target_words(target_line: str) -> list[tuple[str, str, str]]:
    """Target tokens as (prepend, core, append) words: stand-alone marks join their neighbour."""
    words: list[list[str]] = []
    pending = ""  # opening marks waiting for the next word
    quotes_open = False
    for token in split_units(target_line):
        lead, core, trail = split_edges(token)
        if core:
            words.append([pending + lead, core, trail])
            pending = ""
            continue
        # A token of marks only, as in GECToR-style "New York , USA" data.
        if token in STRAIGHT_QUOTES or token == "''" or token == "``":
            opening = not quotes_open if token in STRAIGHT_QUOTES else token == "``"
            quotes_open = opening
        else:
            opening = all(ch in OPENING for ch in token)
        if opening or not words:
            pending += token
        else:
            words[-1][2] += token
    if pending:
        if not words:
            raise AlignmentError(f"target has marks but no words: {target_line!r}")
        words[-1][2] += pending  # a dangling opening mark: keep it rather than lose it
    return [tuple(w) for w in words]  # type: ignore[misc]


def tags_from_pair(source_words: list[str], target_line: str, cased: bool = True,
                   deletions: bool | list[bool] = False) -> list[Tag]:
    """The tags that turn ``source_words`` into ``target_line``.

    ``cased=False`` for a corpus without case: every case part becomes ``$CASE_UNKNOWN`` (masked in the loss).
    ``deletions=True`` (disfluency data): the target may leave source words out; they get ``$DELETE``. Of
    repeated words the later copy is kept (``the the car`` -> the first ``the`` goes: the reparandum comes
    before its repair), unless the marks the words carry only fit the earlier copy kept (``uh. uh`` ->
    ``uh.``); a list of flags says which words are left out instead (gold annotation). Raises
    ``AlignmentError`` when the words differ by more than case and edge punctuation (and, with
    ``deletions``, left-out words)."""
    targets = _target_words(target_line)
    if not isinstance(deletions, list) and len(targets) == len(source_words):
        return _word_tags(source_words, targets, cased)
    if deletions is False or len(targets) > len(source_words):
        raise AlignmentError(_mismatch(source_words, [t[1] for t in targets]))
    if isinstance(deletions, list):
        return _tags_with_deletions(source_words, targets, deletions, cased)
    cores = [t[1] for t in targets]
    try:
        return _tags_with_deletions(source_words, targets, _left_out(source_words, cores, latest=True), cased)
    except AlignmentError:
        return _tags_with_deletions(source_words, targets, _left_out(source_words, cores, latest=False), cased)


def _tags_with_deletions(source_words: list[str], targets: list[tuple[str, str, str]], deleted: list[bool],
                         cased: bool) -> list[Tag]:
    if len(deleted) != len(source_words) or len(source_words) - sum(deleted) != len(targets):
        raise AlignmentError(f"{sum(deleted)} of {len(source_words)} words flagged deleted, but the target has "
                             f"{len(targets)} words")
    kept = [i for i, gone in enumerate(deleted) if not gone]
    effective = resolve_deletions(source_words, deleted)
    tags = [Tag(DELETE, KEEP if cased else CASE_UNKNOWN)] * len(source_words)
    for i, tag in zip(kept, _word_tags([effective[i] for i in kept], targets, cased)):
        tags[i] = tag
    return tags


def _left_out(source_words: list[str], target_cores: list[str], latest: bool) -> list[bool]:
    """Which source words the target leaves out: the target's words matched greedily, each to the ``latest``
    source word with the same letters (right to left), or else the earliest (left to right); greedy
    matching finds a match whenever one exists."""
    order = range(len(source_words) - 1, -1, -1) if latest else range(len(source_words))
    wanted = list(reversed(range(len(target_cores)))) if latest else list(range(len(target_cores)))
    deleted, j = [True] * len(source_words), 0
    for i in order:
        if j < len(wanted) and split_edges(source_words[i])[1].lower() == target_cores[wanted[j]].lower():
            deleted[i], j = False, j + 1
    if j < len(wanted):
        k = wanted[j]
        raise AlignmentError(f"target word {k + 1} ({target_cores[k]!r}) is not among the source words in order: "
                             f"source ...{' '.join(source_words[:8])}... vs target ...{' '.join(target_cores[:8])}...")
    return deleted


def _word_tags(source_words: list[str], targets: list[tuple[str, str, str]], cased: bool) -> list[Tag]:
    """Word-for-word tags: each source word against its (prepend, core, append) target word."""
    tags = []
    for i, (word, (lead, core, trail)) in enumerate(zip(source_words, targets)):
        lead, trail = narrow_marks(lead), narrow_marks(trail)
        if ACRONYM_CORE.match(core) and core.replace(".", "").lower() == word.lower():
            letters = core.replace(".", "")
            case = case_tag(word, letters) if cased else CASE_UNKNOWN
            tags.append(Tag(punct_label(lead, trail.removeprefix("."), acronym=True), case))
            continue
        if core.lower() != word.lower() or len(core) != len(word):
            src_lead, src_core, src_trail = (narrow_marks(part) for part in split_edges(word))
            # The source word itself may carry marks (already-punctuated input): keep what it has.
            if src_core.lower() == core.lower() and len(src_core) == len(core) and src_core:
                if not (lead.endswith(src_lead) and trail.startswith(src_trail)):
                    raise AlignmentError(f"word {i + 1}: source {word!r} has marks the target {lead + core + trail!r} lacks")
                lead, trail = lead[: len(lead) - len(src_lead)], trail[len(src_trail):]
                case = case_tag(src_core, core) if cased else CASE_UNKNOWN
                tags.append(Tag(punct_label(lead, trail), case))
                continue
            raise AlignmentError(_mismatch(source_words, [t[1] for t in targets], i))
        tags.append(Tag(punct_label(lead, trail), case_tag(word, core) if cased else CASE_UNKNOWN))
    return tags


def _mismatch(source: list[str], target: list[str], at: int | None = None) -> str:
    if at is None:
        at = next((i for i, (s, t) in enumerate(zip(source, target)) if s.lower() != t.lower()), min(len(source), len(target)))
    src = " ".join(source[max(0, at - 3): at + 4])
    tgt = " ".join(target[max(0, at - 3): at + 4])
    return (f"source has {len(source)} words, target {len(target)}; they differ at word {at + 1}: "
            f"source ...{src}... vs target ...{tgt}...")


def format_tagged(words: list[str], tags: list[Tag]) -> str:
    """One line of the preprocessed (GECToR) format: ``word SEPL|||SEPR tag`` per word, space-separated."""
    return " ".join(f"{w}{TOKEN_SEP}{t}" for w, t in zip(words, tags))


def parse_tagged(line: str) -> tuple[list[str], list[Tag]]:
    words, tags = [], []
    for token in line.split():
        word, sep, tag = token.rpartition(TOKEN_SEP)
        if not sep:
            raise ValueError(f"token {token!r} has no {TOKEN_SEP} tag")
        words.append(word)
        tags.append(Tag.parse(tag))
    return words, tags


# ---- what the case head is told about the word before --------------------------------------------

# The mark context of a word: how the word before it ends, as written (its own marks plus the appended
# ones). The case head is conditioned on it (punctuation first, then case, as model card 002 orders
# them); "start" is a line's first word (or a window's, whose word before is out of sight).
MARK_CONTEXTS = ("start", "none", "pause", "end")
START_CONTEXT, NONE_CONTEXT, PAUSE_CONTEXT, END_CONTEXT = range(len(MARK_CONTEXTS))


def mark_context(written_word: str) -> int:
    """The context a written word gives the next one: ``end`` after . ? ! (also inside ``."`` or ``?)``),
    ``pause`` after any other trailing mark, ``none`` after a bare word. A dotted acronym's own last period
    is part of the word, not a mark (``U.S.`` gives ``none``, ``U.S.,`` ``pause``): the training targets
    write a sentence-final ``U.S.`` with that one period too, and most acronyms stand inside a sentence."""
    _, core, trail = split_edges(written_word)
    if trail.startswith(".") and ACRONYM_CORE.match(core):
        trail = trail[1:]
    if not trail:
        return NONE_CONTEXT
    return END_CONTEXT if ends_sentence(trail) else PAUSE_CONTEXT


def capitalise_sentence_starts(words: list[str], tags: list[Tag]) -> list[Tag]:
    """The tags with one guarantee added: the word after a sentence end that a tag appends (. ? !) starts
    upper-case (deleted words skipped). Sentence ends already in the input (``e.g.``) force nothing."""
    out, after_end = list(tags), False
    for k, (word, tag) in enumerate(zip(words, tags)):
        if tag.deletes:
            continue
        if after_end and starts_lower(tag.apply(word)):
            out[k] = Tag(tag.punct, CAPITAL)
        after_end = ends_sentence(tag.append)
    return out


# ---- what the metrics look at -------------------------------------------------------------------

def looks_cased(lines: list[str]) -> bool:
    """Whether a corpus carries case: at least 1 word in 200 has a capital (a few stray acronyms in an
    otherwise lower-cased corpus do not count)."""
    words = [w for line in lines for w in line.split()]
    return sum(any(ch.isupper() for ch in w) for w in words) >= 0.005 * max(1, len(words))

