"""Which language a line is in (``text.language``): a language identifier's guess, not lists of marker words
that overlap between languages, so a word shared by two languages or a loan word decides nothing; and the
shipped multilingual model writing each language's conventions on short lines of it."""
import os

import pytest

from conftest import ROOT
from gector_punct.text import language
from gector_punct.text.language import guess_language, language_of, line_cores

LINES = os.path.join(ROOT, "tests", "data", "language_lines.tsv")
NB = "\u00a0"


def probe_lines() -> list[tuple[str, str]]:
    with open(LINES, encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t", 1)) for line in f if line.strip() and not line.startswith("#")]


def test_short_lines_of_each_language_are_guessed_and_none_as_another():
    """The probe lines (``ok``, ``weekend``, ``pizza``, ``email`` in every language; Italian ``tiene``):
    at least 95 of 100 guessed right, none as another language (a wrong guess applies another language's
    conventions; an undecided one applies none)."""
    rows = probe_lines()
    guesses = [(lang, language_of(text.split())) for lang, text in rows]
    wrong = [(lang, text, found) for (lang, found), (_, text) in zip(guesses, rows) if found not in (lang, None)]
    assert len(rows) == 100 and not wrong, wrong
    assert sum(found == lang for lang, found in guesses) >= 95


def test_a_loan_word_or_a_shared_word_decides_nothing():
    assert language_of(["ok"]) is None and language_of(["OK!"]) is None
    assert language_of("ok est-ce que tu viens demain avec nous".split()) == "fr"
    assert language_of("chi tiene le chiavi della macchina".split()) == "it"  # tiene: Spanish too
    assert language_of("tengo io le chiavi".split()) == "it"
    assert language_of(["", "?", "123"]) is None  # no letters: no language


def test_the_likeliest_language_needs_a_margin_over_the_next(monkeypatch):
    """Guessed only when ``MARGIN`` times as likely as the runner-up: an Italian-or-Spanish line gets no
    convention of either."""
    scores = {}
    monkeypatch.setattr(language, "language_scores", lambda cores: dict(scores))
    scores.update(en=0.0, fr=0.0, de=0.0, it=0.55, es=0.45)
    assert guess_language(("x",)) is None
    scores.update(it=0.75, es=0.25)  # exactly MARGIN (3) times: guessed
    assert language.MARGIN == 3.0 and guess_language(("x",)) == "it"
    scores.update(it=0.74, es=0.26)
    assert guess_language(("x",)) is None
    scores.update(it=0.0, es=0.0)
    assert guess_language(("x",)) is None


def test_a_line_is_read_by_its_words_cores():
    assert line_cores(["¿Qué", "HORA", "es?", "…"]) == ("qué", "hora", "es")
    assert language_of(["¿Qué", "hora", "es?"]) == language_of(["qué", "hora", "es"]) == "es"


@pytest.fixture(scope="module")
def multilingual():
    from gector_punct.prediction.punctuator import Punctuator

    return Punctuator.load("multilingual")


def test_italian_questions_open_with_no_spanish_mark(multilingual):
    """``chi tiene le chiavi della macchina`` was ``¿Chi tiene ...?``: ``tiene`` sat in a list of Spanish
    words."""
    lines = ["chi tiene le chiavi della macchina", "dove hai messo il telefono", "hai tempo per un caffè",
             "perché non sei venuto alla festa", "dónde está la estación de tren"]
    out = multilingual.predict(lines)
    for line in out[:4]:
        assert "¿" not in line and line[0].isupper(), line
    assert out[0].endswith("?") and out[1].endswith("?"), out
    assert out[4].startswith("¿") and out[4].endswith("?"), out[4]  # Spanish keeps its ¿


def test_french_spacing_with_a_loan_word(multilingual):
    """``ok est-ce que tu viens demain avec nous`` ended ``nous?``: one ``ok`` (an English marker) turned
    French spacing off."""
    out = multilingual.predict(["ok est-ce que tu viens demain avec nous", "est-ce que tu viens demain avec nous",
                                "c'est quoi ton email"])
    assert out[0].endswith(f"nous{NB}?") and out[1].endswith(f"nous{NB}?"), out
    assert out[2].endswith(f"email{NB}?"), out[2]


def test_the_identifier_is_read_from_an_unpacked_copy_made_once(tmp_path, monkeypatch):
    """py3langid's model ships LZMA-packed: the first use unpacks it into the cache, later ones read the copy;
    a cache that cannot be written leaves the packed model read, with the same guesses."""
    lines = [text.split() for _, text in probe_lines()[::10]]
    expected = [language_of(words) for words in lines]
    for cache in (tmp_path / "cache", tmp_path / "a_file" / "cache"):
        (tmp_path / "a_file").write_text("not a folder")
        monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(cache))
        language._identifier.cache_clear()
        language.language_scores.cache_clear()
        assert [language_of(words) for words in lines] == expected
    assert [p.name for p in (tmp_path / "cache" / "langid").iterdir()] == ["py3langid-0.4.0.npz"]
    language._identifier.cache_clear()
    language.language_scores.cache_clear()
