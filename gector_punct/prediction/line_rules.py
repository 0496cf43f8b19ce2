"""The decoding's line rules: one line's words, tags and model evidence in, the line with its tags decided out.

A ``Line`` (``decoded_line``) holds a line's words, their tags so far, ``given`` (the tags of its first words,
decided earlier: a stream's final words), the ``Evidence`` (what the model says of each word) and the
``Reading`` (tasks, ``DecodeConfig``, case forms, whether the line is a whole utterance or opens one). Each
rule is a pure function ``Line -> Line``; ``LINE_RULES`` is their order, ``WORD_RULES`` its part that runs
with ``punc`` off (case and marks are ``punc``'s part: with it off, no rule may change them):

1. ``delete_disfluencies``: with ``disf`` a word goes when P($DELETE) exceeds ``deletion_threshold`` or
   when it is an earlier copy of a word or phrase said twice, one copy always staying (``text.repeats``);
   or as the oracle's ``deletions`` say (for analysis).
2. ``decide_words``: GECToR's gate, then each word's likeliest label (see ``Evidence``), limited to what
   the word allows (``existing``), and the case of the context the word before gives as written. A line
   below the gate keeps its tags so far: its deletions stay (the gate is about marks and case).
3. ``open_utterance`` and ``close_utterance`` (a whole utterance, or a stream's window that begins one),
   ``greet_with_commas``, ``temper_exclamations``, the sentence rules (``sentence_rules``:
   ``join_question_fragments``, ``plain_statements``, ``ask_inverted_questions``, ``join_subordinate_clauses``,
   ``thank_with_commas``), ``join_spoken_numbers``, ``join_after_addresses``,
   ``chinese_questions``, ``pair_openings`` (they need the sentence ends, known from here on),
   ``capitalise_sentences``, ``capitalise_german_nouns``, ``write_case_forms``.

``given`` holds in one place, ``Line.retagged``, through which every rule returns its tags (a line starts
with them): the given words keep theirs, so each rule sees them as they will be written, never a change
of them an earlier rule made and the writer will not write (a rule may read them, say the sentence a given
word ends, and never changes them). Nothing here reads a model.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from gector_punct.prediction.decoded_line import Line, cased_after, constrained
from gector_punct.prediction.sentence_rules import (ask_inverted_questions, greet_with_commas, join_question_fragments,
                                                    join_subordinate_clauses, plain_statements, thank_with_commas)
from gector_punct.text.alignment import PAUSE_MARKS
from gector_punct.text.existing import QUOTE_PAIRS, pair_added_quotes, word_kind
from gector_punct.text.german_nouns import is_noun
from gector_punct.text.repeats import core as _core, repeated_words
from gector_punct.text.sentences import ELLIPSES, INVERTED, SENTENCE_MARKS, ends_sentence
from gector_punct.text.language import language_of
from gector_punct.text.speech import MONTHS, asks_in_chinese, code_letter, spoken_numbers
from gector_punct.text.tags import (CAPITAL, DELETE, KEEP, LOWER, NONE_CONTEXT, START_CONTEXT, Tag,
                                    capitalise_sentence_starts, mark_context)
from gector_punct.text.units import is_wide, narrow_marks, split_edges, starts_lower


def delete_disfluencies(line: Line) -> Line:
    """The words that go: the oracle's ``deletions``; else, with ``disf``, those whose P($DELETE) exceeds
    ``deletion_threshold`` and the earlier copies of what is said twice, one copy always staying
    (``text.repeats``). A kept word's disfluency target says only "not deleted" (any label but $DELETE), so
    the calibrated decision is $DELETE against all the rest together, not against $KEEP or the likeliest
    mark alone."""
    gone = line.deletions
    if gone is None:
        if "disf" not in line.reading.tasks or line.evidence.delete is None:
            return line
        threshold = line.reading.config.deletion_threshold
        gone = repeated_words(line.words, [p > threshold for p in line.evidence.delete])
    return line.retagged([Tag(deletes=True) if g else tag for g, tag in zip(gone, line.tags)])


@lru_cache(maxsize=4096)  # one Tag per distinct edit: its parts parsed once
def _tag(punct: str, case: str) -> Tag:
    return Tag.from_labels(punct, case)


@lru_cache(maxsize=1 << 16)
def _context_after(word: str, tag: Tag) -> int:
    """The mark context the word gives the next one, written as ``tag`` says (``tags.mark_context``)."""
    return mark_context(tag.apply(word))


def decide_words(line: Line) -> Line:
    """GECToR's gate: a line whose words all have an error probability below ``min_error_probability`` keeps
    its tags (its deletions too). Else each word takes its likeliest label (``Evidence.punct``; a deleted
    word ``$DELETE``) limited to what the word allows (``existing.constrain``), and the case label of the
    context the word before gives as written (``Evidence.case``; a deleted word passes on the context it was
    given); then the line's added quotes are paired (``existing.pair_added_quotes``). Given words keep their
    tags and give their context."""
    evidence, words = line.evidence, line.words
    if not words or max(evidence.error) < line.reading.config.min_error_probability:
        return line
    tags, context, n_given = [], START_CONTEXT, len(line.given)
    for k, (word, tag) in enumerate(zip(words, line.tags)):
        if k >= n_given:
            tag = constrained(word, _tag(DELETE if tag.deletes else evidence.punct[k], evidence.case[k][context]))
        tags.append(tag)
        if not tag.deletes:
            context = _context_after(word, tag)
    return line.retagged(pair_added_quotes(words, tags))


def _first_kept(words: list[str], tags: list[Tag], order) -> int | None:
    """The first word in ``order`` that is kept and has a letter or digit (an emoji or a symbol is passed)."""
    return next((k for k in order if not tags[k].deletes and any(c.isalnum() for c in words[k])), None)


def open_utterance(line: Line) -> Line:
    """A whole utterance's or a window's that begins one (``Reading.opens``): its first word (the first kept
    one with a letter or digit) starts upper-case."""
    if not (line.reading.whole or line.reading.opens):
        return line
    first = _first_kept(line.words, line.tags, range(len(line.words)))
    if first is None or not starts_lower(line.tags[first].apply(line.words[first])):
        return line
    tags = list(line.tags)
    tags[first] = replace(tags[first], case=CAPITAL)
    return line.retagged(tags)


def close_utterance(line: Line) -> Line:
    """A whole utterance's last word (the last kept one with a letter or digit: an emoji after it stays after
    the mark) ends a sentence, with ``Evidence.last_mark`` where it has only pause marks
    (``alignment.PAUSE_MARKS``), none (``year,`` -> ``year.``) or an ellipsis (``eight...`` -> ``eight.``: an
    utterance a recogniser closed was ended, not trailed off), inside the closing quotes it adds (``us"`` ->
    ``us."``); a last word with marks of its own in the input is left as it is."""
    words, tags = line.words, line.tags
    last = _first_kept(words, tags, reversed(range(len(words)))) if line.reading.whole else None
    if last is None:
        return line
    tag = tags[last]
    written = split_edges(tag.apply(words[last]))[2]  # an acronym's last period counts: U.S. ends a sentence
    marks = narrow_marks(tag.append)
    before_quotes = marks.rstrip("".join(QUOTE_PAIRS.values()))
    open_end = set(before_quotes) <= PAUSE_MARKS or before_quotes in ELLIPSES
    if split_edges(words[last])[2] or not open_end or (ends_sentence(written) and before_quotes not in ELLIPSES):
        return line
    out = list(tags)
    out[last] = replace(tag, append=line.evidence.last_mark + marks[len(before_quotes):])
    return line.retagged(out)


def temper_exclamations(line: Line) -> Line:
    """A ``!`` stays where the word's ``!`` labels are at least ``DecodeConfig.exclamation`` probable
    together (``Evidence.exclaim``); elsewhere it becomes ``.``. A ``!`` the input already had is no tag's."""
    threshold = line.reading.config.exclamation
    if threshold <= 0:  # every ! stays: probabilities are not negative
        return line
    return line.retagged([replace(t, append=t.append.replace("!", ".").replace("！", "。"))
                          if t.append and p < threshold and "!" in narrow_marks(t.append) else t
                          for t, p in zip(line.tags, line.evidence.exclaim)])


def join_spoken_numbers(line: Line) -> Line:
    """No mark inside a spoken number, date or code: of two kept words in a row that are both of a spoken
    number (``spoken_numbers``: ``five five five one``, ``two thirty``, ``four point two``, ``five oh one``),
    a month and a number (``march third``), or a letter and a number either way (``gate b twelve``, ``twelve
    c``: ``code_letter``), the first takes no appended mark and the second no capital (but a code's letter);
    except where the tags end a sentence after the first that is ``DecodeConfig.sure_sentence_end`` probable. A code's
    letter is written upper-case (``fourteen d`` -> ``fourteen D``). Marks and case the input already has
    stay."""
    words, out = line.words, list(line.tags)
    kept = [k for k, t in enumerate(out) if not t.deletes]
    cores = [_core(words[k]) for k in kept]
    number = spoken_numbers(cores)
    for i, (a, b) in enumerate(zip(kept, kept[1:])):
        pair = (number[i] or cores[i] in MONTHS or code_letter(cores[i])) and number[i + 1] \
            or number[i] and code_letter(cores[i + 1])
        if not pair:
            continue
        for k, core in ((a, cores[i]), (b, cores[i + 1])):  # a code's letter is written upper-case
            if code_letter(core) and starts_lower(out[k].apply(words[k])):
                out[k] = constrained(words[k], replace(out[k], case=CAPITAL))
        sure = line.evidence.sentence_end[a] >= line.reading.config.sure_sentence_end
        if ends_sentence(narrow_marks(out[a].append)) and sure:
            continue
        if out[a].append and not split_edges(words[a])[2]:
            out[a] = replace(out[a], append="")
        if out[b].case == CAPITAL and not code_letter(cores[i + 1]):
            out[b] = replace(out[b], case=KEEP)
    return line.retagged(out)


def join_after_addresses(line: Line) -> Line:
    """An e-mail address or a URL (``existing.word_kind``) is an odd token to the encoder, and the model's
    sentence end after one is often its unease (``support@acme-insurance.com. And we'll get back``): a
    sentence end the tags put after an address that the line goes on from stays only where it is
    ``DecodeConfig.sure_sentence_end`` probable; elsewhere the address takes no mark and the next word the case
    the model gives it with no mark before (``support@acme-insurance.com and we'll``). The input's marks stay."""
    words, out = line.words, list(line.tags)
    kept = [k for k, t in enumerate(out) if not t.deletes]
    for k, after in zip(kept, kept[1:]):
        if not out[k].append or not ends_sentence(narrow_marks(out[k].append)) or k < len(line.given) \
                or line.evidence.sentence_end[k] >= line.reading.config.sure_sentence_end or split_edges(words[k])[2] \
                or word_kind(words[k]) not in ("email", "url"):  # the regular expressions last: the dearest
            continue
        out[k] = replace(out[k], append="")
        out[after] = cased_after(line, after, out[after], NONE_CONTEXT)
    return line.retagged(out)


def chinese_questions(line: Line) -> Line:
    """A Chinese sentence that asks (``speech.asks_in_chinese``: a final 吗 or 呢, an A-not-A form such as 要不要,
    not reported after ``知道``) ends with ``？`` where the tags end it with ``。``."""
    words, tags = line.words, line.tags
    out, start = list(tags), 0
    for k, tag in enumerate(tags):
        if not tag.append or tag.deletes or not ends_sentence(tag.append):
            continue
        text = "".join(split_edges(w)[1] for w, t in zip(words[start:k + 1], tags[start:k + 1]) if not t.deletes)
        start = k + 1
        if "." not in narrow_marks(tag.append) or not any("\u4e00" <= ch <= "\u9fff" for ch in text):
            continue
        if asks_in_chinese(text):
            out[k] = replace(tag, append=narrow_marks(tag.append).replace(".", "?"))
    return line.retagged(out)


def pair_openings(line: Line) -> Line:
    """Spanish writes a question between ``¿`` and ``?`` and an exclamation between ``¡`` and ``!``
    (``sentences.INVERTED``): in a Spanish line, a sentence the tags close with ``?`` (``!``) and open with no
    ``¿`` (``¡``) gets one before its word likeliest to take it (``Evidence.question_opening``,
    ``exclamation_opening``). A line is Spanish when its words say so (``language.language_of``), or,
    when they do not say which language it is in, when a sentence it closes with ``?`` or ``!`` has an opening
    already or a word at least ``DecodeConfig.question_opening`` likely to take one: then every question and
    exclamation of it opens. A line in another language gets none (``chi tiene le chiavi?``: Italian).
    A line mostly in Chinese characters (``units.is_wide``) is not Spanish: an opening the tags put there goes.
    An opening in a sentence that the tags end otherwise is dropped, and so is a second one in a sentence
    (``¿Qué tal ¿el fin de semana?``: a question mark between them that a rule took away). A sentence still open
    at the line's end
    (a line cut mid-sentence) is left as it is."""
    tags, threshold = line.tags, line.reading.config.question_opening
    likely = {"?": line.evidence.question_opening, "!": line.evidence.exclamation_opening}
    if not any(any(m in t.append for m in INVERTED) or any(o in t.prepend for o in INVERTED.values()) for t in tags):
        return line  # nothing asked or exclaimed, no opening to drop
    if is_wide(line.words):
        return line.retagged([replace(t, prepend="".join(c for c in t.prepend if c not in INVERTED.values()))
                              for t in tags])
    out, spans, start = list(tags), [], 0
    for k, tag in enumerate(tags):
        if ends_sentence(tag.append):  # a deleted word's tag adds no mark (``Tag``)
            closing = next((c for c in reversed(narrow_marks(tag.append)) if c in SENTENCE_MARKS), "")  # last . ? !
            spans.append(([j for j in range(start, k + 1) if not tags[j].deletes], closing))
            start = k + 1
    language = language_of(line.words)
    spanish = language == "es" or language is None and any(
        any(o in tags[j].prepend for o in INVERTED.values()) or likely[mark][j] >= threshold
        for span, mark in spans if mark in INVERTED for j in span)
    for span, mark in spans:
        for closes, opening in INVERTED.items():
            opened = [j for j in span if opening in out[j].prepend]
            if mark == closes and not opened and spanish:
                best = max(span, key=lambda j: likely[closes][j])
                if likely[closes][best] > 0:  # a label set without the opening gives it none
                    out[best] = replace(out[best], prepend=opening + out[best].prepend)
            else:  # an opening of a sentence that ends otherwise goes, and one after the sentence's first
                for j in opened if mark != closes else opened[1:]:
                    out[j] = replace(out[j], prepend=out[j].prepend.replace(opening, ""))
    return line.retagged(out)


def capitalise_sentences(line: Line) -> Line:
    """A word after a sentence end starts upper-case (``tags.capitalise_sentence_starts``)."""
    return line.retagged(capitalise_sentence_starts(line.words, line.tags))


def capitalise_german_nouns(line: Line) -> Line:
    """German writes every noun with a capital: in a German line (``language.language_of``) a word that arrives
    all lower-case and that the tags leave so takes a capital when German writes it only with one
    (``german_nouns.is_noun``: ``Krankenhaus``, ``Abend``). A word German writes both ways (``morgen`` /
    ``Morgen``, ``sie`` / ``Sie``) stays the model's decision."""
    if language_of(line.words) != "de":
        return line
    cores = [_core(w) for w in line.words]
    return line.retagged([replace(t, case=CAPITAL) if t.case in (KEEP, LOWER) and not t.deletes and is_noun(c)
                          and split_edges(w)[1].islower() else t for w, t, c in zip(line.words, line.tags, cores)])


def write_case_forms(line: Line) -> Line:
    """How the capitals are written (``case_forms.CaseForms.apply``: ``iPhone``, ``NASA``); none: as cased."""
    forms = line.reading.case_forms
    return line.retagged(forms.apply(line.words, line.tags, closes=line.reading.whole)) if forms and line.words \
        else line


WORD_RULES = (delete_disfluencies, decide_words)
# greet_with_commas reads the tagger's own ! (a greeting it exclaims), so it comes before temper_exclamations.
LINE_RULES = WORD_RULES + (open_utterance, close_utterance, greet_with_commas, temper_exclamations,
                           join_question_fragments, plain_statements, ask_inverted_questions, join_subordinate_clauses,
                           thank_with_commas, join_spoken_numbers, join_after_addresses, chinese_questions,
                           pair_openings, capitalise_sentences, capitalise_german_nouns, write_case_forms)
# The rules that write an editor's habits over the model's choice, not a language's certain convention (the
# utterance's edges, a threshold, Chinese and Spanish question marks, capitals and case forms are those):
# left out (``MODEL_RULES``), what remains is what the model alone decides (utils/report/everyday_report.py
# --no-editor_rules).
EDITOR_RULES = (greet_with_commas, join_question_fragments, plain_statements, ask_inverted_questions,
                join_subordinate_clauses, thank_with_commas, join_spoken_numbers, join_after_addresses)
MODEL_RULES = tuple(rule for rule in LINE_RULES if rule not in EDITOR_RULES)

