"""Backchannels (issue 68): a listener's short turn said over, or between the words of, another speaker's
sentence neither closes nor splits it; it is punctuated as a statement unless it asks; words without a speaker
inside a turn belong to it."""
import json

import pytest

from gector_punct import Punctuator
from gector_punct.transcripts.backchannels import PAUSE, marked_backchannels, placed
from gector_punct.transcripts.restoring import restored_segments
from gector_punct.transcripts.timed_words import Segment, TimedWord, read_segments

SENTENCE = "so we went to the store last week and then we bought some fresh bread for the kids"


def timed(turns, rate=0.35, gap=0.3):
    """Words of ``turns`` [(speaker, text, offset)]: ``rate`` s a word; a turn starts ``gap`` s after the word
    before, moved by its ``offset`` (negative: said over the words before)."""
    words, t = [], 0.0
    for speaker, text, offset in turns:
        t += gap + offset
        for word in text.split():
            words.append(TimedWord(word, round(t, 3), round(t + rate * 0.8, 3), {"word": word}, speaker))
            t += rate
    return words


def marks(turns, **timing):
    words = timed(turns, **timing)
    list(marked_backchannels([Segment({}, words)]))
    return [w.text for w in words if w.backchannel]


A, B = "SPEAKER_00", "SPEAKER_01"
HALF = SENTENCE.split()[:8], SENTENCE.split()[8:]


@pytest.mark.parametrize("turn, offset, marked", [
    ("mm-hmm", 0.0, ["mm-hmm"]),  # a listener's token between the words of a sentence
    ("oh wow", 0.0, ["oh", "wow"]),
    ("right right right", 0.0, ["right", "right", "right"]),
    ("right right right right", 0.0, []),  # four words: a turn
    ("on tuesday", 0.0, []),  # an answer said between two turns: a turn of its own
    ("on tuesday", -0.5, ["on", "tuesday"]),  # said over the other speaker's words
])
def test_a_short_turn_between_another_speakers_words_is_a_backchannel(turn, offset, marked):
    assert marks([(A, " ".join(HALF[0]), 0.0), (B, turn, offset), (A, " ".join(HALF[1]), 0.0)]) == marked


def test_no_backchannel_where_the_other_speaker_yields_the_floor_or_a_third_speaks():
    assert marks([(A, " ".join(HALF[0]), 0.0), (B, "mm-hmm", 0.0), (A, " ".join(HALF[1]), PAUSE)]) == []
    assert marks([(A, " ".join(HALF[0]), 0.0), (B, "mm-hmm", 0.0), ("C", " ".join(HALF[1]), 0.0)]) == []
    assert marks([(A, " ".join(HALF[0]), 0.0), (B, "mm-hmm", 0.0)]) == []  # the transcript's last word
    assert marks([(A, " ".join(HALF[0]), 0.0), (B, "mm-hmm", 0.0), (A, " ".join(HALF[1]), 0.9)]) == ["mm-hmm"]


def test_a_word_without_a_speaker_belongs_to_the_turn_it_is_in():
    words = timed([(A, "so we went", 0.0), (None, "to", 0.0), (A, "the store", 0.0), (None, "okay", 0.0)])
    list(marked_backchannels([Segment({}, words[:3]), Segment({}, words[3:])]))
    assert [w.speaker for w in words] == [A] * 7


def test_segments_are_held_only_while_a_turn_may_be_a_backchannel():
    segments = [Segment({}, words) for words in ([w] for w in timed([(A, "so we", 0.0), (B, "mm-hmm", 0.0),
                                                                     (A, "went home", 0.0)]))]
    given = marked_backchannels(iter(segments))
    assert next(given) is segments[0] and next(given) is segments[1]  # the first two: A's
    assert next(given) is segments[2] and segments[2].words[0].backchannel  # held until A came back


def written(words):
    return [(w.text, w.speaker) for w, _ in words]


