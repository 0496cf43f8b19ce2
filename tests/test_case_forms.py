"""Case forms: how a word is written when the tagger makes it not lower-case (``gector_punct.text.case_forms``)."""
import gzip
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from gector_punct.text.case_forms import FILE_NAME, CaseForm, CaseForms, listed_forms, listed_names
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import CAPITAL, UPPER, Tag, apply_tags

TEXT = ["She bought an iPhone and a new iPad from IBM, okay?",
        "Okay, we met at IBM and she said okay to the iPhone.",
        "IPHONE SALES ARE DOWN",  # shouted: says nothing about case
        "Iphone is how a sentence starts, and it says nothing either.",
        "We like New York, and the new iPhone, okay?",
        "Zebras run.",
        "They told us, and us again, about the US."]


def forms():
    return CaseForms.count(TEXT, min_count=1)


def test_count_ignores_sentence_starts_and_shouted_lines():
    lexicon = forms().forms
    assert lexicon["iphone"] == CaseForm("iPhone", 100)
    assert lexicon["ibm"] == CaseForm("IBM", 100)
    assert lexicon["okay"] == CaseForm("Okay", 0)  # never capitalised inside a sentence
    assert lexicon["new"] == CaseForm("New", 33)
    assert lexicon["us"] == CaseForm("US", 33)
    assert "sales" not in lexicon and "zebras" not in lexicon  # only in the shouted line, at a sentence start
    assert "iphone" not in CaseForms.count(TEXT, min_count=4).forms  # seen 3 times inside sentences


def restore(words, tags):
    return apply_tags(words, forms().apply(words, tags))


def test_names_take_their_form_and_common_words_a_capital():
    words = "okay so the iphone from ibm is new".split()
    upper = Tag(case=UPPER)
    tags = [upper, Tag(), Tag(), Tag(case=CAPITAL), Tag(), Tag(case=UPPER), Tag(), Tag()]
    assert restore(words, tags) == "Okay so the iPhone from IBM is new"
    # A sentence start writes a name's own form (one that begins lower-case keeps it: iPhone); an unknown word
    # keeps the tagger's choice.
    end = Tag(append=".")
    words = "it works us too iphone sales zorg rose".split()
    tags = [Tag(), end, upper, end, upper, Tag(), upper, Tag()]
    assert restore(words, tags) == "it works. Us too. iPhone sales ZORG rose"
    assert restore(["of", "us"], [Tag(), Tag(case=CAPITAL)]) == "of US"  # mostly lower, but not here


def test_lower_case_decisions_acronyms_and_cased_input_stay():
    words = "the new ibm usa IBM".split()
    acronym = Tag(acronym=True, case=UPPER)
    tags = [Tag(), Tag(), acronym, Tag(), Tag(case=CAPITAL)]
    assert forms().apply(words, tags)[:4] == tags[:4]  # "new" is lower-case two times in three
    assert forms().apply(words, tags)[4] == tags[4]  # "IBM" is not an all-lower-case key
    # A word written with capitals every time (share >= 99) takes its form even where the tagger says lower.
    assert apply_tags(["from", "ibm"], forms().apply(["from", "ibm"], [Tag(), Tag()])) == "from IBM"


def test_save_load_round_trip_and_bad_file(tmp_path):
    forms().save(str(tmp_path))
    assert CaseForms.load(str(tmp_path)).forms == {**forms().forms, **listed_forms()}
    assert CaseForms.load(str(tmp_path / "absent")).forms == listed_forms()
    (tmp_path / FILE_NAME).write_bytes(gzip.compress("iPhone\t88\nIBM 100\n".encode("utf-8")))
    with pytest.raises(ValueError, match=rf"{FILE_NAME}:2:"):
        CaseForms.load(str(tmp_path))


def test_predictor_reads_the_model_folders_forms(trained_tiny, tmp_path):
    folder = str(tmp_path / "model")
    shutil.copytree(os.path.join(trained_tiny["dir"], "best"), folder)
    assert Punctuator.load(folder, device="cpu").case_forms.forms == listed_forms()
    (tmp_path / "text.tgt").write_text("\n".join(TEXT) + "\n", encoding="utf-8")
    cmd = [sys.executable, os.path.join(ROOT, "utils", "data", "build_case_forms.py"), "--text", str(tmp_path / "text.tgt"),
           "--model_path", folder, "--min_count", "1"]
    subprocess.run(cmd, check=True, capture_output=True)
    assert Punctuator.load(folder, device="cpu").case_forms.forms == {**forms().forms, **listed_forms()}
    (tmp_path / "lower.tgt").write_text("all lower case here\n" * 5, encoding="utf-8")
    cmd[3] = str(tmp_path / "lower.tgt")
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode != 0 and "lower.tgt" in run.stderr and "no case" in run.stderr


def test_written_forms_hold_in_every_line_and_over_a_models_counts():
    """Brands and initialisms are written one way whatever the tagger says (issue 32): youtube, pdf, macbook."""
    lexicon = CaseForms({**CaseForms.count(["We bought a new Macbook, okay?"] * 3, min_count=1).forms,
                         **listed_forms()})
    words = "we need the pdf on youtube and my macbook".split()
    assert apply_tags(words, lexicon.apply(words, [Tag()] * len(words))) == "we need the PDF on YouTube and my MacBook"
    end = Tag(append=".")
    words = "so youtube is down".split()
    assert apply_tags(words, lexicon.apply(words, [end, Tag(case=CAPITAL), Tag(), Tag()])) == "so. YouTube is down"
    assert all(form.listed and form.share == (0 if form.form == form.form.lower() else 100)
               for form in listed_forms().values())


