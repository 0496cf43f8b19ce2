"""The edit-tag set and its two directions, in one place.

A *tag* is what one source word needs to become its target word. Written out (labels, files) it is a list
of operations; a ``Tag`` holds them as fields (``prepend``, ``append``, ``acronym``, ``deletes``, ``case``),
and ``Tag.punct`` / ``str(tag)`` / ``Tag.parse`` are the one place that writes and reads the strings:

* ``$APPEND_<marks>``   marks written right after the word (``York`` -> ``York,``; ``?!``, ``."`` or ``。`` too)
* ``$PREPEND_<marks>``  marks written right before it (``¿``, ``¡``, an opening quote or bracket)
* ``$TRANSFORM_CASE_CAPITAL`` / ``_UPPER`` / ``_LOWER``, or ``$TRANSFORM_CASE_CHARS_0,2`` for mixed case
  (the positions of the upper-case characters: McDonald -> ``CHARS_0,2``, iPhone -> ``CHARS_1``)
* ``$ACRONYM``         a period after every letter (model card 002's ``<ACRONYM>``: ``usa`` -> ``U.S.A.``, ``am`` ->
                        ``a.m.``); its last period also ends a sentence (``in the U.S.`` takes no second one)
* ``$CASE_UNKNOWN``     the target's case is not known (an uncased corpus): nothing is taught about case
* ``$DELETE``           drop the word (a disfluency: ``uh``, a repeated or abandoned phrase); what it carried
                        moves to its neighbours (``alignment.resolve_deletions``: ``Uh, so we`` -> ``So we``)
* ``$KEEP``             none of the above

Case and punctuation are *separate* tag parts, predicted by separate heads, so a word that needs both
(``new york , usa`` -> ``New York, USA``) keeps both in its target; the case part can be masked out of the
loss on its own when the corpus has no case. In files the operations of one word are joined by
``SEPL__SEPR`` and the word and its tag by ``SEPL|||SEPR``, as in GECToR.

Directions:
  ``tags_from_pair(source_words, target_text, deletions=False) -> [Tag]``  (target -> tags; raises
  ``AlignmentError``; with ``deletions`` the target may leave source words out; how the words correspond
  is ``alignment``'s)
  ``apply_tags(source_words, tags) -> str``               (tags -> text; the exact inverse)
The words are ``units.split_units`` units: in Chinese or Japanese every character is one, so a mark can
follow any character. Labels are script-neutral (``，`` and ``,`` are one label); the line's script picks
how a mark is written (``render_marks``: full-width where most units are continuous-script).
Normalisation: ``apply_tags`` writes marks attached to their word and words separated by one space (none
between Chinese characters), so the round trip holds modulo the spacing around punctuation (``York , USA``
comes back as ``York, USA``) and the width of marks.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

# Facts about marks of every script live in units.py, what ends a sentence in sentences.py, how target words
# stand to source words in alignment.py; each is imported from its home.
from gector_punct.text.alignment import (AlignmentError, Target, fits, left_out, mismatch, resolve_deletions,
                                         target_words, word_edit)
from gector_punct.text.sentences import ACRONYM_CORE, ends_sentence, ends_sentence_after, own_period, undotted
from gector_punct.text.units import (SEPARATORS_TO_ASCII, TO_ASCII, TO_WIDE, is_continuous, is_wide, join_units,
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

def make_source(target_line: str) -> str:
    """ASR-like source of a restored line: lower-case, marks at word edges removed (inner ' and - kept),
    dotted acronyms spelled as one word (``U.S.`` -> ``us``), no spaces between Chinese characters."""
    cores = (split_edges(unit)[1] for unit in split_units(target_line))
    return join_units([undotted(core).lower() for core in cores if core])


@dataclass(frozen=True, kw_only=True)
class Tag:
    """The edit of one word: the marks written before it (``prepend``) and after it (``append``), whether it is
    dotted as an acronym, whether it is deleted (``deletes``; a deleted word takes no marks), and ``case``
    (a case-head label). ``punct`` is the punctuation-head label of the first four parts; ``str`` and
    ``parse`` write and read the whole tag. Tags are immutable: change one with ``dataclasses.replace``."""

    prepend: str = ""
    append: str = ""
    acronym: bool = False
    deletes: bool = False
    case: str = KEEP

    def __post_init__(self) -> None:
        if self.deletes and self.adds_marks:
            raise ValueError(f"a deleted word takes no marks: {self!r}")
        if self.case not in (KEEP, CASE_UNKNOWN) and not self.case.startswith(CASE_PREFIX):
            raise ValueError(f"unknown case operation {self.case!r}")

    @cached_property
    def punct(self) -> str:
        """The punctuation-head label: ``$DELETE``, or the operations ``$PREPEND_``, ``$ACRONYM``, ``$APPEND_``
        in that order, joined by ``OP_SEP``, or ``$KEEP``. The one place labels are written."""
        if self.deletes:
            return DELETE
        ops = ([PREPEND + self.prepend] if self.prepend else []) + ([ACRONYM] if self.acronym else []) \
            + ([APPEND + self.append] if self.append else [])
        return OP_SEP.join(ops) or KEEP

    def __str__(self) -> str:
        ops = [op for op in (self.case, self.punct) if op != KEEP]
        return OP_SEP.join(ops) if ops else KEEP

    @classmethod
    def parse(cls, text: str) -> Tag:
        """The tag ``text`` writes (``str``'s inverse; a punctuation or a case label alone is a tag too). The
        operations may come in any order; several ``$PREPEND_`` or ``$APPEND_`` ones join in theirs. The one
        place labels are read."""
        prepend, append, acronym, deletes, case = "", "", False, False, KEEP
        for op in text.split(OP_SEP):
            if op.startswith(CASE_PREFIX) or op == CASE_UNKNOWN:
                case = op
            elif op.startswith(PREPEND):
                prepend += op[len(PREPEND):]
            elif op.startswith(APPEND):
                append += op[len(APPEND):]
            elif op == ACRONYM:
                acronym = True
            elif op == DELETE:
                deletes = True
            elif op != KEEP:
                raise ValueError(f"unknown tag operation {op!r} in {text!r}")
        return cls(prepend=prepend, append=append, acronym=acronym, deletes=deletes, case=case)

    @classmethod
    def from_labels(cls, punct: str, case: str) -> Tag:
        """The tag of a punctuation-head label and a case-head label (``punct`` and ``case`` give them back)."""
        tag = cls.parse(punct)
        if tag.case != KEEP:
            raise ValueError(f"{punct!r} is not a punctuation label")
        return replace(tag, case=case)

    @property
    def adds_marks(self) -> bool:
        """Whether the tag writes marks around its word (an acronym's periods count)."""
        return bool(self.prepend or self.append or self.acronym)

    @property
    def is_edit(self) -> bool:
        """Whether the tag changes its word (an unknown case is no change: nothing is known to be wrong)."""
        return self.adds_marks or self.deletes or self.case not in (KEEP, CASE_UNKNOWN)

    def apply(self, word: str) -> str:
        """The written word: prepended marks + the word in its new case + appended marks. Deletion is the
        caller's to honour (scoring keeps every word aligned; ``apply_tags`` drops deleted ones)."""
        word = apply_case(word, self.case)
        if not self.acronym:
            return self.prepend + word + self.append
        lead, core, trail = split_edges(word)
        dotted = "".join(ch + "." for ch in core if ch != ".")
        return self.prepend + lead + dotted + trail + self.append.removeprefix(".")


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


def _latin(ch: str) -> bool:
    return ch.isalpha() and not is_continuous(ch)


def render_marks(forms: list[str | None], units: list[str]) -> list[str | None]:
    """The written units with each edge mark in the form the line's script takes (``units.is_wide``), but a
    separating mark between two Latin words, which stays ASCII in a wide line too (``他说：Hello world, how are
    you？``; brackets and quotes keep the line's form, so that a pair stays alike); inner characters and a
    word's own period (``sentences.own_period``: ``U.S.A.``) stay as they are. None (a deleted unit) stays None."""
    wide = is_wide(units)
    table = TO_WIDE if wide else TO_ASCII
    cores = [split_edges(f)[1] if f is not None else "" for f in forms] if wide else []
    out: list[str | None] = []
    for k, form in enumerate(forms):
        if form is None:
            out.append(None)
            continue
        lead, core, trail = split_edges(form)
        own = 1 if own_period(core, trail) else 0
        marks = trail[own:].translate(table)
        if wide and marks and core[-1:] and _latin(core[-1]):
            after = next((c for c in cores[k + 1:] if c), "")
            if after[:1] and _latin(after[0]):
                marks = marks.translate(SEPARATORS_TO_ASCII)
        out.append(lead.translate(table) + core + trail[:own] + marks)
    return out


def tags_from_pair(source_words: list[str], target_line: str, cased: bool = True,
                   deletions: bool | list[bool] = False) -> list[Tag]:
    """The tags that turn ``source_words`` into ``target_line``.

    ``cased=False`` for a corpus without case: every case part becomes ``$CASE_UNKNOWN`` (masked in the loss).
    ``deletions=True`` (disfluency data): the target may leave source words out; they get ``$DELETE``
    (``alignment.left_out`` chooses which: of repeated words the later copy is kept, where the marks
    allow); a list of flags says which words are left out instead (gold annotation). Raises
    ``AlignmentError`` when the words differ by more than case and edge punctuation (and, with
    ``deletions``, left-out words)."""
    targets = target_words(target_line)
    if not isinstance(deletions, list) and len(targets) == len(source_words):
        return _word_tags(source_words, targets, cased)
    if deletions is False or len(targets) > len(source_words):
        raise AlignmentError(mismatch(source_words, [t[1] for t in targets]))
    deleted = deletions if isinstance(deletions, list) else left_out(source_words, targets)
    return _tags_with_deletions(source_words, targets, deleted, cased)


def _tags_with_deletions(source_words: list[str], targets: list[Target], deleted: list[bool],
                         cased: bool) -> list[Tag]:
    if len(deleted) != len(source_words) or len(source_words) - sum(deleted) != len(targets):
        raise AlignmentError(f"{sum(deleted)} of {len(source_words)} words flagged deleted, but the target has "
                             f"{len(targets)} words")
    kept = [i for i, gone in enumerate(deleted) if not gone]
    effective = resolve_deletions(source_words, deleted)
    tags = [Tag(deletes=True, case=KEEP if cased else CASE_UNKNOWN)] * len(source_words)
    for i, tag in zip(kept, _word_tags([effective[i] for i in kept], targets, cased)):
        tags[i] = tag
    return tags


def _word_tags(source_words: list[str], targets: list[Target], cased: bool) -> list[Tag]:
    """Word-for-word tags: each source word against its (prepend, core, append) target word."""
    tags = []
    for i, (word, target) in enumerate(zip(source_words, targets)):
        tag = _word_tag(word, target, cased)
        if tag is None and fits(split_edges(word)[1], target):
            raise AlignmentError(f"word {i + 1}: source {word!r} has marks the target {''.join(target)!r} lacks")
        if tag is None:
            raise AlignmentError(mismatch(source_words, [t[1] for t in targets], i))
        tags.append(tag)
    return tags


def _word_tag(word: str, target: Target, cased: bool) -> Tag | None:
    """The tag of ``alignment.word_edit``, or None where no tag turns ``word`` into ``target``."""
    edit = word_edit(word, target)
    if edit is None:
        return None
    case = case_tag(edit.case_from, edit.case_to) if cased else CASE_UNKNOWN
    return Tag(prepend=edit.prepend, append=edit.append, acronym=edit.acronym, case=case)


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
    write a sentence-final ``U.S.`` with that one period too, and most acronyms stand inside a sentence.
    A listed abbreviation's period (``Mr.``, ``etc.``) counts as a mark here, unlike in
    ``sentences.ends_sentence_after``: the shipped models' case heads were trained on these contexts."""
    _, core, trail = split_edges(written_word)
    if trail.startswith(".") and ACRONYM_CORE.match(core):
        trail = trail[1:]
    if not trail:
        return NONE_CONTEXT
    return END_CONTEXT if ends_sentence(trail) else PAUSE_CONTEXT


def capitalise_sentence_starts(words: list[str], tags: list[Tag]) -> list[Tag]:
    """The tags with one guarantee added: the word after a sentence end (``sentences.ends_sentence_after``
    with the next word not known: . ? ! that a tag appends or that the input already has, not the own
    period of ``U.S.``, ``Mr.`` or ``e.g.``) starts upper-case. Deleted words and words without a letter or
    digit (an emoji, a symbol) are passed over."""
    out, after_end = list(tags), False
    for k, (word, tag) in enumerate(zip(words, tags)):
        if tag.deletes or not any(ch.isalnum() for ch in word):
            continue
        written = tag.apply(word)
        if after_end and starts_lower(written):
            out[k] = replace(tag, case=CAPITAL)
        after_end = ends_sentence_after(written)
    return out


# ---- what the metrics look at -------------------------------------------------------------------

def looks_cased(lines: list[str]) -> bool:
    """Whether a corpus carries case: at least 1 word in 200 has a capital (a few stray acronyms in an
    otherwise lower-cased corpus do not count)."""
    words = [w for line in lines for w in line.split()]
    return sum(any(ch.isupper() for ch in w) for w in words) >= 0.005 * max(1, len(words))