def test_kept_a_backchannel_shows_where_the_sentence_it_interrupts_ends():
    words = timed([(A, "we went to the", 0.0), (B, "Mm-hmm.", 0.0), (A, "store. Then we left. And", 0.0)])
    words[4].backchannel = True
    pairs = [(w, w.text) for w in words]
    assert [text for text, _ in written(placed(pairs, "keep"))] == \
           "we went to the store. Mm-hmm. Then we left. And".split()
    assert [text for text, _ in written(placed(pairs, "drop"))] == "we went to the store. Then we left. And".split()
    assert [text for text, _ in written(placed(pairs, "keep", within_ms=300))] == \
           "we went to the store. Then we left. And".split()  # its sentence ended too long after it
    assert [text for text, _ in written(placed(pairs[:5], "keep"))][-1] == "Mm-hmm."  # the end releases it
    with pytest.raises(ValueError, match="unknown backchannels mode 'hide'"):
        list(placed(pairs, "hide"))


@pytest.fixture(scope="module")
def default_en():
    return Punctuator.load("default_en")


def restored(punctuator, tmp_path, turns):
    words = timed(turns)
    path = tmp_path / "call.json"
    path.write_text(json.dumps({"segments": [{"words": [{"word": w.text, "start": w.start, "end": w.end,
                                                         "speaker": w.speaker}]} for w in words]}))
    return [(word.speaker, result.text) for segment, results in restored_segments(punctuator, read_segments(str(path), "whisper"))
            for word, result in zip(segment.words, results) if result is not None]


@pytest.mark.parametrize("token", ["right", "mm-hmm", "okay"])
def test_the_interrupted_sentence_reads_as_one_and_the_backchannel_is_a_statement(default_en, tmp_path, token):
    """The issue's interview: a listener's token split the speaker's sentence (the cue before ended
    mid-clause, the next began in lower case) and was punctuated as a question (``-Right?``)."""
    words = restored(default_en, tmp_path, [(A, " ".join(HALF[0]), 0.0), (B, token, 0.0), (A, " ".join(HALF[1]), 0.0)])
    spoken = [text for speaker, text in words if speaker == A]
    assert " ".join(spoken) == default_en.predict([SENTENCE])[0]
    said = [text for speaker, text in words if speaker == B]
    assert len(said) == 1 and said[0].lower().startswith(token) and said[0][-1] in ".!"


def interview(token="right", first=" ".join(HALF[0]), rest=" ".join(HALF[1]) + " and it was good"):
    """A WhisperX result: SPEAKER_00's sentence, SPEAKER_01's listener token said over it."""
    words = timed([(A, first, 0.0), (B, token, -0.2), (A, rest, 0.0)])
    return {"segments": [{"start": w.start, "end": w.end, "speaker": w.speaker,
                          "words": [{"word": w.text, "start": w.start, "end": w.end, "speaker": w.speaker}]}
                         for w in words], "language": "en"}


def test_text_keeps_a_backchannel_inside_the_paragraph_it_interrupts(default_en):
    from gector_punct import restore_transcript
    from gector_punct.transcripts.style import SubtitleStyle
    restored = restore_transcript(default_en, interview())
    text = restored.to_text(speaker_names={B: "Tom"})
    assert text.count("\n\n") == 0 and text.startswith("SPEAKER_00: So we went")  # one paragraph, the 5 of 56
    assert "(Tom: Right.)" in text and "Right?" not in text
    assert text.index("(Tom: Right.)") > text.index(".")  # after the sentence it interrupts ends
    dropped = restore_transcript(default_en, interview()).to_text(SubtitleStyle(backchannels="drop"))
    assert "Right" not in dropped and dropped.count("\n\n") == 0


@pytest.mark.parametrize("first, rest, shown", [
    (" ".join(HALF[0]), " ".join(HALF[1]) + " and it was good", False),  # the sentence spans two cues: left out
    ("we went home", "and it was late", True),  # the sentence ends in the cue: a dialogue line
])
def test_cues_never_split_a_sentence_at_a_backchannel(default_en, tmp_path, first, rest, shown):
    """A dialogue line only where the other speaker's sentence ends in that cue, never one that goes on with
    a sentence of the cue before (the issue's ``-for the kids ...`` / ``-Right?``), else left out."""
    from gector_punct import restore_transcript
    from gector_punct.transcripts.checked_cues import read_cues
    from gector_punct.transcripts.checker import violations
    srt = restore_transcript(default_en, interview("right", first, rest)).to_srt()
    (tmp_path / "t.srt").write_text(srt)
    cues = read_cues(str(tmp_path / "t.srt"))
    assert violations(cues) == []
    for k, cue in enumerate(cues):
        if cue.lines[0].startswith("-"):  # a dialogue cue: each line opens an utterance, the cue before ends one
            assert all(line[1].isupper() for line in cue.lines), srt
            assert k == 0 or cues[k - 1].lines[-1][-1] in ".?!", srt
    assert ("-Right." in srt) == shown and "Right?" not in srt


