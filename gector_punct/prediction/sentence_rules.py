"""The decoding's rules for sentences, each a pure function ``Line -> Line`` (``decoded_line``) run in
``line_rules.LINE_RULES``' order on the sentence ends the tags close (``decoded_line.closed_sentences``). In
every language read (en, fr, it, es, de): a greeting set off with a comma (``greet_with_commas``). In the
others: a thanks said alone joined to the short reply before it (``thank_with_commas``), a one-word fragment
the model's ``?`` spread to joined to its question (``join_question_fragments``). On English lines
(``language.language_of``): a ``?`` on a sentence that does not ask turned to ``.`` (``plain_statements``),
a ``.`` on a sentence whose word order asks turned to ``?`` (``ask_inverted_questions``), a subordinate
clause joined to the sentence after it (``join_subordinate_clauses``). The words they read are
``text.speech``'s.
"""
from __future__ import annotations

from dataclasses import replace

from gector_punct.prediction.decoded_line import (Line, cased_after, closed_sentences, constrained, is_name,
                                                  known_name)
from gector_punct.text.language import language_of
from gector_punct.text.repeats import core as _core
from gector_punct.text.sentences import INVERTED_QUESTION
from gector_punct.text.speech import (CONDITIONAL_OPENERS, GREETING_LINKS, NOUN_GREETINGS,
                                      OTHER_ONE_WORD_QUESTIONS, SUBJECTS, THANKING, THANKS, WAKE_WORDS,
                                      addressee_length, asks, asks_for_any, greeting_length, inversion, inverted,
                                      subordinate)
from gector_punct.text.tags import KEEP, NONE_CONTEXT, PAUSE_CONTEXT, Tag
from gector_punct.text.units import narrow_marks, split_edges


def _marked_inside(words: list[str], tags: list[Tag], span: list[int]) -> list[int]:
    """The places ``i`` in a sentence's ``span`` (its last word apart) after which a mark stands, the tags' or
    the input's: where its clauses part (``Lisa, do you``)."""
    return [i for i, k in enumerate(span[:-1]) if tags[k].append or split_edges(words[k])[2]]


def _join_with_comma(line: Line, tags: list[Tag], end: int, after: int) -> None:
    """``tags`` with word ``end``'s sentence mark turned into a comma, and word ``after``, the next kept one,
    in the case the model gives it after a comma (``Evidence.case``)."""
    tags[end] = replace(tags[end], append=",")
    tags[after] = cased_after(line, after, tags[after], PAUSE_CONTEXT)


