"""The decoding policy: per-word probabilities of the heads -> one ``Tag`` per word, as pure functions.

In: ``Probabilities``, a dict keyed by head name (``vocabulary.HEADS``): ``PUNCT_HEAD.name`` -> words x
punctuation labels, ``CASE_HEAD.name`` -> words x ``tags.MARK_CONTEXTS`` x case labels (one distribution
per mark context of the word before), ``DETECT_HEAD.name`` -> words x detection labels; the words of all
lines one after the other; columns in the order of ``names`` (per head name, its labels: an ensemble's are
the union of its members'). Also the tasks that are on and a ``DecodeConfig``. Out: per line, per word,
its tag. Nothing here reads a model or changes its inputs.

``decode_lines`` in order, per line (GECToR's rules, with the ones added here):

1. Deletion first: with ``disf`` a word goes when P($DELETE) exceeds ``deletion_threshold``
   (``deletion_decisions``) or when it is the first copy of a word or phrase said twice (``repeated_words``),
   or as ``deletions`` says (an oracle's, for analysis).
2. ``additional_confidence`` is added to the punctuation head's ``$KEEP``, ``case_bias`` to the case head's;
   a task that is off can decide nothing (``mask_tasks_off``).
3. A line whose words all have an error probability below ``min_error_probability`` stays as it is; else
   each word takes its likeliest label (``$KEEP`` where that is less probable than the same bar) and the
   case of the context its predecessor gives once punctuated; a deleted word passes its context on.
4. ``existing.constrain_line`` limits the tags to what the words allow (and pairs added quotes); with
   ``whole`` the line is closed (``close_utterance``); a ``!`` less likely than ``exclamation`` becomes ``.``
   (``temper_exclamations``); no mark inside a spoken number (``join_spoken_numbers``); a Chinese sentence
   that asks ends with ``？`` (``chinese_questions``); ``pair_questions`` then opens Spanish questions with
   ``¿`` (the line's own closing ``?`` included); a word after a sentence end starts upper-case
   (``tags.capitalise_sentence_starts``); ``case_forms`` says how the capitals are written (``punc`` only).

``given`` (per line, the tags of its first words, decided earlier: a stream's final words) fixes those
words: they take their given tags, and the words after them are decided in their context (mark context,
quote pairing, sentence starts) as if the whole line had been decoded at once.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from gector_punct.text.case_forms import CaseForms
from gector_punct.model.config import DecodeConfig
from gector_punct.text.existing import QUOTE_PAIRS, constrain_line
from gector_punct.text.tags import (CAPITAL, DELETE, KEEP, PAUSE_MARKS, START_CONTEXT, Tag, capitalise_sentence_starts, ends_sentence,
                   mark_context, split_edges)
from gector_punct.text.units import narrow_marks, starts_lower
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD

Probabilities = dict[str, np.ndarray]  # head name -> per-word probabilities, float32 (see the module docstring)
INVERTED_QUESTION = "¿"
SENTENCE_MARKS = ".?!"
NO_EDIT = {PUNCT_HEAD.name: KEEP, CASE_HEAD.name: KEEP, DETECT_HEAD.name: "CORRECT"}  # per head: "leave it"


def no_edit_probabilities(names: dict[str, list[str]], n_words: int, contexts: int) -> Probabilities:
    """Probabilities of ``n_words`` words that certainly take no edit (each head's ``NO_EDIT`` label at 1)."""
    out = {}
    for head, labels in names.items():
        shape = (n_words,) + ((contexts,) if head == CASE_HEAD.name else ()) + (len(labels),)
        out[head] = np.zeros(shape, dtype=np.float32)
        out[head][..., labels.index(NO_EDIT[head])] = 1.0
    return out


def mean_probabilities(members: list[Probabilities]) -> Probabilities:
    """An ensemble's probabilities: per head, the mean of its members' (all in the same columns)."""
    return {head: sum(m[head] for m in members) / len(members) for head in members[0]}


def deletion_decisions(punct: np.ndarray, names: list[str], tasks: frozenset[str],
                       threshold: float) -> np.ndarray | None:
    """Per word, whether ``disf`` deletes it: P($DELETE) above ``threshold``. A kept word's disfluency
    target says only "not deleted" (any label but $DELETE), so the model's calibrated decision is $DELETE
    against all the rest together, not against $KEEP or the likeliest mark alone. None without ``disf``
    (or without a ``$DELETE`` label)."""
    if "disf" not in tasks or DELETE not in names:
        return None
    return punct[:, names.index(DELETE)] > threshold


def mask_tasks_off(punct: np.ndarray, case: np.ndarray, names: dict[str, list[str]],
                   tasks: frozenset[str]) -> None:
    """Rule out, in place, every decision of a task that is off: ``$DELETE`` without ``disf``; any mark and
    any case change without ``punc``."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    for j, name in enumerate(punct_names):
        off = "disf" if name == DELETE else None if name == KEEP else "punc"
        if off is not None and off not in tasks:
            punct[:, j] = -1.0
    if "punc" not in tasks:
        case[..., [j for j, name in enumerate(case_names) if name != KEEP]] = -1.0


def decision_scores(probabilities: Probabilities, names: dict[str, list[str]], tasks: frozenset[str],
                    config: DecodeConfig, deleted: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(punctuation, case) scores whose argmax is each word's decision: the probabilities with the
    ``$KEEP`` biases added, the tasks that are off masked, and ``deleted`` (when decided) forced: 2 for
    ``$DELETE`` where a word goes, -1 where it stays (then its likeliest other label wins)."""
    punct, case = probabilities[PUNCT_HEAD.name].copy(), probabilities[CASE_HEAD.name].copy()
    punct_names = names[PUNCT_HEAD.name]
    punct[:, punct_names.index(KEEP)] += config.additional_confidence
    case[..., names[CASE_HEAD.name].index(KEEP)] += config.case_bias
    mask_tasks_off(punct, case, names, tasks)
    if deleted is not None:
        punct[:, punct_names.index(DELETE)] = np.where(deleted, 2.0, -1.0)
    return punct, case


def question_opening_columns(punct_names: list[str]) -> list[int]:
    """The punctuation labels that open a question with ``¿`` (``pair_questions``)."""
    return [j for j, name in enumerate(punct_names) if INVERTED_QUESTION in Tag.parse(name).prepend]


def sentence_mark_columns(punct_names: list[str]) -> dict[str, list[int]]:
    """Per sentence mark (. ? !), the punctuation labels whose appended marks end with it."""
    appended = [narrow_marks(Tag.parse(name).append) for name in punct_names]
    return {m: [j for j, a in enumerate(appended) if [c for c in a if c in SENTENCE_MARKS][-1:] == [m]]
            for m in SENTENCE_MARKS}


def end_mark(punct_p: np.ndarray, columns: dict[str, list[int]]) -> str:
    """The likeliest sentence mark of a word from its punctuation probabilities: each mark's probability is
    the sum over its labels (``sentence_mark_columns``)."""
    return max(columns, key=lambda mark: float(punct_p[columns[mark]].sum()))


def decode_lines(word_lines: list[list[str]], probabilities: Probabilities, names: dict[str, list[str]],
                 tasks: frozenset[str], config: DecodeConfig, case_forms: CaseForms | None = None,
                 whole: bool = False, deletions: list[list[bool]] | None = None,
                 given: list[list[Tag]] | None = None, opens: bool = False) -> list[list[Tag]]:
    """Each line's tags under the module's rules. ``whole``: each line is a whole utterance
    (``close_utterance``); ``opens``: each line begins one (``open_utterance``: a stream's window at an
    utterance's start); ``deletions`` (per line, per word): which words go, whatever the tasks; ``given``
    (per line): the tags of its first words, kept as they are."""
    punct_names, case_names = names[PUNCT_HEAD.name], names[CASE_HEAD.name]
    deleted = (deletion_decisions(probabilities[PUNCT_HEAD.name], punct_names, tasks, config.deletion_threshold)
               if deletions is None else np.array([gone for line in deletions for gone in line], dtype=bool))
    if deletions is None and deleted is not None:
        deleted = with_repetitions(word_lines, deleted)
    punct, case = decision_scores(probabilities, names, tasks, config, deleted)
    label_p, label_i = punct.max(-1).tolist(), punct.argmax(-1).tolist()
    case_p, case_i = case.max(-1).tolist(), case.argmax(-1).tolist()  # per word, per context of the word before
    error_p = probabilities[DETECT_HEAD.name][:, names[DETECT_HEAD.name].index("INCORRECT")].tolist()
    end_columns = sentence_mark_columns(punct_names)
    exclaim_p = probabilities[PUNCT_HEAD.name][:, end_columns["!"]].sum(-1).tolist()
    opening = question_opening_columns(punct_names)
    opening_p = (probabilities[PUNCT_HEAD.name][:, opening].sum(-1) if opening else np.zeros(len(punct))).tolist()
    threshold = config.min_error_probability
    forced = deleted.tolist() if deletions is not None else None  # given deletions hold on every line
    made: dict[tuple[str, str], Tag] = {}  # one Tag object per distinct edit: its parts parsed once
    tags, start = [], 0
    for n, words in enumerate(word_lines):
        end = start + len(words)
        fixed = given[n] if given else []
        if not words or max(error_p[start:end]) < threshold:  # GECToR: a line with no likely error stays
            line = [Tag(deletes=True) if forced and forced[k] else Tag() for k in range(start, end)]
            line = _with_given(line, fixed)
        else:
            line, context = [], START_CONTEXT
            for k, word in zip(range(start, end), words):
                if k - start < len(fixed):
                    tag = fixed[k - start]
                else:
                    c = case_i[k][context] if case_p[k][context] >= threshold else None
                    key = (punct_names[label_i[k]] if label_p[k] >= threshold else KEEP,
                           KEEP if c is None else case_names[c])
                    if key not in made:
                        made[key] = Tag.from_labels(*key)
                    tag = made[key]
                line.append(tag)
                if not tag.deletes:  # a deleted word passes on the context it was given
                    context = mark_context(tag.apply(word))
            line = _with_given(constrain_line(words, line), fixed)
        if words and "punc" in tasks:  # case and marks are punc's part: with it off, no change
            if whole:
                line = close_utterance(words, line, end_mark(probabilities[PUNCT_HEAD.name][end - 1], end_columns))
            elif opens:
                line = open_utterance(words, line)
            line = temper_exclamations(line, exclaim_p[start:end], config.exclamation)
            line = chinese_questions(words, join_spoken_numbers(words, line))  # the sentence ends are known now:
            line = pair_questions(_with_given(line, fixed), opening_p[start:end], config.question_opening)  # ¿
            line = capitalise_sentence_starts(words, _with_given(line, fixed))
        use_forms = case_forms and words and "punc" in tasks  # case is punc's part: off, no change
        tags.append(_with_given(case_forms.apply(words, line) if use_forms else line, fixed))
        start = end
    return tags


def _with_given(line: list[Tag], given: list[Tag]) -> list[Tag]:
    return list(given) + line[len(given):] if given else line


def open_utterance(words: list[str], tags: list[Tag]) -> list[Tag]:
    """An utterance's first word (the first one kept that has a letter or digit) starts upper-case."""
    out = list(tags)
    first = next((k for k, t in enumerate(tags) if not t.deletes and any(c.isalnum() for c in words[k])), None)
    if first is not None and starts_lower(out[first].apply(words[first])):
        out[first] = replace(out[first], case=CAPITAL)
    return out


def close_utterance(words: list[str], tags: list[Tag], mark: str) -> list[Tag]:
    """A whole utterance's tags: its first word starts upper-case and its last word (with a letter or digit:
    an emoji after it stays after the mark) ends a sentence, with
    ``mark`` where it has only pause marks (``tags.PAUSE_MARKS``) or none (``year,`` -> ``year.``), inside
    the closing quotes it adds (``us"`` -> ``us."``); a last word with marks of its own in the input is
    left as it is."""
    out = open_utterance(words, tags)
    last = next((k for k in reversed(range(len(tags))) if not tags[k].deletes and any(c.isalnum() for c in words[k])),
                None)
    if last is None:
        return out
    tag = out[last]
    written = split_edges(tag.apply(words[last]))[2]  # an acronym's last period counts: U.S. ends a sentence
    marks = narrow_marks(tag.append)
    before_quotes = marks.rstrip("".join(QUOTE_PAIRS.values()))
    if not split_edges(words[last])[2] and not ends_sentence(written) and set(before_quotes) <= PAUSE_MARKS:
        out[last] = replace(tag, append=mark + marks[len(before_quotes):])
    return out


def pair_questions(tags: list[Tag], opening_p: list[float], threshold: float) -> list[Tag]:
    """Spanish writes a question between ``¿`` and ``?``: a sentence the tags close with ``?`` and open with
    no ``¿`` gets one before its word likeliest to take it, if that is at least ``threshold`` probable or
    the line already opens a question (a line with one ``¿`` is Spanish: all its questions open); a ``¿``
    in a sentence that the tags end otherwise is dropped. A sentence still open at the line's end (a line
    cut mid-sentence) is left as it is."""
    out, spans, start = list(tags), [], 0
    for k, tag in enumerate(tags):
        if not tag.deletes and ends_sentence(tag.append):
            spans.append(([j for j in range(start, k + 1) if not tags[j].deletes], "?" in tag.append))
            start = k + 1
    questions = [span for span, asks in spans if asks]
    spanish = any(INVERTED_QUESTION in tags[j].prepend or opening_p[j] >= threshold for span in questions for j in span)
    for span, asks in spans:
        opened = [j for j in span if INVERTED_QUESTION in out[j].prepend]
        if asks and not opened:
            best = max(span, key=lambda j: opening_p[j])
            if spanish and opening_p[best] > 0:
                out[best] = _with_prepend(out[best], INVERTED_QUESTION + out[best].prepend)
        elif opened and not asks:
            for j in opened:
                out[j] = _with_prepend(out[j], out[j].prepend.replace(INVERTED_QUESTION, ""))
    return out


def _with_prepend(tag: Tag, prepend: str) -> Tag:
    return replace(tag, prepend=prepend)


NUMBER_WORDS = set("""zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
billion trillion point double triple first second third fourth fifth sixth seventh eighth ninth tenth eleventh
twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth
fiftieth sixtieth seventieth eightieth ninetieth hundredth thousandth""".split())


def _number_word(word: str) -> bool:
    core = split_edges(word)[1].lower()
    return bool(core) and all(part in NUMBER_WORDS for part in core.split("-"))


def temper_exclamations(tags: list[Tag], exclaim_p: list[float], threshold: float) -> list[Tag]:
    """A ``!`` stays where the word's ``!`` labels are at least ``threshold`` probable together; elsewhere it
    becomes ``.`` (``DecodeConfig.exclamation``). A ``!`` the input already had is no tag's and stays."""
    return [replace(t, append=t.append.replace("!", ".").replace("！", "。"))
            if "!" in narrow_marks(t.append) and p < threshold else t for t, p in zip(tags, exclaim_p)]


MONTHS = set("january february march april may june july august september october november december".split())


def join_spoken_numbers(words: list[str], tags: list[Tag]) -> list[Tag]:
    """No mark inside a spoken number or date: in a run of two or more number words (``five five five one``,
    ``two thirty``, ``four point two``), or a month and the number after it (``march third``), a word before
    the run's last takes no appended mark and a word after the run's first no capital. Marks the input
    already has stay (``constrain`` keeps them)."""
    out = list(tags)
    kept = [k for k, t in enumerate(tags) if not t.deletes]
    for a, b in zip(kept, kept[1:]):
        first = _number_word(words[a]) or split_edges(words[a])[1].lower() in MONTHS
        if first and _number_word(words[b]):
            if out[a].append and not split_edges(words[a])[2]:
                out[a] = replace(out[a], append="")
            if out[b].case == CAPITAL:
                out[b] = replace(out[b], case=KEEP)
    return out


QUESTION_PARTICLES = "吗呢"
# A-not-A forms. Question words (什么, 怎么, 几, 谁 ...) are left to the model: as often indefinite as asking
# (没有什么, 几个人), they cost the zh dev set's QUESTION F1 (models/multilingual/README.md).
QUESTION_WORDS = ("是不是", "要不要", "有没有", "好不好", "对不对", "能不能", "会不会", "可不可以", "行不行")
REPORTED = ("知道", "告诉", "记得", "明白")  # 我不知道他要什么: a question reported, not asked


def chinese_questions(words: list[str], tags: list[Tag]) -> list[Tag]:
    """A Chinese sentence that asks (a final 吗 or 呢, an A-not-A form such as 要不要, not reported after
    ``知道``) ends with ``？`` where the tags end it with ``。``."""
    out, start = list(tags), 0
    for k, tag in enumerate(tags):
        if tag.deletes or not ends_sentence(tag.append):
            continue
        text = "".join(split_edges(w)[1] for w, t in zip(words[start:k + 1], tags[start:k + 1]) if not t.deletes)
        start = k + 1
        if "." not in narrow_marks(tag.append) or not any("\u4e00" <= ch <= "\u9fff" for ch in text):
            continue
        asks = text[-1:] in QUESTION_PARTICLES or any(form in text for form in QUESTION_WORDS)
        if asks and not any(r in text for r in REPORTED):
            out[k] = replace(tag, append=narrow_marks(tag.append).replace(".", "?"))
    return out


KEPT_DOUBLES = {"had", "that", "bye", "no", "very", "so", "really", "yeah"}  # doubled on purpose: "had had"


def repeated_words(words: list[str], gone: list[bool]) -> list[bool]:
    """Per word, whether it goes as the earlier copy of a word or phrase (up to four words) said again right
    after it (``i think i think``, ``nobody nobody``, ``is is``), the words already going (fillers) passed
    over; a word of ``KEPT_DOUBLES`` said twice stays. The later copy is kept: it is the one the speaker
    carried on from."""
    kept = [k for k, g in enumerate(gone) if not g]
    cores = [split_edges(words[k])[1].lower() for k in kept]
    out, i = list(gone), 0
    while i < len(kept):
        for n in (4, 3, 2, 1):
            if cores[i:i + n] == cores[i + n:i + 2 * n] and len(cores[i:i + n]) == n and all(cores[i:i + n]) \
                    and not (n == 1 and cores[i] in KEPT_DOUBLES):
                for k in kept[i:i + n]:
                    out[k] = True
                i += n
                break
        else:
            i += 1
    return out


def with_repetitions(word_lines: list[list[str]], deleted: np.ndarray) -> np.ndarray:
    """``deleted`` (all lines' words in one tensor) with each line's ``repeated_words`` added."""
    flags, start = deleted.tolist(), 0
    for words in word_lines:
        end = start + len(words)
        flags[start:end] = repeated_words(words, flags[start:end])
        start = end
    return np.array(flags, dtype=bool)