def test_a_word_without_text_and_another_speaker_closes_no_turn(default_en, tmp_path):
    """A recogniser's empty word (its text blank) labelled with another speaker says nothing: the sentence
    around it reads as one (restoring's turn test reads only words with text)."""
    words = timed([(A, " ".join(HALF[0]), 0.0), (B, "x", 0.0), (A, " ".join(HALF[1]), 0.0)])
    path = tmp_path / "call.json"
    path.write_text(json.dumps({"segments": [{"words": [{"word": " " if w.text == "x" else w.text, "start": w.start,
                                                         "end": w.end, "speaker": w.speaker} for w in words]}]}))
    results = [r.text for s, rs in restored_segments(default_en, read_segments(str(path), "whisper"))
               for r in rs if r is not None]
    assert " ".join(results) == default_en.predict([SENTENCE])[0]


def test_a_word_without_a_speaker_after_a_backchannel_belongs_to_the_turn_that_goes_on():
    """The report's case: ``carolina's`` (A) ``mm-hmm`` (B) ``8th`` (no speaker) ``district`` (A): ``8th`` is A's,
    not the listener's (it was shown after the sentence with ``mm-hmm``)."""
    words = timed([(A, "for north carolina's", 0.0), (B, "mm-hmm", -0.1), (None, "8th", -0.2), (A, "district", 0.0)])
    list(marked_backchannels([Segment({}, words)]))
    assert [(w.text, w.speaker, w.backchannel) for w in words[2:]] == [
        ("carolina's", A, False), ("mm-hmm", B, True), ("8th", A, False), ("district", A, False)]
    words = timed([(A, "so we", 0.0), (B, "mm-hmm", 0.0), (None, "yeah", 0.0)])  # the end: the one before
    list(marked_backchannels([Segment({}, words)]))
    assert [w.speaker for w in words] == [A, A, B, B]


def test_a_word_without_a_speaker_before_a_listeners_token_stays_with_the_speaker():
    """The report's case: ``have`` (A) ``an`` (no speaker) ``okay`` (B, over A) ``opportunity`` (A): ``an`` is A's;
    taking the listener's speaker made ``an okay`` a backchannel and left ``an`` out of the subtitles."""
    words = timed([(B, "we should not waste this opportunity", 0.0), (A, "we have", 0.3), (None, "an", 0.0),
                   (B, "okay", 0.0), (A, "opportunity to replace him", -0.3)])
    list(marked_backchannels([Segment({}, words)]))
    assert [(w.text, w.speaker, w.backchannel) for w in words[6:10]] == [
        ("we", A, False), ("have", A, False), ("an", A, False), ("okay", B, True)]


def test_a_listeners_tokens_are_words_or_phrases_never_their_parts():
    from gector_punct.transcripts.backchannels import said_by_a_listener
    assert said_by_a_listener(["Mm-hmm."]) and said_by_a_listener(["oh", "wow"]) and said_by_a_listener(["I", "see."])
    assert said_by_a_listener(["of", "course"]) and not said_by_a_listener(["of"]) and not said_by_a_listener(["see"])
    assert not said_by_a_listener(["all", "walks"]) and not said_by_a_listener([])


@pytest.mark.parametrize("length, marked", [(2.0, True), (2.001, False)])
def test_a_backchannel_lasts_two_seconds_at_most(length, marked):
    words = timed([(A, "so we went", 0.0), (B, "yeah okay", 0.0), (A, "home then", 0.0)])
    words[3].end = words[4].end = words[3].start + length  # its last word ends this long after its first began
    words[4].start = words[3].start + 0.1
    list(marked_backchannels([Segment({}, words)]))
    assert [w.backchannel for w in words[3:5]] == [marked] * 2


