"""Each language's written conventions (issue 49, item 2): German nouns take their capital (the rule on a
``Line`` alone and in the decoding's order, the lines it leaves alone, the word list and how it is built);
Chinese lines write full-width marks but ASCII ones between Latin words, no space beside a full-width mark,
and no Spanish opening. Each test states its bug."""
import gzip

from gector_punct.prediction.decoded_line import decide
from gector_punct.prediction.line_rules import (LINE_RULES, MODEL_RULES, WORD_RULES, capitalise_german_nouns,
                                                pair_openings)
from gector_punct.text.german_nouns import capital_only_words, german_nouns, is_noun
from gector_punct.text.language import language_of
from gector_punct.text.tags import CAPITAL, LOWER, UPPER, Tag, apply_tags
from gector_punct.text.units import join_units, split_units
from test_decoding_rules import line_of, written

CAP, END = Tag(case=CAPITAL), Tag(append=".")


def test_a_german_noun_the_model_left_lower_case_takes_its_capital():
    """``Meine Mutter arbeitet in einem krankenhaus in Berlin.``: the model knew Mutter and Berlin, not
    Krankenhaus; German writes every noun with a capital."""
    words = "meine mutter arbeitet in einem krankenhaus in berlin".split()
    tags = [CAP, CAP, Tag(), Tag(), Tag(), Tag(), Tag(), Tag(case=CAPITAL, append=".")]
    assert written(capitalise_german_nouns(line_of(words, tags))) == \
        "Meine Mutter arbeitet in einem Krankenhaus in Berlin."
    # The same in the decoding's order of rules, and with the model's rules alone (--no-editor_rules).
    words = "hast du heute abend zeit".split()
    tags = [CAP, Tag(), Tag(), Tag(case=LOWER), Tag(case=CAPITAL, append="?")]  # zeit: a word too (zeit seines)
    assert written(decide(line_of(words, tags), LINE_RULES[len(WORD_RULES):])) == "Hast du heute Abend Zeit?"
    assert capitalise_german_nouns in MODEL_RULES


def test_what_the_rule_leaves_alone():
    """Not German (``hotel`` is a German noun and an English word), a word German writes both ways (``morgen``
    tomorrow / ``Morgen`` morning, ``sie`` / ``Sie``: the model's decision), a word written upper-case or arriving
    with a capital, a deleted word."""
    words = "the hotel is near the station".split()
    assert written(capitalise_german_nouns(line_of(words, [Tag()] * 5 + [END]))) == "the hotel is near the station."
    words = "bis morgen sagt sie".split()
    assert written(capitalise_german_nouns(line_of(words, [Tag()] * 3 + [END]))) == "bis morgen sagt sie."
    words = "ich war im hotel".split()  # UPPER stays UPPER; a deleted word takes no case
    tags = [Tag(), Tag(), Tag(), Tag(case=UPPER, append=".")]
    assert written(capitalise_german_nouns(line_of(words, tags))) == "ich war im HOTEL."
    tags = [Tag(), Tag(), Tag(append="."), Tag(deletes=True)]
    assert written(capitalise_german_nouns(line_of(words, tags))) == "ich war im."
    words = "ich war im HOTEL".split()
    assert written(capitalise_german_nouns(line_of(words, [Tag()] * 3 + [END]))) == "ich war im HOTEL."


def test_a_line_is_german_when_the_language_guess_says_so():
    """``language_of``: ``wie spät ist es`` is German; English (``the hotel``), French (``les uns et les autres``),
    Spanish (``que yo diese``, ``me das``) and Italian lines (``bei ragazzi``) are not, nor an English line with
    two German words."""
    assert language_of("wie spät ist es".split()) == "de"
    assert language_of("das hotel liegt direkt am bahnhof und".split()) == "de"
    for line in ("the hotel is near", "les uns et les autres", "que yo diese", "me das el libro",
                 "bei ragazzi da roma", "das ist the point"):
        assert language_of(line.split()) != "de", line


