"""Real input: text that is already partly restored (--existing keep|strip), numbers, URLs and abbreviations
kept, caseless lines, arbitrary Unicode (property tests), and model folders that cannot be read."""
import json
import os
import shutil
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from gector_punct.text.files import without_bom
from gector_punct.text.existing import caseless_line, constrain_line, prepare, word_kind
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.sentences import undotted
from gector_punct.prediction.streaming import StreamingPunctuator
from gector_punct.text.tags import UPPER, Tag, apply_tags, make_source
from gector_punct.text.units import split_edges
from gector_punct.text.units import split_units

FUZZ_EXAMPLES = int(os.environ.get("GECTOR_FUZZ_EXAMPLES", "60"))  # the long run: GECTOR_FUZZ_EXAMPLES=5000


def test_word_kinds_and_caseless_lines():
    kinds = {w: word_kind(w) for w in ["3.5", "10:30", "1,000", "42.", "1990s", "www.example.com", "(https://x.org/A)",
                                       "john@example.com", "e.g.", "U.S.", "😀", "&", "--", "hello", "q3"]}
    assert kinds == {"3.5": "number", "10:30": "number", "1,000": "number", "42.": "number", "1990s": "number",
                     "www.example.com": "url", "(https://x.org/A)": "url", "john@example.com": "email",
                     "e.g.": "abbreviation", "U.S.": "abbreviation", "😀": "symbols", "&": "symbols", "--": "symbols",
                     "hello": "word", "q3": "word"}
    assert caseless_line("THIS IS ALL CAPS TEXT".split()) and caseless_line("This Is A Title".split())
    assert not caseless_line("New York".split()) and not caseless_line("I went to New York".split())
    assert not caseless_line(["NASA"]) and not caseless_line(["42", "😀"]) and caseless_line(["HELLO", "WORLD"])


def test_prepare_keep_and_strip():
    line = 'So, I went to "New York" (e.g. www.Example.com/AbC) at 10:30. OK?'.split()
    assert prepare(line, "keep") == line
    assert prepare(line, "strip") == ["so", "i", "went", "to", "new", "york", "e.g.", "www.Example.com/AbC",
                                      "at", "10:30", "ok"]
    assert prepare("THIS IS LOUD, RIGHT?".split(), "keep") == ["this", "is", "loud,", "right?"]
    assert prepare(["--", "...", "hello"], "strip") == ["hello"]
    with pytest.raises(ValueError, match="unknown --existing mode 'redo'"):
        prepare(["x"], "redo")


def test_undotted_spells_dotted_acronyms_as_the_training_sources_do():
    words = ["u.s.", "(U.S.),", "e.g.", "a.m.?", "word.", "3.5", "U.S", "www.a.com", "i.", "..."]
    assert [undotted(w) for w in words] == ["us", "(US),", "eg", "am?", "word.", "3.5", "US", "www.a.com", "i.",
                                                "..."]
    assert all(undotted(make_source(w)) == make_source(w) for w in words)


def test_constrain_line_keeps_what_is_given():
    words = ["it", "costs", "42.", "okay", "NASA", "e.g.", "www.example.com", "😀"]
    predicted = [Tag(append=",", case="$TRANSFORM_CASE_CAPITAL"), Tag(), Tag(append=".", case="$TRANSFORM_CASE_UPPER"),
                 Tag(append=",", case="$TRANSFORM_CASE_UPPER"), Tag(case="$TRANSFORM_CASE_LOWER"),
                 Tag(case="$TRANSFORM_CASE_UPPER"), Tag(append=".", case="$TRANSFORM_CASE_UPPER"), Tag(append=".")]
    got = constrain_line(words, predicted)
    assert got[0] == predicted[0] and got[3] == predicted[3]  # plain words take what the model says
    assert got[2] == Tag()  # "42." has its mark: no second one
    assert got[4] == Tag() and got[5] == Tag()  # given capitals stay; "e.g." is not an acronym
    assert got[6] == Tag(append=".")  # a URL keeps its case, may end a sentence
    assert got[7] == Tag()  # an emoji takes nothing
    # Added double quotes come in pairs: an unclosed one is dropped, a pair stays, given ones count.
    words = "he said hello there".split()
    assert constrain_line(words, [Tag(), Tag(), Tag(prepend='"'), Tag()]) == [Tag()] * 4
    paired = [Tag(), Tag(append=","), Tag(prepend='"'), Tag(append='."')]
    assert constrain_line(words, paired) == paired
    assert constrain_line(['"he', "said"], [Tag(), Tag(append='"')]) == [Tag(), Tag(append='"')]


