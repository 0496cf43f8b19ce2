"""The decoding's line rules (``gector_punct.prediction.line_rules``), each alone on a ``Line`` and in
``decode_lines``' order: GECToR's gate, deletions, ``given``, spoken numbers, Chinese questions, an utterance
that opens upper-case (through the stream too); each test states the bug it guards against."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from gector_punct.model.config import DecodeConfig
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.prediction.decoding import decode_lines, no_edit_probabilities
from gector_punct.text.speech import NUMBER_WORDS
from gector_punct.prediction.decoded_line import Evidence, Line, Reading, decide
from gector_punct.prediction.line_rules import (LINE_RULES, WORD_RULES, capitalise_sentences, chinese_questions,
                                                decide_words, delete_disfluencies, join_spoken_numbers, open_utterance,
                                                temper_exclamations, write_case_forms)
from gector_punct.prediction.streaming import StreamingPunctuator, caption_text
from gector_punct.text.case_forms import CaseForm, CaseForms
from gector_punct.text.tags import CAPITAL, DELETE, KEEP, MARK_CONTEXTS, Tag, apply_tags
from test_live import PERIOD, Scripted, _tag, script_model  # noqa: F401 (script_model: a fixture)

comma, period = Tag(append=","), Tag(append=".")


def line_of(words, tags=None, *, given=(), tasks="punc", config=None, case_forms=None, whole=False, opens=False,
            deletions=None, **facts) -> Line:
    """A ``Line`` of ``words`` with ``tags`` (default: none), the evidence of a model sure that nothing needs an
    edit except for ``facts`` (``Evidence``'s fields), read as the keywords say."""
    reading = Reading(frozenset(tasks.split(",")), config or DecodeConfig(), case_forms, whole, opens)
    line = Line(words, [], replace(Evidence.none(len(words)), **facts), reading, list(given), deletions)
    return line.retagged(list(tags) if tags is not None else [Tag()] * len(words))


def written(line: Line) -> str:
    return apply_tags(line.words, line.tags)


# ---- each rule alone ---------------------------------------------------------------------------

def test_no_mark_inside_a_spoken_number():
    words = "call five five five one two three four".split()
    tags = [Tag(), comma, comma, period, Tag(case=CAPITAL), comma, comma, period]
    assert written(join_spoken_numbers(line_of(words, tags))) == "call five five five one two three four."


def test_a_date_and_a_time_stay_whole_but_marks_around_them_stay():
    words = "on march third at two thirty pm".split()
    tags = [Tag(), comma, comma, Tag(), comma, Tag(case=CAPITAL), period]
    assert written(join_spoken_numbers(line_of(words, tags))) == "on march third, at two thirty pm."
    words = "one apple, two pears".split()  # a mark the input has stays
    assert written(join_spoken_numbers(line_of(words))) == "one apple, two pears"


def test_a_sentence_end_the_model_is_sure_of_stays_between_two_numbers():
    """``we have two one is red``: the numbers of two sentences; an unsure end between numbers still goes."""
    words = "we have two one is red".split()
    tags = [Tag(), Tag(), period, Tag(case=CAPITAL), Tag(), period]
    sure = [0.0, 0.0, 0.95, 0.0, 0.0, 0.9]
    assert written(join_spoken_numbers(line_of(words, tags, sentence_end=sure))) == "we have two. One is red."
    unsure = [0.0, 0.0, 0.6, 0.0, 0.0, 0.9]
    assert written(join_spoken_numbers(line_of(words, tags, sentence_end=unsure))) == "we have two one is red."


def test_oh_double_and_triple_are_digits_only_in_a_string_of_digits():
    """``Oh, one more thing``, ``third. Oh, well``: an interjection beside one number keeps its marks; ``five oh
    one``, ``oh seven nine four six double one two``, ``nine oh two one oh`` are numbers."""
    def joined(text, marked):
        words = text.split()
        tags = [Tag(append=",") if k in marked else Tag() for k in range(len(words))]
        return written(join_spoken_numbers(line_of(words, tags)))

    assert joined("oh one more thing", {0}) == "oh, one more thing"
    assert joined("it was third oh well", {2, 3}) == "it was third, oh, well"
    assert joined("room five oh one is free", {1, 2}) == "room five oh one is free"
    assert joined("on oh seven nine four six double one two", {0, 1, 5, 6}) == "on, oh seven nine four six double one two"
    assert joined("zip code nine oh two one oh", {3, 5}) == "zip code nine oh two one oh"


def test_number_words_are_the_words_num2words_writes():
    """The rule's words are the training data's: the words of num2words' cardinals and ordinals (hyphened
    ones in their parts) and of a decimal's ``point``; ``and`` (``one hundred and one``) joins no number."""
    num2words = pytest.importorskip("num2words").num2words
    said = set()
    for n in [*range(100), 10**2, 10**3, 10**6, 10**9, 10**12]:
        for text in (num2words(n), num2words(n, to="ordinal")):
            said.update(text.replace("-", " ").split())
    said.update(num2words(0.5).split())
    assert NUMBER_WORDS == said and "oh" not in NUMBER_WORDS and "and" not in NUMBER_WORDS


def test_chinese_questions_end_with_a_question_mark():
    for text, mark in [("你要不要一起来", "？"), ("你吃饭了吗", "？"), ("你是不是学生", "？"), ("我不知道他是不是学生", "。"),
                       ("我们没有什么问题", "。"), ("我们去北京", "。")]:
        words = list(text)
        out = written(chinese_questions(line_of(words, [Tag()] * (len(words) - 1) + [period])))
        assert out.endswith(mark), (text, out)
    words = "we go where".split()  # not Chinese: untouched
    assert chinese_questions(line_of(words, [Tag(), Tag(), period])).tags == [Tag(), Tag(), period]


def test_an_utterance_opens_past_a_symbol():
    words = ["🍕", "so", "good"]
    assert written(open_utterance(line_of(words, whole=True))) == "🍕 So good"
    assert written(open_utterance(line_of(words, opens=True))) == "🍕 So good"
    assert written(open_utterance(line_of(words))) == "🍕 so good"  # a fragment opens nothing


def test_disfluencies_go_only_with_disf():
    words = "so uh we we went".split()
    delete = [0.0, 0.9, 0.0, 0.0, 0.3]
    gone = [t.deletes for t in delete_disfluencies(line_of(words, tasks="disf,punc", delete=delete)).tags]
    assert gone == [False, True, True, False, False]  # the filler by its probability, the repetition by rule
    assert delete_disfluencies(line_of(words, delete=delete)).tags == [Tag()] * 5  # punc alone deletes nothing
    oracle = [True, False, False, False, True]  # an oracle's deletions hold whatever the tasks
    assert [t.deletes for t in delete_disfluencies(line_of(words, deletions=oracle)).tags] == oracle


def test_only_the_disf_task_deletes_repetitions(random_editor):
    """Punctuation alone never changes the words."""
    from gector_punct.text.tags import split_edges
    punc_only = random_editor.predict(["we we went"])[0]
    assert [split_edges(w)[1].lower() for w in punc_only.split()] == ["we", "we", "went"]


def test_each_word_takes_its_label_and_the_case_of_the_context_written_before_it():
    """The case head's distribution for the context the word before gives as it will be written: after a
    period the ``end`` one; a deleted word passes its context on; a word's own marks stay (``existing``), and
    the period the tagger wants after ``said:`` is not written, so ``fine`` follows a pause."""
    words = "yes uh so we said: fine".split()
    case = [(KEEP, KEEP, KEEP, CAPITAL)] * len(words)  # capital after a sentence end only
    punct = [PERIOD, KEEP, KEEP, KEEP, PERIOD, KEEP]
    line = line_of(words, [Tag(), Tag(deletes=True)] + [Tag()] * 4, punct=punct, case=case, error=[1.0] * 6)
    out = decide_words(line)
    assert out.tags[1].deletes and written(out) == "yes. So we said: fine"


def test_the_gate_keeps_a_quiet_line_but_not_from_its_deletions():
    """A line whose error probabilities are all below ``min_error_probability`` takes no mark or case, but
    what ``disf`` deletes (a filler, a repetition) still goes."""
    words = "so uh we we went".split()
    config = DecodeConfig(min_error_probability=0.5)
    line = line_of(words, tasks="disf,punc", config=config, punct=[PERIOD] * 5, error=[0.1] * 5,
                   delete=[0.0, 0.9, 0.0, 0.0, 0.0])
    out = decide(line, WORD_RULES)
    assert written(out) == "so we went"
    assert written(decide(replace(line, evidence=replace(line.evidence, error=[0.6] * 5)), WORD_RULES)) == \
        "so. we. went."


def test_an_unlikely_exclamation_becomes_a_period():
    shout, quoted = Tag(append="!"), Tag(append='!"')
    line = line_of("a b c".split(), [shout, quoted, shout], config=DecodeConfig(exclamation=0.5),
                   exclaim=[0.4, 0.3, 0.9])
    assert temper_exclamations(line).tags == [Tag(append="."), Tag(append='."'), shout]
    assert temper_exclamations(line_of(["a"], [shout], exclaim=[0.1])).tags == [shout]  # 0: every ! stays


def test_sentence_starts_and_case_forms():
    words = "we use iphones. they work".split()
    line = capitalise_sentences(line_of(words))
    assert written(line) == "we use iphones. They work"
    forms = CaseForms({"iphones": CaseForm("iPhones", 100)})
    assert written(write_case_forms(replace(line, reading=replace(line.reading, case_forms=forms)))) == \
        "we use iPhones. They work"


# ---- given: decided earlier, held in one place ---------------------------------------------------

def test_given_words_keep_their_tags_through_every_rule():
    words = "wow two one is red".split()
    given = [Tag(append="!", case=CAPITAL), period]
    line = line_of(words, given=given, whole=True, config=DecodeConfig(exclamation=0.5), exclaim=[0.0] * 5)
    out = decide(line, LINE_RULES)
    assert out.tags[:2] == given  # not tempered, not joined into the number
    assert written(out) == "Wow! two. One is red."  # the next word starts the sentence the given one ended


def test_rules_see_given_words_as_they_will_be_written():
    """A given word's sentence end holds for every rule: ``join_spoken_numbers`` may not remove it for
    ``chinese_questions`` to read one sentence across it (the 知道 before it would then report the question
    after it)."""
    words = ["我", "知道", "two", "one", "你", "吃", "饭", "了", "吗"]
    given = [Tag(), Tag(), period]
    probs = scripted_probabilities([KEEP] * 8 + [PERIOD])
    (tags,) = decode_lines([words], probs, NAMES, frozenset({"punc"}), DecodeConfig(), given=[given])
    assert tags[:3] == given and tags[-1] == Tag(append="?")


# ---- decode_lines: the rules in their order ---------------------------------------------------

NAMES = {PUNCT_HEAD.name: [KEEP, DELETE, Tag(append=",").punct, PERIOD, Tag(append="?").punct],
         CASE_HEAD.name: [KEEP, CAPITAL], DETECT_HEAD.name: ["CORRECT", "INCORRECT"]}


def scripted_probabilities(rows: list[str]) -> dict:
    """Per word, certainly the punctuation label given (its error probability 1 where it is an edit)."""
    probs = no_edit_probabilities(NAMES, len(rows), len(MARK_CONTEXTS))
    for k, label in enumerate(rows):
        probs[PUNCT_HEAD.name][k] = 0.0
        probs[PUNCT_HEAD.name][k, NAMES[PUNCT_HEAD.name].index(label)] = 1.0
        probs[DETECT_HEAD.name][k] = torch.tensor([0.0, 1.0] if label != KEEP else [1.0, 0.0])
    return probs


def test_decode_lines_asks_chinese_questions():
    """A tagger that ends ``你吃饭了吗`` with ``。``: the line still asks (the rule is in the order)."""
    words = list("你吃饭了吗")
    probs = scripted_probabilities([KEEP] * 4 + [PERIOD])
    (tags,) = decode_lines([words], probs, NAMES, frozenset({"punc"}), DecodeConfig())
    assert apply_tags(words, tags) == "你吃饭了吗？"


def test_predict_asks_chinese_questions(script_model):
    tagger = Scripted(script_model, lambda line, k: _tag(PERIOD) if k == len(line) - 1 else Tag(), tasks="punc",
                      fragments=False)
    assert tagger.predict(["你吃饭了吗", "我们去北京"]) == ["你吃饭了吗？", "我们去北京。"]


def test_decode_lines_gate_keeps_deletions():
    words = "we we went".split()
    probs = scripted_probabilities([KEEP] * 3)
    (tags,) = decode_lines([words], probs, NAMES, frozenset({"disf", "punc"}), DecodeConfig(min_error_probability=0.5))
    assert apply_tags(words, tags) == "we went"


def test_a_stream_of_utterances_opens_each_upper_case(script_model):
    """Read as utterances (not ``fragments``), a stream's first window begins one: its first word is
    upper-case though the tagger leaves ``so`` lower-case and the look-ahead finalises it early."""
    tagger = Scripted(script_model, lambda line, k: _tag(PERIOD) if line[k] == "went" else Tag(), tasks="punc",
                      fragments=False)
    streamer = StreamingPunctuator(tagger, lookahead=1)
    out = [w for word in "so we went home".split() for w in streamer.push([word])] + streamer.end()
    assert caption_text(out) == "So we went. Home."
    assert tagger.predict(["so we went home"]) == ["So we went. Home."]


def test_a_spanish_line_opens_the_question_its_closing_mark_asks():
    """The ``?`` that closes a whole line is paired with ``¿`` like any other (the pairing runs after the line
    is closed): in a line whose first question the tagger opened, the second opens too."""
    import numpy as np

    asked, opened = Tag(append="?").punct, Tag(prepend="¿", append="?").punct
    names = {PUNCT_HEAD.name: [KEEP, Tag(prepend="¿").punct, asked, opened, Tag(append=".").punct],
             CASE_HEAD.name: [KEEP, CAPITAL], DETECT_HEAD.name: ["CORRECT", "INCORRECT"]}
    words = ["qué", "cuánto", "cuesta"]
    probs = no_edit_probabilities(names, len(words), len(MARK_CONTEXTS))
    punct = probs[PUNCT_HEAD.name]
    punct[0] = np.array([0.1, 0.0, 0.0, 0.9, 0.0])  # ¿qué?
    punct[1] = np.array([0.8, 0.2, 0.0, 0.0, 0.0])  # ¿ likelier here than elsewhere, below a half
    punct[2] = np.array([0.7, 0.0, 0.3, 0.0, 0.0])  # the line's last word: ? likelier than .
    probs[DETECT_HEAD.name][0] = np.array([0.0, 1.0])
    (tags,) = decode_lines([words], probs, names, frozenset({"punc"}), DecodeConfig(), whole=True)
    assert apply_tags(words, tags) == "¿Qué? ¿Cuánto cuesta?"


def test_a_written_line_takes_no_mark_its_writer_left_out():
    """Restored text given again came back changed (``the way the court applied. The Second Amendment``): the
    first pass's marks changed the context of a word it had left unmarked. A line that opens with a capital,
    ends with a sentence mark and whose marks are at least ``written`` complete is its writer's; a line with
    few of the marks the model expects (``milk eggs and bread``), a lower-case one, or one open at its end
    still takes them, and so does every line with the rule off."""
    comma = Tag(append=",").punct

    def restored(text, rows, config=DecodeConfig()):
        words = text.split()
        (tags,) = decode_lines([words], scripted_probabilities(rows), NAMES, frozenset({"punc"}), config)
        return apply_tags(words, tags)

    wants_one = [KEEP, comma, KEEP, KEEP]  # 2 marks given, 1 expected: 2/3 complete
    assert restored("So, we went home.", wants_one) == "So, we went home."
    assert restored("So, we went home.", wants_one, DecodeConfig(written=1.1)) == "So, we, went home."
    assert restored("so, we went home.", wants_one) == "so, we, went home."
    assert restored("So, we went home", wants_one) == "So, we, went home"
    assert restored("We bought milk eggs and bread.", [KEEP, KEEP, comma, comma, KEEP, KEEP]) == \
        "We bought milk, eggs, and bread."  # 1 given, 2 expected: 1/3 complete


def test_a_later_pass_reads_the_taggers_marks_not_a_writers(script_model):
    """With ``iteration_count`` 2 the second pass tags lines the first changed: their marks are the tagger's, so
    no line of it is taken as written (else a second pass would add no mark); a line given as written still
    takes none. The script adds a comma after ``so`` once ``home.`` is in the line."""
    def script(line, k):
        if line[k] == "home":
            return _tag(PERIOD)
        return _tag(Tag(append=",").punct) if line[k].lower() == "so" and "home." in line else Tag()

    once = Scripted(script_model, script, tasks="punc", fragments=False)
    assert once.predict(["so we went home", "So we went home."]) == ["So we went home.", "So we went home."]
    once.iteration_count = 2
    assert once.predict(["so we went home", "So we went home."]) == ["So, we went home.", "So we went home."]


def test_decode_lines_joins_after_an_address_but_not_where_a_stream_decided():
    """``join_after_addresses`` could leave ``LINE_RULES``, or stop sparing the words a stream already decided
    (``given``), and every test of it alone still passed."""
    words = "write to support@acme.com and we'll answer".split()
    probs = scripted_probabilities([KEEP] * 5 + [PERIOD])
    probs[PUNCT_HEAD.name][2, NAMES[PUNCT_HEAD.name].index(KEEP)] = 0.4  # an unsure sentence end after the address
    probs[PUNCT_HEAD.name][2, NAMES[PUNCT_HEAD.name].index(PERIOD)] = 0.6
    probs[DETECT_HEAD.name][2] = torch.tensor([0.0, 1.0])
    (tags,) = decode_lines([words], probs, NAMES, frozenset({"punc"}), DecodeConfig(additional_confidence=0.0))
    assert apply_tags(words, tags) == "write to support@acme.com and we'll answer."
    given = [Tag(), Tag(), period]  # a stream wrote the address's period before these words came
    (tags,) = decode_lines([words], probs, NAMES, frozenset({"punc"}), DecodeConfig(additional_confidence=0.0),
                           given=[given])
    assert tags[:3] == given and apply_tags(words, tags) == "write to support@acme.com. And we'll answer."


def test_likeliest_is_argmax_over_its_labels_the_first_of_equals():
    """Ties were never tested: the first of equal labels (in column order, as argmax takes them) wins, so a
    decision does not hang on the order the label runs are read in."""
    from gector_punct.prediction.decoding import likeliest

    rng = np.random.default_rng(0)
    p = (rng.integers(0, 3, size=(300, 7)) / 2).astype(np.float32)  # values 0, 0.5, 1: many ties
    for keep, columns, bias in ((0, [1, 2, 5, 6], 0.0), (3, [0, 1, 4, 5], 0.0), (0, [2, 3, 4], 0.5)):
        labels = sorted({keep, *columns})
        scores = np.stack([p[:, j] + (bias if j == keep else 0.0) for j in labels], axis=1)
        expected = np.array(labels)[scores.argmax(1)]
        assert (likeliest(p, keep, bias, columns, threshold=0.0) == expected).all(), (keep, columns, bias)
