"""Tagging units in every script (gector_punct/text/units.py) and the tag set over them: Chinese gets a unit per
character and full-width marks, never a space between characters; Spanish gets ¿ ... ? pairs; dotted
acronyms are one word with $ACRONYM. tags_from_pair / apply_tags stay exact inverses on real lines."""
import os
import random
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SHARED
from gector_punct.text.tags import ACRONYM, Tag, apply_tags, make_source, tags_from_pair
from gector_punct.text.units import is_wide, join_units, narrow_marks, split_units, unit_spacing

ZH_FILE = os.path.join(SHARED, "data", "iwslt", "iwslt2010_dev_zh.txt")
# Written for this test (not corpus text): questions, exclamations, quotes, acronyms, numbers.
SPANISH = ["¿Dónde está la estación de tren?", "No lo sé, pero creo que está cerca del río.", "¡Qué sorpresa!",
           "Mi hermana vive en los EE.UU. desde 2019.", "«Vamos», dijo ella, «ya es tarde».",
           "¿Vienes mañana o el lunes?", "El precio subió un 3,5 por ciento este año.", "¿Y tú? Yo prefiero el té."]


def zh_lines() -> list[str]:
    """The lines of ZH_FILE; the calling test is skipped when the shared data is not there (a bare clone)."""
    if not os.path.exists(ZH_FILE):
        pytest.skip(f"shared data not present: {ZH_FILE}")
    with open(ZH_FILE, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def round_trip(target: str) -> str:
    source = split_units(make_source(target))
    return apply_tags(source, tags_from_pair(source, target))


def test_units_of_continuous_and_spaced_scripts():
    assert split_units("你好，世界。") == ["你", "好，", "世", "界。"]
    assert split_units("我用iPhone手机。") == ["我", "用", "iPhone", "手", "机。"]
    assert split_units("他说：「你好」") == ["他", "说：", "「你", "好」"]
    assert split_units("¿Qué tal? New York , USA") == ["¿Qué", "tal?", "New", "York", ",", "USA"]
    assert unit_spacing("我用 iPhone 手机") == [False, False, True, True, False]


def test_join_never_separates_chinese_characters_and_keeps_other_spaces():
    units = ["我", "用", "iPhone", "手", "机"]
    assert join_units(units) == "我用iPhone手机"
    assert join_units(units, [False, True, True, True, True]) == "我用 iPhone 手机"  # the source's spaces
    assert join_units(["new", "york"]) == "new york"
    assert join_units(["我", "想", "去"], [False, True, True]) == "我想去"  # segmented ASR output joins


def test_chinese_source_has_no_spaces_and_marks_come_back_full_width():
    target = "首先，我们看到的是 GB 级别的照片。对吗？"
    assert make_source(target) == "首先我们看到的是gb级别的照片对吗"
    restored = round_trip(target)
    assert restored == "首先，我们看到的是GB级别的照片。对吗？"


def test_labels_are_script_neutral():
    source = split_units("你好世界")
    wide = tags_from_pair(source, "你好，世界。")
    narrow = tags_from_pair(source, "你好,世界.")
    assert wide == narrow  # one label for ， and ,
    assert apply_tags(source, narrow) == "你好，世界。"  # the script writes it
    assert apply_tags(["hello", "world"], [Tag(append="、"), Tag(append="。")]) == "hello, world."
    assert is_wide(source) and not is_wide(["hello", "世"])


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_real_chinese_cuts_round_trip(rng):
    """Any stretch of real TED Chinese, cut at arbitrary characters: target -> tags -> text is the identity
    up to spaces and mark width, and no space lands between two Chinese characters."""
    lines = zh_lines()
    start = rng.randrange(len(lines) - 3)
    text = "".join(lines[start: start + 3])
    a = rng.randrange(len(text) // 2)
    target = text[a: a + rng.randint(5, 200)].strip()
    if not make_source(target):
        return
    restored = round_trip(target)
    assert narrow_marks(restored).replace(" ", "") == narrow_marks(target).replace(" ", "").strip()
    assert not re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", restored)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SPANISH), min_size=1, max_size=5), st.integers(0, 6))
def test_spanish_round_trip_keeps_inverted_marks(sentences, cut):
    target = " ".join(" ".join(sentences).split()[cut:]) or sentences[0]
    assert round_trip(target) == target
    source = split_units(make_source(target))
    tags = tags_from_pair(source, target)
    if "¿" in target.split()[0]:
        assert tags[0].prepend == "¿"


def test_acronyms_are_one_word_with_a_period_after_every_letter():
    target = "He left the U.S. at 7 a.m., I think. Then the U.S.A. changed."
    assert make_source(target) == "he left the us at 7 am i think then the usa changed"
    source = make_source(target).split()
    tags = tags_from_pair(source, target)
    assert [str(t) for t in tags][3] == f"$TRANSFORM_CASE_UPPERSEPL__SEPR{ACRONYM}"
    assert tags[6].acronym and tags[6].append == ","
    assert apply_tags(source, tags) == target
    # A predicted period after an acronym is its own last period, never a second one.
    assert apply_tags(["usa"], [Tag(acronym=True, append=".", case="$TRANSFORM_CASE_UPPER")]) == "U.S.A."


def test_chinese_lines_written_with_ascii_marks_come_back_full_width():
    rng = random.Random(0)
    for line in rng.sample(zh_lines(), 300):
        restored = round_trip(line)
        assert narrow_marks(restored).replace(" ", "") == narrow_marks(line).replace(" ", "")
        assert not re.search(r"[\u4e00-\u9fff][,.?!;:]", restored), restored


def test_questions_are_opened_and_unclosed_openings_dropped():
    from gector_punct.model.config import DecodeConfig
    from gector_punct.prediction.line_rules import pair_openings
    from test_decoding_rules import line_of

    def paired(tags, opening_p):
        line = line_of(words, tags, config=DecodeConfig(question_opening=0.05), question_opening=opening_p)
        return pair_openings(line).tags

    words = "hola cómo estás bien gracias".split()
    tags = [Tag(append=","), Tag(), Tag(append="?"), Tag(prepend="¿"), Tag(append=".")]
    assert apply_tags(words, paired(tags, [0.01, 0.6, 0.1, 0.0, 0.0])) == "hola, ¿cómo estás? bien gracias."
    # Below the threshold, without a Spanish question word (an English question): nothing is added.
    english = [Tag(append=","), Tag(), Tag(append="?"), Tag(), Tag(append=".")]
    words = "yes what now fine thanks".split()
    assert apply_tags(words, paired(english, [0.01] * 5)) == "yes, what now? fine thanks."
    # With one (cómo), the same line is a Spanish question, however unlikely its opening.
    words = "hola cómo estás bien gracias".split()
    assert apply_tags(words, paired(english, [0.01, 0.03, 0.01, 0.0, 0.0])) == "hola, ¿cómo estás? bien gracias."
    # A line that opens one question is Spanish: its other questions open too, however unlikely.
    two = [Tag(), Tag(append="?"), Tag(), Tag(), Tag(append="?")]
    assert apply_tags(words, paired(two, [0.3, 0.0, 0.01, 0.002, 0.0])) == "¿hola cómo? ¿estás bien gracias?"
    # A sentence still open at the line's end keeps its ¿.
    open_tags = [Tag(), Tag(prepend="¿"), Tag(), Tag(), Tag()]
    assert paired(open_tags, [0.0] * 5) == open_tags


def test_scoring_matches_a_dotted_reference_acronym_with_its_restored_form(tmp_path):
    from gector_punct.scoring.metrics import labels_from_files
    ref, pred = tmp_path / "ref.txt", tmp_path / "pred.txt"
    ref.write_text("Jackyll, n.d.r.. Senza di te in the U.S.\n", encoding="utf-8")
    pred.write_text("Jackyll, NDR: senza di te in the US.\n", encoding="utf-8")
    reference, prediction = labels_from_files(str(ref), str(pred))
    assert len(reference) == len(prediction) == 8


def test_chinese_tests_skip_when_the_shared_data_is_absent(monkeypatch, tmp_path):
    """A clone without ../shared skips the tests that read its Chinese file instead of failing them."""
    monkeypatch.setattr(sys.modules[__name__], "ZH_FILE", str(tmp_path / "absent" / "zh.txt"))
    for test in (test_real_chinese_cuts_round_trip, test_chinese_lines_written_with_ascii_marks_come_back_full_width):
        with pytest.raises(pytest.skip.Exception, match="shared data not present"):
            test()
