"""Times made steady before cues are timed (gector_punct/transcripts/speech_times.py), each rule at its edge."""
import pytest

from gector_punct.transcripts.speech_times import LOOKAHEAD, STRAY_MS, SteadyTimes, longest_ms


def steadied(*words):
    """(start, end) of each word (start, end, speaker) pushed in order, ms."""
    times, out = SteadyTimes(), []
    for k, (start, end, speaker) in enumerate(words):
        out += times.push(start, end, "word", k, speaker)
    return [(start, end) for start, end, _ in out + times.finish()]


def test_a_word_is_given_out_once_lookahead_words_came_after_it():
    times = SteadyTimes()
    given = [len(times.push(k * 400, k * 400 + 300, "word", k)) for k in range(LOOKAHEAD + 2)]
    assert given == [0] * LOOKAHEAD + [1, 1] and len(times.finish()) == LOOKAHEAD


@pytest.mark.parametrize("start, end, expected", [(1000, 500, (1000, 1000)), (-500, -200, (0, 0)), (0, 0, (0, 0))])
def test_no_time_before_the_recording_and_no_end_before_the_start(start, end, expected):
    assert steadied((start, end, "A")) == [expected]


def test_one_speakers_word_inside_the_word_before_starts_where_it_ends():
    assert steadied((0, 500, "A"), (100, 400, "A")) == [(0, 500), (500, 500)]
    assert steadied((0, 500, "A"), (100, 500, "A")) == [(0, 500), (500, 500)]
    assert steadied((0, 500, "A"), (100, 400, "B")) == [(0, 500), (100, 400)]  # two speakers may overlap


def test_a_stray_is_a_word_more_than_stray_ms_after_a_later_word_that_follows_the_word_before():
    late = 1000 + STRAY_MS
    assert steadied((0, 300, "A"), (late + 1, late + 301, "A"), (1000, 1300, "A"))[1] == (300, 600)  # put back
    assert steadied((0, 300, "A"), (late, late + 300, "A"), (1000, 1300, "A"))[1] == (late, late + 300)  # not over it
    assert steadied((0, 300, "A"), (5000, 5300, "A"), (0, 300, "A"))[1] == (300, 300)  # a later word at the start


def test_a_word_said_for_too_long_is_cut_at_the_side_where_speech_goes_on():
    longest = longest_ms("word")
    assert steadied((0, 300, "A"), (310, 9310, "A"), (9810, 10100, "A"))[1] == (310, 310 + longest)  # said at once
    assert steadied((0, 300, "A"), (1310, 9310, "A"), (9320, 9600, "A"))[1] == (9310 - longest, 9310)  # said late
    assert steadied((0, 300, "A"), (310, 310 + longest, "A"))[1] == (310, 310 + longest)  # at the longest: kept
