"""What ends a sentence (``text/sentences.py``): the one rule behind ``--split_sentences``, the writer's capitals
after a sentence end, the case forms' sentence starts and what a deleted word hands on; dotted acronyms found
and spelled as one word by one pattern."""
import io

import pytest

from gector_punct.prediction.chunks import write_lines
from gector_punct.text.case_forms import CaseForm, CaseForms
from gector_punct.text.sentences import (ends_sentence_after, is_dotted_acronym, sentence_ends, split_sentences,
                                         undotted)
from gector_punct.text.tags import CAPITAL, Tag, apply_tags, capitalise_sentence_starts, make_source, written_forms

EXAMPLE = "We flew to the U.S. last week, e.g. to Boston. Then Mr. Smith left."


def test_split_sentences_cuts_at_sentence_ends_not_at_every_period():
    assert split_sentences(EXAMPLE) == ["We flew to the U.S. last week, e.g. to Boston.", "Then Mr. Smith left."]
    out = io.StringIO()  # predict.py --split_sentences writes through write_lines
    assert write_lines(out, [EXAMPLE, ""], sentences=True) == 3
    assert out.getvalue() == "We flew to the U.S. last week, e.g. to Boston.\nThen Mr. Smith left.\n\n"


def test_split_sentences_of_every_script_and_mark():
    assert split_sentences("Hi there. How are you? Fine") == ["Hi there.", "How are you?", "Fine"]
    assert split_sentences("我们去了美国。你吃饭了吗？好") == ["我们去了美国。", "你吃饭了吗？", "好"]
    assert split_sentences('Wait… what? He said "Go." Then OK!') == ["Wait…", "what?", 'He said "Go."', "Then OK!"]
    assert split_sentences("") == [] and split_sentences(" a  b. c ") == ["a b.", "c"]


@pytest.mark.parametrize("line, ends", [
    # A dotted acronym followed by a lower-case word goes on; by a sentence opener starting upper-case, ends.
    ("in the U.S. last week", [False, False, False, False, False]),
    ("in D.C. Now we", [False, True, False, False]),
    ("the U.N. I think", [False, True, False, False]),
    # The rule chosen for the ambiguous case: an upper-case word that is no opener is read as a name.
    ("the U.S. Army left", [False, False, False, False]),
    # A title or an introducing abbreviation never ends one, whatever follows.
    ("Mr. Smith and Dr. Who", [False, False, False, False, False]),
    ("e.g. Boston, i.e. The city", [False, False, False, False, False]),
    # A closing abbreviation behaves as an acronym; marks after an own period decide alone.
    ("at 5 p.m. I left", [False, False, True, False, False]),
    ("pears, etc. then", [False, False, False]),
    ("pears, etc. Then", [False, True, False]),
    ("the U.S.? Yes. (Mr.) x", [False, True, True, False, False]),
    ("in the U.S., I think", [False, False, False, False, False]),
    ("at 9 a.m.; Then", [False, False, False, False]),
    ('in "the U.S." Then', [False, False, True, False]),
    # A single letter is no acronym: its period ends a sentence.
    ("plan B. then", [False, True, False]),
])
def test_what_ends_a_sentence(line, ends):
    assert sentence_ends(line.split()) == ends


def test_with_the_next_word_unknown_an_own_period_ends_nothing():
    assert [ends_sentence_after(w) for w in ("U.S.", "etc.", "Mr.", "e.g.", "(Mr.", 'etc."', "etc.?", "it.", "so…")] \
        == [False, False, False, False, False, False, True, True, True]


def test_the_writer_capitalises_after_sentence_ends_only():
    words = "we met mr. smith in the u.s. then left. ok e.g. boston etc. and".split()
    tags = capitalise_sentence_starts(words, [Tag()] * len(words))
    assert [w for w, t in zip(words, tags) if t.case == CAPITAL] == ["ok"]
    # A title after an opening bracket is still a title.
    assert capitalise_sentence_starts(["(mr.", "smith)"], [Tag(), Tag()])[1] == Tag()


def test_case_forms_read_sentence_starts_by_the_same_rule():
    forms = CaseForms({"mcdonald": CaseForm("McDonald", 30)})  # a name mostly, but not at 50%: Mcdonald at a start
    words = "i met mr. mcdonald".split()
    tags = forms.apply(words, [Tag()] * 3 + [Tag(case=CAPITAL)])
    assert apply_tags(words, tags) == "i met mr. McDonald"  # after Mr. no sentence starts
    assert apply_tags(["mcdonald"], forms.apply(["mcdonald"], [Tag(case=CAPITAL)])) == "Mcdonald"
    # Counting: a capital after a title is a name's inside a sentence; after "D.C." and an opener, a start's.
    counted = CaseForms.count(["We met Mr. Smith in D.C. Then we left."] * 2, min_count=2).forms
    assert counted["smith"] == CaseForm("Smith", 100) and "then" not in counted


def test_a_deleted_word_after_a_title_starts_no_sentence():
    # "Uh," at a sentence start hands on its capital; after "Mr." its capital was its own.
    assert apply_tags("Uh, so we went.".split(), [Tag(deletes=True)] + [Tag()] * 3) == "So we went."
    assert apply_tags("ask Mr. Uh, jones".split(), [Tag(), Tag(), Tag(deletes=True), Tag()]) == "ask Mr. jones"


def test_a_titles_period_stays_ascii_in_a_chinese_line():
    units = ["我", "见", "了", "Mr.", "王", "先", "生"]
    forms = written_forms(units, [Tag()] * 6 + [Tag(append=".")])
    assert forms[3] == "Mr." and forms[-1] == "生。"


def test_one_pattern_finds_dotted_acronyms_and_one_function_undots_them():
    assert [is_dotted_acronym(w) for w in ("u.s.", "e.g.", "U.S.A.", "u.s", "(u.s.)", "i.", "3.5.", "u.s..")] == [
        True, True, True, False, False, False, False, False]
    assert [undotted(w) for w in ("U.S", "(U.S.),", "a.m.?", "3.5", "e.g", "i.")] == ["US", "(US),", "am?", "3.5",
                                                                                    "eg", "i."]
    assert make_source("In the U.S., e.g. at 5 p.m.") == "in the us eg at 5 pm"


def test_consistency_counts_lower_case_after_a_sentence_end_not_after_a_title():
    from gector_punct.dataset.reader import Instance
    from gector_punct.scoring.evaluation import consistency
    instance = Instance("I met mr. smith. then".split(), [Tag()] * 5)
    assert consistency([instance], [instance.tags])["lower_after_end"] == 1  # "then", not "smith"