def test_the_word_list_keeps_the_words_it_holds_only_with_a_capital():
    """``capital_only_words``: ``Abend`` (no ``abend``) in; ``Morgen`` (``morgen`` too), one letter, digits out;
    hyphenated and inner-capital words in, lower-case."""
    words = ["Abend", "abends", "Morgen", "morgen", "A", "Ei", "GmbH", "Baden-Württemberg", "B2B", "-Abend", "\n"]
    assert capital_only_words(words) == ["abend", "baden-württemberg", "ei", "gmbh"]


def test_the_shipped_list_is_read_as_the_builder_writes_it(tmp_path, monkeypatch):
    """The package's list holds the nouns an everyday line needs and not the words written both ways; the
    builder writes a list the reader reads (its notes skipped)."""
    assert is_noun("krankenhaus") and is_noun("Bahnhof") and not is_noun("morgen") and not is_noun("sie")
    assert len(german_nouns()) > 100_000
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_german_nouns", "utils/data/build_german_nouns.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    listed, out = tmp_path / "ngerman", tmp_path / "nouns.txt.gz"
    listed.write_text("Abend\nabends\nHaus\nhaus\nZeit\n", encoding="utf-8")
    assert builder.main(["--word_list", str(listed), "--out", str(out)]) == 0
    lines = gzip.open(out, "rt", encoding="utf-8").read().splitlines()
    assert lines[0].startswith("#") and [w for w in lines if not w.startswith("#")] == ["abend", "zeit"]
    from gector_punct.text import german_nouns as module
    monkeypatch.setattr(module, "NOUNS_FILE", str(out))
    module.german_nouns.cache_clear()
    try:
        assert module.is_noun("zeit") and not module.is_noun("krankenhaus")
    finally:
        module.german_nouns.cache_clear()


def test_a_chinese_line_writes_ascii_marks_between_latin_words_only():
    """``他说：Hello world， how are you？``: the comma between two English words was full-width; a mark
    between a Latin word and a Chinese character stays full-width, and every mark is ASCII in a Latin line."""
    units = split_units("他说hello world how are you然后就走了")
    marks = {"说": "：", "world": ",", "you": "?", "了": "."}
    tags = [Tag(append=marks.get(u, "")) for u in units]
    assert apply_tags(units, tags) == "他说：hello world, how are you？然后就走了。"
    units = split_units("我们用windows linux")  # brackets keep the line's form: a pair stays alike
    assert apply_tags(units, [Tag()] * 3 + [Tag(prepend="(", append=")"), Tag(append=".")]) == "我们用（windows）linux。"
    units = "we use windows linux".split()
    assert apply_tags(units, [Tag(), Tag(), Tag(append="，"), Tag(append="。")]) == "we use windows, linux."


def test_no_space_beside_a_full_width_mark():
    """The input's space between ``他说`` and ``hello`` stayed after the colon the model put there
    (``他说： Hello``); a full-width mark holds its own space, a space between Latin words stays."""
    units = ["他", "说：", "Hello", "world，", "（", "好", "）", "ok"]
    spaced = [False, False, True, True, True, True, True, True]
    assert join_units(units, spaced) == "他说：Hello world，（好）ok"


def test_a_chinese_line_takes_no_spanish_opening():
    """``他说 hello world how are you 然后就走了`` came back with ``¿how are you？`` and ``走¿了？``: the model's
    opening likelihoods made the line Spanish. A line mostly in Chinese characters is not: the openings go."""
    units = split_units("他说hello world how are you然后就走了")
    tags = [Tag(prepend="¿") if u in ("how", "了") else Tag(append="?") if u in ("you", "了") else Tag()
            for u in units]
    tags[-1] = Tag(prepend="¿", append="?")
    line = line_of(units, tags, question_opening=[1.0] * len(units))
    assert "¿" not in written(pair_openings(line))
    words = "dónde estás".split()  # a Spanish line still opens
    assert written(pair_openings(line_of(words, [Tag(), Tag(append="?")], question_opening=[0.9, 0.1]))) == \
        "¿dónde estás?"