def test_dropped_quote_leaves_the_rest_of_the_tag():
    """An unpaired quote the model adds goes alone: the acronym, the other marks and the case stay."""
    words = "he said usa".split()
    opened = [Tag(), Tag(append=","), Tag(prepend='"', acronym=True, case=UPPER)]
    assert constrain_line(words, opened)[2] == Tag(acronym=True, case=UPPER)
    assert apply_tags(words, constrain_line(words, opened)) == "he said, U.S.A."
    closed = [Tag(), Tag(), Tag(acronym=True, append='!"', case=UPPER)]
    assert constrain_line(words, closed)[2] == Tag(acronym=True, append="!", case=UPPER)
    assert apply_tags(words, constrain_line(words, closed)) == "he said U.S.A.!"


@pytest.fixture(scope="module")
def shipped():
    return Punctuator.load(os.path.join(ROOT, "models", "default_en"), device="cpu")


@pytest.mark.parametrize("mode", ["keep", "strip"])
def test_a_byte_order_mark_is_no_word_wherever_text_comes_in(shipped, mode):
    """A line given to ``predict``, the words of ``restore_words`` (subtitles) and a live stream read a
    byte-order mark by one rule (``files.without_bom``): the streams kept it as part of their first word,
    which then took no capital."""
    reader = shipped.reading("punc", mode, False)
    words = "\ufeffso i went to new york did you".split()
    assert reader.predict([" ".join(words)])[0].startswith("So I went")
    assert reader.restore_words(words)[:2] == ["So", "I"]
    streamer = StreamingPunctuator(reader, 2)
    assert (streamer.push(words) + streamer.end())[:2] == ["So", "I"]


def test_shipped_model_on_partly_restored_input(shipped):
    costs, report = shipped.predict(["it costs 42. okay so what do we do now",
                                     "see e.g. the report from www.example.com at 10:30 and call me"])
    assert "42." in costs.split() and "42.." not in costs
    assert "e.g." in report.split() and "www.example.com" in report and "10:30" in report
    loud, lower, title = shipped.predict(["THIS IS ALL CAPS TEXT FROM A LOUD SPEAKER",
                                          "this is all caps text from a loud speaker",
                                          "This Is All Caps Text From A Loud Speaker"])
    assert loud == lower == title and loud != loud.upper() and not loud.startswith('"')
    assert any(mark in loud for mark in ".,?!")
    (emoji,) = shipped.predict(["naïve of me 😀 to think so"])
    assert "😀" in emoji.split()
    restored = "So, I went to New York. Last Tuesday, did you go?"
    (kept,) = shipped.predict([restored])
    for before, after in zip(restored.split(), kept.split()):  # given marks and capitals are never removed
        lead, _, trail = split_edges(before)
        assert after.endswith(trail) and after.startswith(lead) and (before == before.lower() or after == before)
    strip = Punctuator([shipped.models[0]], existing="strip")
    assert strip.predict([restored]) == shipped.predict([make_source(restored)])
    with pytest.raises(TypeError, match="takes a list of lines"):
        shipped.predict("a string")


def test_the_api_takes_any_iterable_of_lines_and_names_what_it_refuses(shipped):
    from gector_punct.prediction.streaming import StreamingPunctuator

    lines = ["so i went to new york", "", "did you"]
    assert shipped.predict(line for line in lines) == shipped.predict(lines)  # a generator gave []
    with pytest.raises(TypeError, match="line 1 is NoneType, not str"):  # was an AttributeError deep inside
        shipped.predict(["ok", None])
    with pytest.raises(TypeError, match=r"^predict_scored takes lines of text: line 1"):  # named predict before
        shipped.predict_scored(["ok", None])
    with pytest.raises(TypeError, match=r"^predict_scored takes a list of lines \(for one text: predict_scored\("):
        shipped.predict_scored("a string")
    with pytest.raises(TypeError, match="takes a list of words"):  # a text was read character by character
        StreamingPunctuator(shipped).push("so i went")


def test_restored_text_given_again_comes_back_unchanged(shipped):
    """predict.py on its own output changed it: a mark the first pass left out was added where the first
    pass's marks had changed the context (``red green, and blue`` -> ``red, green, and blue``; ``At the
    American dream today,`` -> ``dream. Today,``). A line that reads as written takes no mark
    (``DecodeConfig.written``)."""
    lines = ["it comes in three different varieties red green and blue you can pick any of them",
             "at the american dream today record unemployment is dashing the dreams of our children"]
    once = shipped.predict(lines)
    assert shipped.predict(once) == once


