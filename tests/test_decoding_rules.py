"""Decoding rules of issue 32 (``gector_punct.prediction.decoding``): no mark inside a spoken number or date, Chinese
questions end with ？, an utterance opens upper-case; each test states the bug it guards against."""
from gector_punct.prediction.decoding import chinese_questions, join_spoken_numbers, open_utterance
from gector_punct.text.tags import CAPITAL, Tag, apply_tags

comma, period = Tag(append=","), Tag(append=".")


def test_no_mark_inside_a_spoken_number():
    words = "call five five five one two three four".split()
    tags = [Tag(), comma, comma, period, Tag(case=CAPITAL), comma, comma, period]
    assert apply_tags(words, join_spoken_numbers(words, tags)) == "call five five five one two three four."


def test_a_date_and_a_time_stay_whole_but_marks_around_them_stay():
    words = "on march third at two thirty pm".split()
    tags = [Tag(), comma, comma, Tag(), comma, Tag(case=CAPITAL), period]
    assert apply_tags(words, join_spoken_numbers(words, tags)) == "on march third, at two thirty pm."
    words = "one apple, two pears".split()  # a mark the input has stays
    assert apply_tags(words, join_spoken_numbers(words, [Tag()] * 4)) == "one apple, two pears"


def test_chinese_questions_end_with_a_question_mark():
    for line, mark in [("你要不要一起来", "？"), ("你吃饭了吗", "？"), ("你是不是学生", "？"), ("我不知道他是不是学生", "。"),
                       ("我们没有什么问题", "。"), ("我们去北京", "。")]:
        words = list(line)
        out = apply_tags(words, chinese_questions(words, [Tag()] * (len(words) - 1) + [period]))
        assert out.endswith(mark), (line, out)
    words = "we go where".split()  # not Chinese: untouched
    assert chinese_questions(words, [Tag(), Tag(), period]) == [Tag(), Tag(), period]


def test_an_utterance_opens_past_a_symbol():
    words = ["🍕", "so", "good"]
    assert apply_tags(words, open_utterance(words, [Tag()] * 3)) == "🍕 So good"


def test_a_word_or_phrase_said_twice_goes_once_and_fillers_are_passed_over():
    from gector_punct.prediction.decoding import repeated_words

    def kept(line, fillers=("um", "uh")):
        words = line.split()
        gone = repeated_words(words, [w in fillers for w in words])
        return " ".join(w for w, g in zip(words, gone) if not g)

    assert kept("i think i think we should go home") == "i think we should go home"
    assert kept("nobody nobody told me") == "nobody told me"
    assert kept("the problem is is that") == "the problem is that"
    assert kept("we should um we should call the the landlord") == "we should call the landlord"
    assert kept("i had had enough and no no no") == "i had had enough and no no no"  # doubled on purpose


def test_only_the_disf_task_deletes_repetitions(random_editor):
    """Punctuation alone never changes the words; with disf the repetition goes."""
    import torch

    from gector_punct.prediction.decoding import with_repetitions
    lines = [["so", "so", "we", "we", "went"]]
    assert with_repetitions(lines, torch.zeros(5, dtype=torch.bool)).tolist() == [False, False, True, False, False]
    from gector_punct.text.tags import split_edges
    punc_only = random_editor.predict(["we we went"])[0]
    assert [split_edges(w)[1].lower() for w in punc_only.split()] == ["we", "we", "went"]


def test_an_unlikely_exclamation_becomes_a_period():
    from gector_punct.prediction.decoding import temper_exclamations
    shout, quoted = Tag(append="!"), Tag(append='!"')
    assert temper_exclamations([shout, quoted, shout], [0.4, 0.3, 0.9], 0.5) == [
        Tag(append="."), Tag(append='."'), shout]
    assert temper_exclamations([shout], [0.1], 0.0) == [shout]  # 0: every ! the tagger chooses stays


def test_a_spanish_line_opens_the_question_its_closing_mark_asks():
    """The ``?`` that closes a whole line is paired with ``¿`` like any other (the pairing runs after the line
    is closed): in a line whose first question the tagger opened, the second opens too."""
    import torch

    from gector_punct.model.config import DecodeConfig
    from gector_punct.prediction.decoding import decode_lines, no_edit_probabilities
    from gector_punct.text.tags import KEEP, MARK_CONTEXTS
    from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD

    asked, opened = Tag(append="?").punct, Tag(prepend="¿", append="?").punct
    names = {PUNCT_HEAD.name: [KEEP, Tag(prepend="¿").punct, asked, opened, Tag(append=".").punct],
             CASE_HEAD.name: [KEEP, CAPITAL], DETECT_HEAD.name: ["CORRECT", "INCORRECT"]}
    words = ["qué", "cuánto", "cuesta"]
    probs = no_edit_probabilities(names, len(words), len(MARK_CONTEXTS))
    punct = probs[PUNCT_HEAD.name]
    punct[0] = torch.tensor([0.1, 0.0, 0.0, 0.9, 0.0])  # ¿qué?
    punct[1] = torch.tensor([0.8, 0.2, 0.0, 0.0, 0.0])  # ¿ likelier here than elsewhere, below a half
    punct[2] = torch.tensor([0.7, 0.0, 0.3, 0.0, 0.0])  # the line's last word: ? likelier than .
    probs[DETECT_HEAD.name][0] = torch.tensor([0.0, 1.0])
    (tags,) = decode_lines([words], probs, names, frozenset({"punc"}), DecodeConfig(), whole=True)
    assert apply_tags(words, tags) == "¿Qué? ¿Cuánto cuesta?"
