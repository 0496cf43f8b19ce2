"""What is said twice (gector_punct/text/repeats.py): the earlier copy goes, one copy always stays whatever the
model deleted of it, fillers are passed over, backchannels and emphatic doubles stay; and the shipped switching
model on the lines of issue 42 that lost both copies."""
import pytest

from gector_punct.text.repeats import FILLERS, repeated_words


def kept(text, going=("um", "uh")):
    """The words left of ``text`` when the words in ``going`` (a set of words, or a list of flags: the
    model's deletions) already go."""
    words = text.split()
    gone = [w in going for w in words] if isinstance(going, tuple) else going
    return " ".join(w for w, g in zip(words, repeated_words(words, gone)) if not g)


def flags(text, going):
    return [c == "x" for c in going.split()] if going else [False] * len(text.split())


def test_a_word_or_phrase_said_twice_goes_once_and_fillers_are_passed_over():
    assert kept("i think i think we should go home") == "i think we should go home"
    assert kept("nobody nobody told me") == "nobody told me"
    assert kept("the problem is is that") == "the problem is that"
    assert kept("we should um we should call the the landlord") == "we should call the landlord"
    assert kept("i had had enough and no no no") == "i had had enough and no no no"  # doubled on purpose
    assert kept("i i i think so") == "i think so"


def test_one_copy_stays_whatever_the_model_deleted_of_it():
    # P($DELETE) of the shipped model, --tasks disf,punc: um .99 can .81 you .86 can .88 you .00
    text = "um can you can you hear me okay"
    assert kept(text, flags(text, "x x x x . . . .")) == "can you hear me okay"
    # The model took part of the earlier copy (it's .58, not .37): the copies still compare word for word.
    text = "the thing is uh it's not it's not really my fault"
    assert kept(text, flags(text, ". . . x x . . . . . .")) == "the thing is it's not really my fault"
    text = "did the did the jury"
    assert kept(text, flags(text, "x x x . .")) == "did the jury"


def test_fillers_of_the_kept_copy_and_whole_runs_of_edit_terms_still_go():
    assert "uh" in FILLERS
    text = "uh i uh i had a hard time"
    assert kept(text, flags(text, "x x x . . . . .")) == "i had a hard time"
    text = "it was you know you know good"  # the model takes the whole run as edit terms: it all goes
    assert kept(text, flags(text, ". . x x x x .")) == "it was good"
    assert kept("uh uh well", flags("uh uh well", "x x .")) == "well"


@pytest.mark.parametrize("text", ["uh-huh uh-huh", "right right", "yeah yeah", "very very good", "no no",
                                  "oh yeah oh yeah", "okay okay", "yes yes", "exactly exactly"])
def test_backchannels_and_emphatic_doubles_stay(text):
    assert kept(text) == text


def test_the_shipped_model_keeps_one_copy_in_both_modes():
    from gector_punct.prediction.punctuator import Punctuator
    from gector_punct.prediction.shipped import SWITCHING_MODEL
    lines = ["um can you can you hear me okay",
             "i mean the the thing is uh it's not it's not really my fault you know"]
    switching = Punctuator.load(SWITCHING_MODEL, device="cpu", tasks="disf,punc")
    joint = switching.predict(lines)
    assert joint[0].startswith("Can you hear me"), joint
    assert "The thing is, it's not really my fault" in joint[1] and "not. It's" not in joint[1], joint
    switching = Punctuator.load(SWITCHING_MODEL, device="cpu", tasks="disf")
    assert switching.predict(lines) == ["can you hear me okay", "the thing is it's not really my fault"]


def test_the_measurement_reads_switchboard_lines_per_utterance_or_side():
    import os
    import sys
    from conftest import ROOT
    from gector_punct_data.corpora.switchboard import Word
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    import repetition_scores

    side = [Word("uh-huh", "fluent", "1A", utterance_end=True), Word("i", "reparandum", "1A"),
            Word("i", "repair", "1A"), Word("th-", "reparandum", "1A"), Word("think", "fluent", "1A")]
    sides = {"1A": side}
    assert repetition_scores.gold_lines(sides, "all", "utterance") == [
        (["uh-huh"], [False]), (["i", "i", "th", "think"], [True, False, True, False])]
    assert repetition_scores.gold_lines(sides, "all", "side") == [
        (["uh-huh", "i", "i", "th", "think"], [False, True, False, True, False])]
    with pytest.raises(SystemExit) as stop:
        repetition_scores.main(["--part", "nope"])
    assert stop.value.code == 2
