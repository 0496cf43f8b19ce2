"""Decoding rules of issue 32 (``gector_punct.decoding``): no mark inside a spoken number or date, Chinese
questions end with ？, an utterance opens upper-case; each test states the bug it guards against."""
from gector_punct.decoding import chinese_questions, join_spoken_numbers, open_utterance
from gector_punct.tags import CAPITAL, Tag, apply_tags

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
    for line, mark in [("你要不要一起来", "？"), ("你吃饭了吗", "？"), ("我们几点见面", "？"), ("我不知道他要什么", "。"),
                       ("我们去北京", "。")]:
        words = list(line)
        out = apply_tags(words, chinese_questions(words, [Tag()] * (len(words) - 1) + [period]))
        assert out.endswith(mark), (line, out)
    words = "we go where".split()  # not Chinese: untouched
    assert chinese_questions(words, [Tag(), Tag(), period]) == [Tag(), Tag(), period]


def test_an_utterance_opens_past_a_symbol():
    words = ["🍕", "so", "good"]
    assert apply_tags(words, open_utterance(words, [Tag()] * 3)) == "🍕 So good"