def _cores(words: list[str]) -> list[str]:
    return [core.upper().casefold() for core in (split_edges(w)[1] for w in words) if core]


LINE = st.lists(st.one_of(
    st.text(min_size=1, max_size=12),  # any code point: controls, NUL, RTL, combining marks, emoji ...
    st.sampled_from(["😀", "👩‍👩‍👧", "مرحبا", "e\u0301", "3.5", "www.example.com", "...", "--", "\x00", "ß", "ı", "İ",
                     "ǅ", "ﬁ", "x" * 300, "U.S.", "e.g.", "\u200b", "a\u2028b"])), max_size=25).map(" ".join)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=4), mode=st.sampled_from(["keep", "strip"]))
def test_any_unicode_line_gives_one_line_with_its_words(random_editor, lines, mode):
    out = Punctuator(random_editor.models, existing=mode, batch_size=8, device="cpu").predict(lines)
    assert len(out) == len(lines)
    for before, after in zip(lines, out):
        if not before.split():
            assert after == before
        else:
            # a byte-order mark opening a line is no word (files.without_bom)
            assert _cores(split_units(after)) == _cores(prepare(split_units(without_bom(before)), mode))


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory):
    """A complete, readable tiny model folder to break in various ways."""
    from conftest import tiny_tagger
    from gector_punct.model.vocabulary import Vocabulary

    folder = tmp_path_factory.mktemp("models") / "good"
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_."], "case_tags": ["$KEEP"], "d_tags": ["CORRECT", "INCORRECT"]})
    tiny_tagger(vocab).save(str(folder))
    return folder


def _break(folder, how: str) -> str:
    if how == "truncated weights":
        path = folder / "model.safetensors"
        path.write_bytes(path.read_bytes()[:1000])
        return "model.safetensors"
    if how == "no vocabulary":
        os.remove(folder / "vocabulary" / "labels.txt")
        return "labels.txt"
    if how == "invalid config":
        (folder / "config.json").write_text('{"format": "gector-punct/1", "max_len": ')
        return "config.json: not valid JSON"
    if how == "foreign folder":
        (folder / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 8}))
        return "not a gector-punct model folder"
    if how == "unknown setting":
        config = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps(dict(config, beam_size=4)))
        return "unknown settings ['beam_size']"
    shutil.rmtree(folder / "tokenizer")
    return "tokenizer: missing"


@pytest.mark.parametrize("how", ["truncated weights", "no vocabulary", "invalid config", "foreign folder",
                                 "unknown setting", "no tokenizer"])
def test_unreadable_model_folder_is_one_clear_line(model_copy, tmp_path, capsys, how):
    sys.path.insert(0, ROOT)
    import predict

    folder = tmp_path / "broken"
    shutil.copytree(model_copy, folder)
    expected = _break(folder, how)
    (tmp_path / "in.txt").write_text("hello there\n")
    code = predict.main(["--model_path", str(folder), "--input_file", str(tmp_path / "in.txt"),
                         "--output_file", str(tmp_path / "out.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: cannot load model")
    assert expected in err and str(folder) in err


def test_a_shipped_model_loads_by_the_cards_path_from_any_folder_and_a_typo_is_named(tmp_path, monkeypatch):
    from gector_punct.model.config import ModelFolderError

    monkeypatch.chdir(tmp_path)  # outside the checkout: models/default_en is no folder here
    assert Punctuator.load("models/default_en").predict(["ok"]) == Punctuator.load("default_en").predict(["ok"])
    with pytest.raises(ModelFolderError, match=r"no folder defualt_en \(the shipped models, by name: .*default_en"):
        Punctuator.load("defualt_en")  # said only "config.json: missing"


@pytest.mark.parametrize("precision", ["int8", "float32"])  # float32: batches of several windows, as predict's
def test_predict_in_parts_gives_predicts_lines(precision):
    """The service restores a long line in parts (its turns between requests); the lines are predict's."""
    punctuator = Punctuator.load("default_en", precision=precision, batch_size=4)
    lines = ["so i went to new york last tuesday did you go there too " * 120, "", "ok then", "yes it was great " * 40]
    parts, run = 0, punctuator.predict_in_parts(lines, 100)
    try:
        while True:
            next(run)
            parts += 1
    except StopIteration as done:
        restored = done.value
    assert restored == punctuator.predict(lines) and parts >= (10 if precision == "int8" else 4)  # a part: whole batches
