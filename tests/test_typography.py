"""French typography (issue 49): a no-break space before ``? ! : ; »`` and after ``«`` in French lines, as the
French references write them (``text/typography.py``); the same in every writer, and read back as written."""
import pytest

from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.streaming import Captions, StreamingPunctuator
from gector_punct.text.existing import prepare_spaced
from gector_punct.text.language import language_of
from gector_punct.text.typography import NO_BREAK_SPACE as NB, attach_spaced_marks, typeset
from gector_punct.text.units import split_units, unit_spacing


def test_french_lines_space_their_marks_and_others_do_not():
    assert typeset("Tu viens ce soir?".split(), "auto") == ["Tu", "viens", "ce", f"soir{NB}?"]
    assert typeset(["Il", "a", "dit:", "«Bonjour»."], "auto") == ["Il", "a", f"dit{NB}:", f"«{NB}Bonjour{NB}»."]
    assert typeset(["C'est", "vrai?!"], "auto") == ["C'est", f"vrai{NB}?!"]  # one space before a run of ? and !
    assert typeset(["Rendez-vous", "à", "10:30;", "d'accord?"], "auto")[2:] == [f"10:30{NB};", f"d'accord{NB}?"]
    assert typeset(["Ciao,", "come", "stai?"], "auto") == ["Ciao,", "come", "stai?"]  # Italian
    assert typeset(["Do", "you", "say", "c'est", "la", "vie?"], "auto")[-1] == "vie?"  # English with a French phrase
    assert typeset(["Ok!"], "auto") == ["Ok!"]  # no word says French ...
    assert typeset(["Ok!"], "french") == [f"Ok{NB}!"]  # ... unless the text is known to be
    assert typeset(["Tu", "viens", "ce", "soir?"], "plain") == ["Tu", "viens", "ce", "soir?"]
    assert typeset(["Oui", None, "merci", "beaucoup!"], "auto") == ["Oui", None, "merci", f"beaucoup{NB}!"]  # a deleted unit stays deleted
    with pytest.raises(ValueError, match="auto, french, plain"):
        typeset([], "fancy")


def test_a_line_is_french_when_the_language_guess_says_so():
    assert language_of("est-ce que tu viens ce soir".split()) == "fr"
    assert language_of("mi chiamo marco".split()) == "it" and language_of("ich komme heute".split()) == "de"
    assert language_of(["ok"]) is None  # a loan word decides nothing


def test_marks_set_apart_by_a_space_are_their_words_marks():
    line = f"« Bonjour » , dit-il . Tu viens{NB}? Oui !"
    units, spacing = attach_spaced_marks(split_units(line), unit_spacing(line))
    assert units == ["«Bonjour»,", "dit-il.", "Tu", "viens?", "Oui!"] and spacing == [False, True, True, True, True]
    assert prepare_spaced("¿ Qué pasa ?", "keep")[0] == ["¿Qué", "pasa?"]
    assert prepare_spaced("? hein", "keep")[0] == ["?", "hein"]  # nothing before it: it stays


@pytest.fixture(scope="module")
def multilingual():
    return Punctuator.load("multilingual", threads=1)


LINE = "Tu viens ce soir? Oui, je viens!"
SET = f"Tu viens ce soir{NB}? Oui, je viens{NB}!"


def test_every_writer_sets_a_french_line_alike_and_reads_it_back(multilingual):
    """Batch, jsonl words, restore_words (subtitles, timed words) and a live stream write the line through
    ``typeset``; the written line given again comes back unchanged (its spaced marks read as its own)."""
    assert multilingual.predict([LINE]) == [SET]
    scored = multilingual.predict_scored([LINE])[0]
    assert scored.text == SET and " ".join(w.text for w in scored.words) == SET
    assert " ".join(w for w in multilingual.restore_words(LINE.split()) if w) == SET
    for lookahead in (8, 10**9):  # the line in one window, as predict reads it
        captions = Captions(StreamingPunctuator(multilingual, lookahead))
        assert captions.push(LINE.split()[:3]) + captions.push(LINE.split()[3:]) + captions.finish() == SET
    assert multilingual.predict([SET, SET.replace(NB, " ")]) == [SET, SET]


def test_plain_typography_writes_marks_against_their_words(multilingual):
    plain = Punctuator(multilingual.models, typography="plain")
    assert plain.predict([LINE, SET]) == [LINE, LINE]


def test_the_spacing_report_tells_the_forms_apart():
    """utils/report/french_spacing.py (which form the French references use) counts each form per mark."""
    import french_spacing  # utils/report/, importable by its name (conftest)
    from gector_punct_data.corpora.multitext import docx_paragraphs, squeeze
    counts = french_spacing.spacing_counts([f"Vraiment{NB}? Oui ! Non: «{NB}bon{NB}» fin\u202f;"])
    assert counts["?", "no-break"] == counts["!", "space"] == counts[":", "none"] == 1
    assert counts["«", "no-break"] == counts["»", "no-break"] == counts[";", "narrow no-break"] == 1
    assert squeeze(f" a \n b{NB}? ", keep_no_break=True) == f"a b{NB}?" and squeeze(f"a{NB}?") == "a ?"


def test_a_set_french_line_scores_as_its_plain_form(tmp_path):
    """The scorer reads ``viens\u00a0?`` as the word ``viens`` with a ``?`` (utils/evaluate.py on predict.py's
    French output; it stopped with 'different words' when the no-break space split the line)."""
    from gector_punct.scoring.metrics import labels_from_files
    ref, plain, set_ = tmp_path / "ref.txt", tmp_path / "plain.txt", tmp_path / "set.txt"
    ref.write_text("Il a dit: « Bonjour ». Tu viens ce soir? Oui.\n", encoding="utf-8")
    plain.write_text("Il a dit: «Bonjour». Tu viens ce soir. Oui?\n", encoding="utf-8")
    set_.write_text(" ".join(typeset(plain.read_text(encoding="utf-8").split(), "french")) + "\n", encoding="utf-8")
    assert NB in set_.read_text(encoding="utf-8")
    assert labels_from_files(str(ref), str(set_)) == labels_from_files(str(ref), str(plain))
