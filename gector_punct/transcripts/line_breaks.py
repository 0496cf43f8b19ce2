"""Where a subtitle line or cue may end: the style guides' line-break rules, shared by the cue builder (which
prefers the best place) and the checker (which reports a line that ends where it never should).

``line_end_fault(word, language, following) -> str | None``: why a line (or a cue) must not end with the
written ``word`` (an ``article``, a ``preposition``, a ``conjunction``, a ``possessive``, a ``subject pronoun``,
an ``auxiliary`` (``had``, ``was``, ``will``, ``don't``: a verb and its auxiliary stay together) or a
``negation`` (``not``) with no mark after it; a noun's ``'s`` possessive may end one before a conjunction:
*our children's / and grandchildren's*), None where it may. The word lists are English's (Netflix's and the BBC's rules name
English words); in another language only marks say where to break, so no word is a fault.

``break_cost(left, right, language) -> int``: how good a break between two written words is, the lower the
better: after a sentence end ``SENTENCE``, after a clause mark ``CLAUSE``, before a conjunction or a
preposition ``BEFORE_LINK``, between two other words ``PLAIN``, and ``NEVER`` after a word that may not end a
line, between a first and a last name (two capitalised words) or inside a number (after a number, before
its unit or its next word).
"""
from __future__ import annotations

import functools

from gector_punct.text.alignment import PAUSE_MARKS
from gector_punct.text.numbers.readers import is_number_word
from gector_punct.text.sentences import SENTENCE_END
from gector_punct.text.speech import AUXILIARIES
from gector_punct.text.units import narrow_marks, split_edges

SENTENCE, CLAUSE, BEFORE_LINK, PLAIN, NEVER = 0, 1, 2, 4, 40

ARTICLES = frozenset("a an the".split())
POSSESSIVES = frozenset("my your his her its our their whose".split())
PREPOSITIONS = frozenset("""about above across after against along among amongst around at before behind below
beneath beside besides between beyond by despite down during except for from in inside into like near of off on
onto onto out outside over past per since through throughout till to toward towards under underneath until unto
up upon via with within without""".split())
CONJUNCTIONS = frozenset("and but or nor yet because although though unless whereas whether than if when while where "
                         "whenever wherever".split())
SUBJECT_PRONOUNS = frozenset("i he she we they".split())
NEGATIONS = frozenset(["not"])
FAULTS = (("article", ARTICLES), ("possessive", POSSESSIVES), ("preposition", PREPOSITIONS),
          ("conjunction", CONJUNCTIONS), ("subject pronoun", SUBJECT_PRONOUNS), ("auxiliary", AUXILIARIES),
          ("negation", NEGATIONS))
WORD_RULES = ("en",)  # the languages whose word lists these are


def _core(word: str) -> tuple[str, str]:
    """A written word's core in lower case and the marks after it (narrow forms)."""
    _, core, trail = split_edges(word)
    return core.lower(), narrow_marks(trail)


def line_end_fault(word: str, language: str | None = "en", following: str | None = None) -> str | None:
    core, trail = _core(word)
    if trail or language not in WORD_RULES:
        return None
    if core.endswith(("'s", "’s")) and len(core) > 2:  # a noun's possessive, unless it is joined to another
        return None if following is not None and _core(following)[0] in CONJUNCTIONS else "possessive"
    return next((name for name, words in FAULTS if core in words), None)


def is_name(word: str) -> bool:
    """A capitalised word of letters (not ``I``): a name's part where no sentence starts."""
    core = split_edges(word)[1]
    return core[:1].isupper() and core.isalpha() and core != "I"


def is_number(word: str) -> bool:
    """Whether a written word is a number's (digits, or a number word as spoken)."""
    return _number_core(_core(word)[0])


@functools.lru_cache(maxsize=4096)
def _number_core(core: str) -> bool:
    return any(ch.isdigit() for ch in core) or is_number_word(core)


def break_cost(left: str, right: str, language: str | None = "en") -> int:
    core, trail = _core(left)
    if any(ch in SENTENCE_END for ch in trail):
        return SENTENCE
    if any(ch in PAUSE_MARKS for ch in trail):
        return CLAUSE
    if trail:
        return PLAIN  # a closing quote or bracket alone
    if line_end_fault(left, language, right) or (is_name(left) and is_name(right)):
        return NEVER
    right_core = _core(right)[0]
    if _number_core(core) and right_core:
        return NEVER
    if language in WORD_RULES and (right_core in CONJUNCTIONS or right_core in PREPOSITIONS):
        return BEFORE_LINK
    return PLAIN
