"""The decoding's rules for English sentences, each a pure function ``Line -> Line`` (``decoded_line``) run in
``line_rules.LINE_RULES``' order, on lines with an English word (``speech.is_english``) and the sentence ends
their tags close (``decoded_line.closed_sentences``): a greeting set off with a comma (``greet_with_commas``),
a ``?`` on a sentence that does not ask turned to ``.`` (``plain_statements``), a ``.`` on a sentence whose
word order asks turned to ``?`` (``ask_inverted_questions``), a subordinate clause joined to the sentence after
it (``join_subordinate_clauses``). The words they read are ``text.speech``'s.
"""
from __future__ import annotations

from dataclasses import replace

from gector_punct.prediction.decoded_line import Line, closed_sentences, constrained, is_name
from gector_punct.text.repeats import core as _core
from gector_punct.text.speech import (ADDRESSEES, SUBJECTS, WAKE_WORDS, asks, asks_for_any, greeting_length, inversion, inverted, is_english,
                                      subordinate)
from gector_punct.text.tags import PAUSE_CONTEXT, Tag
from gector_punct.text.units import narrow_marks, split_edges


def _marked_inside(words: list[str], tags: list[Tag], span: list[int]) -> list[int]:
    """The places ``i`` in a sentence's ``span`` (its last word apart) after which a mark stands, the tags' or
    the input's: where its clauses part (``Lisa, do you``)."""
    return [i for i, k in enumerate(span[:-1]) if tags[k].append or split_edges(words[k])[2]]


def _join_with_comma(line: Line, tags: list[Tag], end: int, after: int) -> None:
    """``tags`` with word ``end``'s sentence mark turned into a comma, and word ``after``, the next kept one,
    in the case the model gives it after a comma (``Evidence.case``)."""
    tags[end] = replace(tags[end], append=",")
    tags[after] = constrained(line.words[after], replace(tags[after], case=line.evidence.case[after][PAUSE_CONTEXT]))


def greet_with_commas(line: Line) -> Line:
    """A greeting the tags exclaim as a sentence of its own (``speech.greeting_length``: ``Hello!``, ``Good
    morning!``, and with a name or an addressee after it: ``Hey Siri!``, ``Hi everyone!``) and that the line
    goes on from is set off with a comma, as an editor writes it (``Hello, thank you for calling``): a greeting
    is not an exclamation. The next word takes the case the model gives it after a comma (``Evidence.case``).
    A greeting the tags end with ``.`` (``Good afternoon. My name is``) or ``?`` (``Hello?`` on a call) stays
    a sentence. An addressee or a voice assistant's name goes with its greeting (``speech.WAKE_WORDS``): no
    comma between them (``Hey, Siri, set a timer`` -> ``Hey Siri, set a timer``; ``Hi, everyone!`` -> ``Hi
    everyone!``); a person's name keeps its comma of address (``Hey, Michael, ...``), as edited transcripts
    write it."""
    words, out = line.words, list(line.tags)
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for span in closed_sentences(words, out):
        n = greeting_length([_core(words[k]) for k in span])
        if n and len(span) > n and out[span[n - 1]].append == "," and (out[span[n]].append or len(span) == n + 1) \
                and _core(words[span[n]]) in ADDRESSEES | WAKE_WORDS and span[n - 1] >= len(line.given):
            out[span[n - 1]] = replace(out[span[n - 1]], append="")
        end = span[-1]
        after = next((k for k in kept if k > end), None)
        if not n or after is None or after < len(line.given) or not narrow_marks(out[end].append).endswith("!"):
            continue
        if len(span) != n and not (len(span) == n + 1 and (is_name(line, end) or _core(words[end]) in ADDRESSEES)):
            continue
        _join_with_comma(line, out, end, after)
    return line.retagged(out)


# A ``?`` on a sentence that does not ask by its words stays when the model gives its ``?`` labels at least
# this probability together (a question said as a statement: "you condemn their interference?").
SURE_QUESTION = 0.8


