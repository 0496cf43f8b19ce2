"""What ends a sentence, in one place: the marks that end one, the words whose period is their own (dotted
acronyms, abbreviations) and where the sentences of a written line end.

In: written words with their marks attached (``units.split_units`` units), or a written line. Out: whether a
sentence ends after a word, a line's sentences, an acronym spelled as one word.

* ``SENTENCE_END`` and ``ends_sentence(marks)``: the marks that end a sentence in every script (``. ? ! …`` and
  the full-width ``。？！``), read off marks alone: a label's mark, what a tag appends, the trailing marks of a
  word whose period is not in question.
  ``ELLIPSES``: the marks of a sentence that trails off (``...``, ``…``).
* Dotted acronyms: ``ACRONYM_CORE`` matches the core of one (``U.S``, ``a.m``, ``N.A.S.A``: the last period is
  a trailing mark); ``is_dotted_acronym(word)``: the word is one with its last period and nothing else
  (``u.s.``); ``undotted(word)``: one spelled as one word, its last period gone with its dots (``(U.S.),`` ->
  ``(US),``, ``U.S`` -> ``US``), what the training sources and the encoder read; other words unchanged.
* Abbreviations: ``TITLE_ABBREVIATIONS`` (``Mr.``: a name follows), ``LOWER_ABBREVIATIONS`` (``e.g.``,
  ``etc.``, ``a.m.``; lower-case as written), of which ``CLOSING_ABBREVIATIONS`` (``etc.``, ``a.m.``) may
  close a sentence while the others (``e.g.``, ``i.e.``, ``vs.``) introduce what follows.
* ``ends_sentence_after(word, following)``, ``sentence_ends(words)``, ``split_sentences(line)``: the rule.

The rule. A written word ends a sentence when its trailing marks do (``ends_sentence``), unless its first
trailing period is its own (``own_period``: a dotted acronym, a title, a listed abbreviation). Then the marks
after that period decide (``etc.?`` ends one, ``U.S.,`` does not), and where there are none:
* a title or an introducing abbreviation never ends a sentence (``Mr. Smith``, ``e.g. Boston``);
* a dotted acronym or a closing abbreviation ends one only before a word that starts upper-case and is one of
  the ``SENTENCE_OPENERS`` (pronouns, articles, conjunctions, ``Then``, ``Now``: words that take a capital
  at a sentence start, not as a name): ``D.C. Now she ...`` and ``at 5 p.m. I left`` end there; ``the U.S.
  last week`` (lower-case) and ``the U.S. Army`` (a capital that is a name's) do not. The capital alone cannot
  tell a name from a sentence start, so a sentence that ends on an acronym and goes on with a name (``... in
  the U.S. Obama said``) stays one;
* with the next word unknown (``following=None``) an own period ends nothing: the writer
  (``tags.capitalise_sentence_starts``) decides the next word's capital from this rule, so it cannot ask
  that word's case, and an acronym or abbreviation there leaves the next word as the tagger wrote it.
A single letter with a period (``B.``) is no acronym: its period ends a sentence like any other.
"""
from __future__ import annotations

import re

from gector_punct.text.units import join_units, split_edges, split_units, unit_spacing

SENTENCE_END = frozenset(".?!…。？！")
SENTENCE_MARKS = ".?!"  # the sentence marks a tag writes, narrow (``units.narrow_marks``), in label order
INVERTED_QUESTION = "¿"  # opens a Spanish question that ? closes
INVERTED_EXCLAMATION = "¡"  # opens a Spanish exclamation that ! closes
INVERTED = {"?": INVERTED_QUESTION, "!": INVERTED_EXCLAMATION}  # a sentence mark -> what opens its sentence in Spanish
ELLIPSES = frozenset({"...", "…"})  # marks that trail off: a sentence left open, not one that ends
ACRONYM_CORE = re.compile(r"^(?:[^\W\d_]\.)+[^\W\d_]$")  # two or more letters, each but the last with its period
TITLE_ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "st.", "prof."})
LOWER_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "a.m.", "p.m.", "viz.", "approx.", "ca.", "al."})
CLOSING_ABBREVIATIONS = frozenset({"etc.", "a.m.", "p.m.", "al."})
CLOSERS = "\"')]}»›”’」』）】〉》"  # closing quotes and brackets: they neither end a sentence nor continue it
_ABBREVIATIONS = TITLE_ABBREVIATIONS | LOWER_ABBREVIATIONS
# Words that open sentences and are no name's: after an acronym's period their capital marks a sentence start.
SENTENCE_OPENERS = frozenset(
    "i we you he she it they this that these those there here the a an my our your his her their its some "
    "and but so or then now well yes no oh if when what how why where who which because after before also "
    "in on at as for to of with from by do does did don can is are was were let".split())