@pytest.mark.parametrize("gap, marked", [(PAUSE - 0.001, True), (PAUSE, False)])
def test_the_other_speaker_keeps_the_floor_within_the_pause(gap, marked):
    words = timed([(A, "so we went", 0.0), (B, "mm-hmm", 0.0), (A, "home", 0.0)])
    words[4].start, words[4].end = words[2].end + gap, words[2].end + gap + 0.3
    list(marked_backchannels([Segment({}, words)]))
    assert words[3].backchannel == marked


def test_said_over_means_overlapping_not_touching():
    words = timed([(A, "so we went", 0.0), (B, "on tuesday", 0.0), (A, "home", 0.0)])
    words[3].start, words[4].end, words[5].start = words[2].end, words[5].start, words[5].start  # touching both
    list(marked_backchannels([Segment({}, words)]))
    assert not words[3].backchannel  # not a listener's tokens, not said over: a turn


def test_a_word_without_a_speaker_between_two_turns_of_neither_token_takes_the_one_before():
    words = timed([(B, "we should go now", 0.0), (A, "we have", 0.3), (None, "an", 0.0), (B, "idea then", 0.0)])
    list(marked_backchannels([Segment({}, words)]))
    assert words[6].speaker == A


def test_placing_keeps_the_order_where_no_sentence_ends_and_says_a_bad_mode_whole():
    words = timed([(B, "Mm-hmm.", 0.0), (A, "we moved to the U.S.", 0.0), (B, "Right.", 0.0), (A, "Then we left.", 0.0)])
    words[0].backchannel = words[6].backchannel = True
    pairs = [(w, w.text) for w in words]
    assert [t for t, _ in written(placed(pairs, "keep"))] == \
        "we moved to the U.S. Mm-hmm. Right. Then we left.".split()  # released after "U.S." before "Then"
    near = placed(pairs, "keep", within_ms=(words[5].end - words[0].start) * 1000)  # shown exactly that late
    assert "Mm-hmm." in [t for t, _ in written(near)]
    late = placed(pairs[:7], "keep", within_ms=1000)  # at the end too: Mm-hmm said too long before it
    assert [t for t, _ in written(late)][-3:] == ["the", "U.S.", "Right."]
    with pytest.raises(ValueError) as err:
        list(placed(pairs, "hide"))
    assert str(err.value) == "unknown backchannels mode 'hide' (one of keep, drop)"


def test_a_backchannel_never_opens_a_cue_of_the_next_sentence():
    """Said over a sentence that ends in a full two-line cue, ``Mm-hmm`` was paired with the speaker's next
    sentence (``-Mm-hmm.`` / ``-At&t sent me ...``): it belongs to the sentence it interrupted, or to none."""
    from gector_punct.transcripts.cues import CueBuilder
    said = ("So we went to the store last week, and then we bought some fresh bread for the kids, and it was "
            "really good.").split()
    builder, cues, t = CueBuilder(), [], 0.0
    for word in said:
        cues += builder.add(t, t + 0.3, word, A)
        t += 0.35
    cues += builder.add(t - 2.0, t - 1.7, "Mm-hmm.", B, optional=True)  # said over "kids", shown after "good."
    for word in "At&t sent me a text.".split():
        cues += builder.add(t, t + 0.3, word, A)
        t += 0.35
    cues += builder.finish()
    assert not any(cue.lines[0].startswith("-Mm-hmm") for cue in cues), cues


def test_a_turn_that_opens_under_a_listeners_token_is_no_backchannel():
    """The report's case: ``the lhc`` (B) ``and i`` (A, starting a turn) ``okay`` (B, over A) ``promised`` (A):
    ``and i`` looked like a short turn between two of B's words; the token is B's backchannel, A's turn goes on."""
    words = timed([(B, "to the lhc", 0.0), (A, "and i", 0.8), (B, "okay", -0.3), (A, "promised to come back", -0.1)])
    list(marked_backchannels([Segment({}, words)]))
    assert [w.text for w in words if w.backchannel] == ["okay"]