def greet_with_commas(line: Line) -> Line:
    """A greeting that the line goes on from is set off with a comma, as an editor writes it: one the tags exclaim as a
    sentence of its own (``speech.greeting_length``: ``Hello!``, ``Good morning!``, and with a name or those greeted
    after it: ``Hey Siri!``, ``Hi everyone!``, ``Bonjour à tous.``), or end with ``.`` before a thanks with no name
    between (``speech.THANKING``: ``Bonjour à tous, merci d'être venus``; not ``Hello, Montana. Thank you``), or
    leave unmarked before the rest of its sentence (``Ciao, come stai?``; not a greeting that is a noun too,
    ``Morning is``, nor one a link word goes on from, ``speech.GREETING_LINKS``: ``Hello and welcome``, ``Hello to
    my sisters``): a greeting is not an exclamation. The next word takes the case the model gives it after a comma
    (``Evidence.case``). A greeting the tags end with ``.`` before anything else (``Good afternoon. My name is``) or
    with ``?`` (``Hello?`` on a call) stays a sentence. Those greeted and a voice assistant's name go with their
    greeting (``speech.WAKE_WORDS``): no comma between them (``Hey, Siri, set a timer`` -> ``Hey Siri, set a
    timer``; ``Hi, everyone!`` -> ``Hi everyone!``; ``Buongiorno, a tutti, iniziamo`` -> ``Buongiorno a tutti,
    iniziamo``); a person's name keeps its comma of address (``Hey, Michael, ...``), as edited transcripts
    write it."""
    words, out = line.words, list(line.tags)
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for span in closed_sentences(words, out):
        cores = [_core(words[k]) for k in span]
        n = greeting_length(cores)
        if not n or span[n - 1] < len(line.given):
            continue
        addressed = addressee_length(cores[n:])
        greeted = addressed or int(len(span) == n + 1 and is_name(line, span[-1]))  # words after the greeting
        named = addressed or int(len(span) > n and cores[n] in WAKE_WORDS)  # those greeted or the assistant
        # A sentence's last word carries its closing mark: named words without one go on, and so does the
        # sentence after a greeting word without one.
        if named and out[span[n - 1]].append == "," and out[span[n + named - 1]].append:
            out[span[n - 1]] = replace(out[span[n - 1]], append="")
        elif not out[span[n - 1]].append and not split_edges(words[span[n - 1]])[2] \
                and not greeted and cores[n] not in WAKE_WORDS | GREETING_LINKS and not is_name(line, span[n]) \
                and not (n == 1 and cores[0] in NOUN_GREETINGS):
            _join_with_comma(line, out, span[n - 1], span[n])
            continue
        end = span[-1]
        after = next((k for k in kept if k > end), None)
        if after is None or end < len(line.given) or len(span) != n + greeted:  # its mark already out: stays
            continue
        mark = narrow_marks(out[end].append)
        thanked = mark.endswith(".") and len(span) == n + addressed and _core(words[after]) in THANKING
        if mark.endswith("!") or thanked:
            _join_with_comma(line, out, end, after)
    return line.retagged(out)


def plain_statements(line: Line) -> Line:
    """In an English line (``language.language_of``), a sentence the tags close with ``?`` none of whose clauses
    asks (``speech.asks`` of the sentence from its start and from each pause mark on: ``Lisa, do you ...``
    asks) is closed with ``.``, unless its ``?`` is ``DecodeConfig.sure_question`` probable (``Evidence.asking``): ``Ok
    then?``, ``If not?`` are the model's ``?`` spreading from a question beside them."""
    words, out = line.words, list(line.tags)
    if not any("?" in t.append for t in out) or language_of(words) != "en":
        return line
    for span in closed_sentences(words, out):
        end, cores = span[-1], [_core(words[k]) for k in span]
        starts = [0] + [i + 1 for i in _marked_inside(words, out, span)]
        if "?" in narrow_marks(out[end].append) and line.evidence.asking[end] < line.reading.config.sure_question \
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
    if not any("." in t.append for t in out) or language_of(words) != "en":
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


def join_subordinate_clauses(line: Line) -> Line:
    """In an English line, a sentence the tags close with ``.`` that is one subordinate clause (``speech.
    subordinate``: ``Before we wrap up.``, ``If not.``, ``When I was young.``; of at most
    ``DecodeConfig.subordinate_words`` words and no pause mark inside) and that the line goes on from is joined to the next sentence with a
    comma, as an editor writes it (``Before we wrap up, does anyone ...?``): a subordinate clause is no
    sentence. The next word takes the case the model gives it after a comma (``Evidence.case``). It stays
    where the line is read as a fragment and the sentence is its first (not known to start there)."""
    words, out = line.words, list(line.tags)
    if not any("." in t.append for t in out) or language_of(words) != "en":
        return line
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for span in closed_sentences(words, out):
        end = span[-1]
        after = next((k for k in kept if k > end), None)
        if after is None or end < len(line.given) or narrow_marks(out[end].append) != "." or \
                (span[0] == kept[0] and not (line.reading.whole or line.reading.opens)):
            continue
        if _marked_inside(words, out, span) or \
                not subordinate([_core(words[k]) for k in span], line.reading.config.subordinate_words):
            continue
        _join_with_comma(line, out, end, after)
    return line.retagged(out)