def plain_statements(line: Line) -> Line:
    """In an English line (``speech.is_english``), a sentence the tags close with ``?`` none of whose clauses
    asks (``speech.asks`` of the sentence from its start and from each pause mark on: ``Lisa, do you ...``
    asks) is closed with ``.``, unless its ``?`` is ``SURE_QUESTION`` probable (``Evidence.asking``): ``Ok
    then?``, ``If not?`` are the model's ``?`` spreading from a question beside them."""
    words, out = line.words, list(line.tags)
    if not any("?" in t.append for t in out) or not is_english([_core(w) for w in words]):
        return line
    for span in closed_sentences(words, out):
        end, cores = span[-1], [_core(words[k]) for k in span]
        starts = [0] + [i + 1 for i in _marked_inside(words, out, span)]
        if "?" in narrow_marks(out[end].append) and line.evidence.asking[end] < SURE_QUESTION \
                and not any(asks(cores[i:]) for i in starts):
            out[end] = replace(out[end], append=narrow_marks(out[end].append).replace("?", "."))
    return line.retagged(out)


def ask_inverted_questions(line: Line) -> Line:
    """In an English line, a sentence the tags close with ``.`` that opens as a question by its word order
    (``speech.inverted``: ``Do you want to come with us tomorrow.``, ``How much does it cost.``) or asks for
    something with ``any`` (``speech.asks_for_any``: ``Any questions before we move on.``), from its start or
    after one word set off by a pause (``Lisa, do you ...``), is closed with ``?``. It stays where the
    line is read as a fragment (``--fragments``) and the sentence is its first or last (not known to start or
    end there), where a pause follows a condition's inversion (``should you need help, call``; ``were it not
    for``), and where the period may be an initial's (``Roe v.``, ``Michael J.``)."""
    words, out = line.words, list(line.tags)
    if not any("." in t.append for t in out) or not is_english([_core(w) for w in words]):
        return line
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for span in closed_sentences(words, out):
        if not line.reading.whole and (span[-1] == kept[-1] or (span[0] == kept[0] and not line.reading.opens)):
            continue  # a line cut anywhere may begin and end inside a sentence
        end, cores = span[-1], [_core(words[k]) for k in span]
        pauses = _marked_inside(words, out, span)
        opens = 0 if inverted(cores) or asks_for_any(cores) else \
            1 if pauses[:1] == [0] and _asks_after_name(cores[1:]) else None
        if opens is None or narrow_marks(out[end].append)[-1:] != "." or len(cores[-1]) == 1 or \
                (cores[opens] in CONDITIONAL_OPENERS and any(i > opens for i in pauses)):
            continue
        out[end] = replace(out[end], append=narrow_marks(out[end].append)[:-1] + "?")
    return line.retagged(out)


CONDITIONAL_OPENERS = frozenset({"should", "were"})
# A sentence of one subordinate clause longer than this is likelier a main clause the tags ran into it.
SUBORDINATE_WORDS = 8


def join_subordinate_clauses(line: Line) -> Line:
    """In an English line, a sentence the tags close with ``.`` that is one subordinate clause (``speech.
    subordinate``: ``Before we wrap up.``, ``If not.``, ``When I was young.``; of at most ``SUBORDINATE_WORDS``
    words and no pause mark inside) and that the line goes on from is joined to the next sentence with a
    comma, as an editor writes it (``Before we wrap up, does anyone ...?``): a subordinate clause is no
    sentence. The next word takes the case the model gives it after a comma (``Evidence.case``). It stays
    where the line is read as a fragment and the sentence is its first (not known to start there)."""
    words, out = line.words, list(line.tags)
    if not any("." in t.append for t in out) or not is_english([_core(w) for w in words]):
        return line
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for span in closed_sentences(words, out):
        end = span[-1]
        after = next((k for k in kept if k > end), None)
        if after is None or after < len(line.given) or narrow_marks(out[end].append) != "." or \
                (span[0] == kept[0] and not (line.reading.whole or line.reading.opens)):
            continue
        if _marked_inside(words, out, span) or not subordinate([_core(words[k]) for k in span], SUBORDINATE_WORDS):
            continue
        _join_with_comma(line, out, end, after)
    return line.retagged(out)


def _asks_after_name(cores: list[str]) -> bool:
    """After one word set off by a pause (``Lisa, do you``, ``John, what do you think``): an inverted question
    whose auxiliary has a pronoun after it (``Chicago, which has the toughest`` opens a relative clause)."""
    words = [c for c in cores if c]
    at = inversion(words)
    return at is not None and at + 1 < len(words) and words[at + 1] in SUBJECTS