def trails_off(marks: str) -> bool:
    """Whether marks end with an ellipsis (``...``, ``…``, ``..."``): the speaker trailed off."""
    marks = marks.rstrip(CLOSERS)
    return any(marks.endswith(e) for e in ELLIPSES)


def ends_sentence(marks: str) -> bool:
    """Whether marks end a sentence (``.``, ``?"``, ``!)``, ``。`` ...), the word before them not asked."""
    return any(ch in SENTENCE_END for ch in marks)


def is_dotted_acronym(word: str) -> bool:
    """``u.s.``, ``e.g.``: a dotted acronym with its last period, with no other mark around it."""
    lead, core, trail = split_edges(word)
    return not lead and trail == "." and bool(ACRONYM_CORE.match(core))


def undotted(word: str) -> str:
    """A dotted acronym spelled as one word, its own last period gone with its dots (``u.s.`` -> ``us``,
    ``(U.S.),`` -> ``(US),``, the core ``U.S`` -> ``US``); any other word as it is."""
    if "." not in word:
        return word
    lead, core, trail = split_edges(word)
    if not ACRONYM_CORE.match(core):
        return word
    return lead + core.replace(".", "") + trail.removeprefix(".")


def own_period(core: str, trail: str) -> bool:
    """Whether the first of a word's trailing marks is a period of its own: a dotted acronym's last
    (``U.S`` + ``.``) or a listed abbreviation's (``Mr`` + ``.``, ``etc`` + ``.,``)."""
    if not trail.startswith("."):
        return False
    return bool(ACRONYM_CORE.match(core)) or core.lower() + "." in _ABBREVIATIONS


def opens_sentence(word: str) -> bool:
    """Whether a written word is a sentence opener (``SENTENCE_OPENERS``) starting upper-case (``Then``,
    ``I'm``)."""
    core = split_edges(word)[1]
    first = next((ch for ch in core if ch.isalpha()), "")
    return first.isupper() and re.split(r"['’]", core.lower())[0] in SENTENCE_OPENERS


def ends_sentence_after(word: str, following: str | None = None) -> bool:
    """Whether a sentence ends after the written ``word`` when ``following`` comes next (None: not known),
    as the module's rule says."""
    _, core, trail = split_edges(word)
    if not own_period(core, trail):
        return ends_sentence(trail)
    if ends_sentence(trail[1:]):
        return True
    if trail[1:].strip(CLOSERS):  # a comma, a colon ... after its own period: the sentence goes on
        return False
    name = core.lower() + "."
    if name in TITLE_ABBREVIATIONS or (name in LOWER_ABBREVIATIONS and name not in CLOSING_ABBREVIATIONS):
        return False
    return following is not None and opens_sentence(following)


def sentence_ends(words: list[str]) -> list[bool]:
    """Per written word, whether a sentence ends after it, each read with the word after it."""
    return [ends_sentence_after(word, words[k + 1] if k + 1 < len(words) else None) for k, word in enumerate(words)]


def split_sentences(line: str) -> list[str]:
    """A written line cut after every word that ends a sentence (``sentence_ends``), each piece spaced as the
    line was; an empty line gives none."""
    units, spacing = split_units(line), unit_spacing(line)
    sentences, start = [], 0
    for k, ends in enumerate(sentence_ends(units)):
        if ends or k == len(units) - 1:
            sentences.append(join_units(units[start: k + 1], spacing[start: k + 1]))
            start = k + 1
    return sentences