def thank_with_commas(line: Line) -> Line:
    """A thanks the tags make a sentence of its own, one word (``speech.THANKS``: ``Io sto bene. Grazie.``),
    after a short reply they close with ``.`` (at most ``DecodeConfig.reply_words`` words, none of them a thanks), is
    joined to it with a comma and written lower-case, as an editor writes it (``Io sto bene, grazie.``,
    ``Très bien, merci.``). A thanks after a longer sentence (a speech's ``... du tramway. Merci.``),
    after another (``Merci beaucoup. Merci.``), after the first sentence of a line read as a fragment (not
    known to start there) and ``Thank you.`` stay sentences; so does every thanks in an English line
    (``language.language_of``): English dialogue writes it apart (``I bought it. Thanks.``)."""
    words, out = line.words, list(line.tags)
    if not any("." in t.append for t in out) or language_of(words) == "en":
        return line  # no sentence closed with . (the reply's), or English
    spans = closed_sentences(words, out)
    for n, (before, span) in enumerate(zip(spans, spans[1:])):
        end, k = before[-1], span[0]
        if len(span) != 1 or len(before) > line.reading.config.reply_words or _core(words[k]) not in THANKS \
                or any(_core(words[j]) in THANKING for j in before) or narrow_marks(out[end].append) != "." \
                or (n == 0 and not (line.reading.whole or line.reading.opens)) \
                or end + 1 != k or end < len(line.given):
            continue
        out[end] = replace(out[end], append=",")
        out[k] = constrained(words[k], replace(out[k], case=KEEP))
    return line.retagged(out)


def join_question_fragments(line: Line) -> Line:
    """In a line not English (``language.language_of``), a one-word sentence the tags close with ``?``
    after a question of two or more words (``Come stai? Oggi?``) is the question's last word, its ``?`` spread
    by the model: joined to it (``Come stai oggi?``), in the case the model gives it with no mark before. It
    stays where its ``?`` is ``DecodeConfig.sure_question`` probable, where it asks alone (``OTHER_ONE_WORD_QUESTIONS``:
    ``Perché?``, ``¿Cuándo?``) and where it is a name (``Parigi? Londra?``). English is left to
    ``plain_statements``: there such a word mostly opens the next sentence (``... about? Boy, what's that``)."""
    words, out = line.words, list(line.tags)
    if sum("?" in t.append for t in out) < 2 or language_of(words) == "en":
        return line  # no two questions in a row to join, or English
    spans = closed_sentences(words, out)
    for before, span in zip(spans, spans[1:]):
        end, k = before[-1], span[0]
        core = _core(words[k])
        # a one-word sentence: its first word ends it with ? (the first word of a longer one ends none)
        if len(before) < 2 or not narrow_marks(out[k].append).endswith("?") \
                or narrow_marks(out[end].append) != "?" \
                or line.evidence.asking[k] >= line.reading.config.sure_question \
                or core in OTHER_ONE_WORD_QUESTIONS or _named(line, k) \
                or end + 1 != k or end < len(line.given):
            continue
        out[end] = replace(out[end], append="")
        out[k] = cased_after(line, k, replace(out[k], prepend=out[k].prepend.replace(INVERTED_QUESTION, "")),
                             NONE_CONTEXT)
    return line.retagged(out)


def _named(line: Line, k: int) -> bool:
    """Whether word ``k`` is a name wherever it stands: the model capitalises it with no mark before it, or the
    case forms know it as one."""
    return line.evidence.case[k][NONE_CONTEXT] != KEEP or known_name(line, k)


def _asks_after_name(cores: list[str]) -> bool:
    """After one word set off by a pause (``Lisa, do you``, ``John, what do you think``): an inverted question
    whose auxiliary has a pronoun after it (``Chicago, which has the toughest`` opens a relative clause)."""
    words = [c for c in cores if c]
    at = inversion(words)
    return at is not None and at + 1 < len(words) and words[at + 1] in SUBJECTS
