"""One line on its way through the decoding's rules (``line_rules``, ``sentence_rules``): ``Reading`` (how
the lines of a call are read), ``Evidence`` (what the model says of each word), ``Line`` (words, tags so far,
the given words' tags) and ``decide`` (a line through rules in order); and what several rules read of a line:
``closed_sentences`` (the sentences its tags close), ``is_name`` and ``known_name`` (a word written as a name),
``constrained`` (a tag limited to what its word allows, cached) and ``cased_after`` (a word's tag in the case
the model gives it after a mark that a rule put or took away).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from gector_punct.model.config import DecodeConfig
from gector_punct.text.case_forms import NAME_SHARE, CaseForms
from gector_punct.text.existing import constrain
from gector_punct.text.repeats import core as _core
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.tags import KEEP, MARK_CONTEXTS, Tag
from gector_punct.text.units import split_edges, starts_lower


@dataclass(frozen=True)
class Reading:
    """How the lines of one call are read: the tasks on, the decoding knobs, the case forms (None: none),
    ``whole`` (each line is a whole utterance) and ``opens`` (each line begins one)."""
    tasks: frozenset[str]
    config: DecodeConfig = field(default_factory=DecodeConfig)
    case_forms: CaseForms | None = None
    whole: bool = False
    opens: bool = False


@dataclass(frozen=True)
class Evidence:
    """What the model says of one line's words, a list per fact, one entry per word: ``punct``, its likeliest
    punctuation label other than ``$DELETE`` (``$KEEP`` where that label's score, ``additional_confidence``
    added to ``$KEEP``'s, is below ``min_error_probability``); ``case``, per mark context of the word before
    (``tags.MARK_CONTEXTS``), its likeliest case label (``$KEEP`` likewise); ``error``, P(INCORRECT) of the
    detection head; ``delete``, P($DELETE) (None: the labels have no ``$DELETE``); ``sentence_end``,
    ``exclaim``, ``question_opening``, ``asking``, ``exclamation_opening``: P of its labels that end a sentence
    (not trailing off with ``...``), that end with ``!``, that open with ``¿``, that end with ``?``, that open
    with ``¡``; ``last_mark``: the sentence mark (. ? !) likeliest at the line's last word."""
    punct: list[str]
    case: list[tuple[str, ...]]
    error: list[float]
    delete: list[float] | None
    sentence_end: list[float]
    exclaim: list[float]
    question_opening: list[float]
    asking: list[float]
    exclamation_opening: list[float]
    last_mark: str = "."

    @classmethod
    def none(cls, n_words: int) -> Evidence:
        """The evidence of a model that is sure no word of the line needs an edit."""
        zeros = [0.0] * n_words
        return cls([KEEP] * n_words, [(KEEP,) * len(MARK_CONTEXTS)] * n_words, zeros, None, zeros, zeros, zeros,
                   zeros, zeros)


@dataclass(frozen=True)
class Line:
    """One line between two rules (module docstring). ``deletions``: the oracle's, per word (None: decided)."""
    words: list[str]
    tags: list[Tag]
    evidence: Evidence
    reading: Reading
    given: list[Tag] = field(default_factory=list)
    deletions: list[bool] | None = None

    @classmethod
    def start(cls, words: list[str], evidence: Evidence, reading: Reading, given: list[Tag] | None = None,
              deletions: list[bool] | None = None) -> Line:
        """A line before the rules: its given words with their tags, every other word unchanged."""
        return cls(words, [], evidence, reading, list(given or []), deletions).retagged([Tag()] * len(words))

    def retagged(self, tags: list[Tag]) -> Line:
        """This line with ``tags``, except that its given words keep their given tags."""
        n = len(self.given)
        tags = self.given + list(tags[n:]) if n else list(tags)
        return Line(self.words, tags, self.evidence, self.reading, self.given, self.deletions)


def decide(line: Line, rules: tuple[Callable[[Line], Line], ...]) -> Line:
    """``line`` through ``rules`` in their order."""
    for rule in rules:
        line = rule(line)
    return line


# per word and tag: the same ones come back again and again
constrained = lru_cache(maxsize=1 << 16)(constrain)


def closed_sentences(words: list[str], tags: list[Tag]) -> list[list[int]]:
    """The kept words of each sentence the tags close with a mark of their own (not the input's), in order; a
    sentence still open at the line's end is not one."""
    spans, span = [], []
    for k, (word, tag) in enumerate(zip(words, tags)):
        if tag.deletes:
            continue
        span.append(k)
        if ends_sentence_after(tag.apply(word)):
            if not split_edges(word)[2]:
                spans.append(span)
            span = []
    return spans


def cased_after(line: Line, k: int, tag: Tag, context: int) -> Tag:
    """``tag`` for word ``k`` with the case the model gives the word after a mark context (``tags.
    MARK_CONTEXTS``: a rule that turns a sentence end into a comma reads the pause context, one that takes a
    mark away the none context), limited to what the word allows."""
    return constrained(line.words[k], replace(tag, case=line.evidence.case[k][context]))


def is_name(line: Line, k: int) -> bool:
    """Whether word ``k`` is written as a name: the tags give it a capital, or the case forms know it as one."""
    return not starts_lower(line.tags[k].apply(line.words[k])) or known_name(line, k)


def known_name(line: Line, k: int) -> bool:
    """Whether the case forms know word ``k`` as a name (written with a capital at least ``NAME_SHARE`` of
    the time)."""
    forms = line.reading.case_forms
    known = forms.forms.get(_core(line.words[k])) if forms else None
    return known is not None and known.share >= NAME_SHARE
