"""The tag set: target -> tags -> text is the identity (modulo spacing around marks), errors are clear."""
import os
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import ROOT, SHARED
from gector_punct.text.units import narrow_marks, split_units
from gector_punct.text.tags import (CASE_UNKNOWN, KEEP, Tag, apply_tags, format_tagged, make_source, parse_tagged,
                                    tags_from_pair)
from gector_punct.text.alignment import AlignmentError
from gector_punct.text.units import split_edges

LETTERS = "abcdefghijklmnopqrstuvwxyzéàüßçñ"
CASES = st.sampled_from(["lower", "capital", "upper", "mixed"])
TRAIL = st.sampled_from(["", "", "", ",", ".", "?", "!", ":", ";", "?!", '."', "),", "。", "，", "？", "...", "…"])
LEAD = st.sampled_from(["", "", "", "", "¿", "¡", '"', "(", "«", "“"])


@st.composite
def target_word(draw):
    core = draw(st.text(alphabet=LETTERS, min_size=1, max_size=9))
    inner = draw(st.sampled_from(["", "", "'", "-"]))
    if inner and len(core) > 1:
        core = core[:1] + inner + core[1:]
    case = draw(CASES)
    if case == "capital":
        core = core[:1].upper() + core[1:]
    elif case == "upper":
        core = core.upper()
    elif case == "mixed":
        flips = draw(st.lists(st.booleans(), min_size=len(core), max_size=len(core)))
        core = "".join(c.upper() if f else c for c, f in zip(core, flips))
    return draw(LEAD) + core + draw(TRAIL)


def normalised(target: str) -> str:
    """The target as apply_tags writes it: single spaces, and (a line of a spaced script) ASCII marks."""
    return " ".join(narrow_marks(target).replace("、", ",").split())


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(target_word(), min_size=1, max_size=25))
def test_round_trip_attached_marks(words):
    target = " ".join(words)
    # Letters whose case change alters their length (ß -> SS) cannot be restored word by word.
    assume(all(len(w.lower()) == len(w) == len(w.upper()) for w in words))
    source = make_source(target).split()
    tags = tags_from_pair(source, target)
    assert apply_tags(source, tags) == normalised(target)
    # and through the file format
    words_back, tags_back = parse_tagged(format_tagged(source, tags))
    assert words_back == source and tags_back == tags


@settings(max_examples=200)
@given(st.lists(target_word(), min_size=1, max_size=15))
def test_round_trip_space_separated_marks(words):
    assume(all(len(w.lower()) == len(w) == len(w.upper()) for w in words))
    attached = " ".join(words)
    spaced = []  # GECToR-style data: closing marks as tokens of their own
    for w in words:
        lead, core, trail = split_edges(w)
        spaced.extend([lead + core] + ([trail] if trail else []))
    source = make_source(attached).split()
    assert apply_tags(source, tags_from_pair(source, " ".join(spaced))) == normalised(attached)


def test_case_and_punctuation_both_kept():
    source = "new york usa".split()
    tags = tags_from_pair(source, "New York , USA")
    assert [str(t) for t in tags] == ["$TRANSFORM_CASE_CAPITAL", "$TRANSFORM_CASE_CAPITALSEPL__SEPR$APPEND_,",
                                      "$TRANSFORM_CASE_UPPER"]
    assert apply_tags(source, tags) == "New York, USA"


def test_mixed_case_and_inverted_marks():
    source = "qué dijo mcdonald sobre el iphone y el mrna".split()
    target = "¿Qué dijo McDonald sobre el iPhone y el mRNA?"
    tags = tags_from_pair(source, target)
    assert tags[0] == Tag(prepend="¿", case="$TRANSFORM_CASE_CAPITAL")
    assert tags[2].case == "$TRANSFORM_CASE_CHARS_0,2"
    assert apply_tags(source, tags) == target


def test_uncased_corpus_marks_case_unknown():
    tags = tags_from_pair("so i went home".split(), "so i went home.", cased=False)
    assert all(t.case == CASE_UNKNOWN for t in tags)
    assert tags[-1].punct == "$APPEND_."


def test_already_punctuated_source_word_keeps_its_marks():
    tags = tags_from_pair(["york,", "usa"], "York, USA.")
    assert tags[0] == Tag(case="$TRANSFORM_CASE_CAPITAL")
    assert apply_tags(["york,", "usa"], tags) == "York, USA."


@pytest.mark.parametrize("source,target", [
    ("i went to new york", "I went to New Jersey."),     # different word
    ("i went to york", "I went to New York."),           # extra word
    ("i went to new york", "I went to York."),           # missing word
])
def test_misaligned_pairs_raise(source, target):
    with pytest.raises(AlignmentError, match="word"):
        tags_from_pair(source.split(), target)


def test_unknown_operation_is_rejected():
    with pytest.raises(ValueError, match="unknown tag operation"):
        Tag.parse("$REPLACE_foo")
    with pytest.raises(ValueError, match="no marks"):
        Tag.parse("$DELETESEPL__SEPR$APPEND_,")
    with pytest.raises(ValueError, match="not a punctuation label"):
        Tag.from_labels("$TRANSFORM_CASE_UPPER", KEEP)


def test_label_strings_are_written_and_read_in_one_order():
    tag = Tag.parse("$APPEND_?SEPL__SEPR$TRANSFORM_CASE_UPPERSEPL__SEPR$ACRONYMSEPL__SEPR$PREPEND_¿")
    assert tag == Tag(prepend="¿", append="?", acronym=True, case="$TRANSFORM_CASE_UPPER")
    assert tag.punct == "$PREPEND_¿SEPL__SEPR$ACRONYMSEPL__SEPR$APPEND_?"
    assert str(tag) == "$TRANSFORM_CASE_UPPERSEPL__SEPR" + tag.punct
    assert Tag.from_labels(tag.punct, tag.case) == tag
    assert Tag(deletes=True, case=CASE_UNKNOWN).punct == "$DELETE" and Tag().punct == str(Tag()) == KEEP


@pytest.mark.parametrize("model", sorted(os.listdir(os.path.join(ROOT, "models"))))
def test_shipped_vocabulary_labels_read_back_as_written(model):
    """The label strings on disk are the models' output space: reading and writing one gives it back."""
    folder = os.path.join(ROOT, "models", model, "vocabulary")
    if not os.path.isdir(folder):
        pytest.skip(f"{model} has no vocabulary of its own")
    for name, part in (("labels.txt", "punct"), ("case_tags.txt", "case")):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            labels = [line.rstrip("\n") for line in f if line.startswith("$")]
        assert labels and all(getattr(Tag.parse(label), part) == label == str(Tag.parse(label)) for label in labels)


@pytest.mark.skipif(not os.path.exists(os.path.join(SHARED, "data", "iwslt")), reason="shared data not present")
def test_round_trip_on_real_data():
    for name in ("iwslt2010_dev_en.txt", "iwslt2010_dev_zh.txt"):
        with open(os.path.join(SHARED, "data", "iwslt", name), encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip()]
        assert len(lines) > 900
        for line in lines:
            source = split_units(make_source(line))
            tags = tags_from_pair(source, line)
            restored = apply_tags(source, tags)
            # Equal up to the spacing of stand-alone marks, which attach to their word, and Chinese
            # characters are never separated by a space; a mark may change width (the script picks it).
            assert narrow_marks(restored).replace(" ", "") == narrow_marks(line).replace(" ", ""), line
            if name.endswith("zh.txt"):
                assert not re.search(r"[,.?!]$", restored), restored
            assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", restored), restored