def test_ok_has_one_written_form():
    """Issue 42: ``ok`` was ``Ok`` at a sentence start, ``OK`` or ``ok`` inside one; an editor writes one form."""
    lexicon = CaseForms(listed_forms())
    words = "ok then ok".split()
    tags = [Tag(case=CAPITAL, append=","), Tag(append="."), Tag()]
    assert apply_tags(words, lexicon.apply(words, tags)) == "OK, then. OK"


def test_a_listed_form_is_written_over_a_dotted_acronym():
    """Issue 42: ``hr`` came out ``H.R.`` three times and ``HR`` twelve in one line; a listed form wins, and a
    line-final dotted one keeps its period as the sentence's end in a whole utterance."""
    lexicon = CaseForms(listed_forms())
    dotted = Tag(acronym=True, case=UPPER)
    words = "ask hr and hr".split()
    tags = [Tag(), dotted, Tag(), dotted]
    assert apply_tags(words, lexicon.apply(words, tags)) == "ask HR and HR"
    assert apply_tags(words, lexicon.apply(words, tags, closes=True)) == "ask HR and HR."


def test_a_word_written_with_capitals_is_written_one_way_in_a_line():
    """A word the tags write with capitals in several places takes one form in the line, as most of those inside
    a sentence were written (dotted or not); whether it has capitals stays each place's decision."""
    lexicon = CaseForms({"acme": CaseForm("ACME", 70), "president": CaseForm("President", 55)})
    words = "acme and acme and acme and acme".split()
    upper, dotted = Tag(case=UPPER), Tag(acronym=True, case=UPPER)
    tags = [dotted, Tag(), upper, Tag(), dotted, Tag(), upper]
    assert apply_tags(words, lexicon.apply(words, tags)) == "ACME and ACME and ACME and ACME"  # a tie: the first
    tags = [upper, Tag(), dotted, Tag(), dotted, Tag(), Tag()]
    assert apply_tags(words, lexicon.apply(words, tags)) == "A.C.M.E. and A.C.M.E. and A.C.M.E. and acme"
    words = "the president met president obama".split()
    tags = [Tag(), Tag(), Tag(), Tag(case=CAPITAL), Tag(case=CAPITAL)]
    assert apply_tags(words, lexicon.apply(words, tags)) == "the president met President Obama"


def test_lower_case_rows_and_app_names():
    """``stroma`` was capitalised at a line's end; ``slack`` is Slack where an app is meant, and a word elsewhere;
    Siri, Celsius are always names."""
    lexicon = CaseForms(listed_forms())
    words = "in the stroma".split()
    assert apply_tags(words, lexicon.apply(words, [Tag(), Tag(), Tag(case=CAPITAL, append=".")])) == "in the stroma."
    words = "hey siri it is ten degrees celsius".split()
    assert apply_tags(words, lexicon.apply(words, [Tag()] * 7)) == "hey Siri it is ten degrees Celsius"
    words = "read them before next monday or in june but not in may".split()  # the ensemble wrote "monday"
    assert apply_tags(words, lexicon.apply(words, [Tag()] * len(words))) == \
        "read them before next Monday or in June but not in May"
    words = "she moved there in may and you may come on march third as we march on in august".split()
    assert apply_tags(words, lexicon.apply(words, [Tag()] * len(words))) == \
        "she moved there in May and you may come on March third as we march on in August"  # the ensemble: "in may"
    words = "message me on slack or in the slack channel and cut me some slack".split()
    assert apply_tags(words, lexicon.apply(words, [Tag()] * len(words))) == \
        "message me on Slack or in the Slack channel and cut me some slack"


def test_a_name_of_several_words_is_written_as_listed(tmp_path):
    """``the french revolution`` became ``the French revolution`` (``revolution`` alone is a common noun): a
    listed name's words, lower-case one after the other, are written as the name writes them, the longest
    name first; a lower-case word of it stays so inside a sentence, takes a capital at a start; words of a
    name apart, or arriving with capitals, stay as decided; a bad row is an error naming the file."""
    lexicon = CaseForms(listed_forms())
    words = "the french revolution began where the revolution ended".split()
    tags = [Tag(), Tag(case=CAPITAL)] + [Tag()] * 6
    assert apply_tags(words, lexicon.apply(words, tags)) == "the French Revolution began where the revolution ended"
    words = "statue of liberty and the statue of a white house".split()
    tags = [Tag(case=CAPITAL)] + [Tag()] * 9
    assert apply_tags(words, lexicon.apply(words, tags)) == "Statue of Liberty and the statue of a White House"
    words = "the White house".split()
    assert apply_tags(words, lexicon.apply(words, [Tag()] * 3)) == "the White house"
    bad = tmp_path / "names.txt"
    bad.write_text("# a comment\nRevolution\n", encoding="utf-8")
    with pytest.raises(ValueError, match="names.txt: 'Revolution' is not a name"):
        listed_names(str(bad))
