"""Numbers in every language under --numbers digits (issue 68), the writer alone on restored text (no model): the
per-language probe tables (tuned on, and held aside), a mark the restoration put inside a spoken number, per cent
in each language's spacing, years said in hundreds, and each language needing only its own library. English
needs nemo_text_processing (requirements-numbers.txt)."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from test_numbers import needs_nemo, probe_scores, written

from gector_punct.text.numbers.european import NO_BREAK_SPACE

LANGUAGES = ("en", "fr", "es", "de", "it")
TUNED = os.path.join(ROOT, "tests", "data", "number_languages.tsv")
HELD_ASIDE = os.path.join(ROOT, "tests", "data", "number_languages_heldout.tsv")
HIDE_NEMO = ("import sys\nclass Hide:\n    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] in ('nemo_text_processing', 'pynini'):\n"
             "            raise ModuleNotFoundError(name)\n"
             "sys.meta_path.insert(0, Hide())\n")


def table(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]


@needs_nemo
@pytest.mark.parametrize("path", [TUNED, HELD_ASIDE])
def test_each_languages_probe_lines_are_written_as_an_editor_writes_them(path):
    right, total, false_digits, missed = probe_scores(table(path))
    assert set(total) == set(LANGUAGES) and all(total[lang] >= 7 for lang in LANGUAGES)
    assert all(right[lang] / total[lang] >= 0.95 for lang in LANGUAGES), right
    assert false_digits == []
    assert missed == []  # every line right today stays right


@pytest.mark.parametrize("language, restored, expected", [
    ("fr", "Elle est née en mille, neuf, cent, soixante, dix, huit à Lyon.", "Elle est née en 1978 à Lyon."),
    ("es", "Mi padre nació en mil novecientos, setenta y dos.", "Mi padre nació en 1972."),
    ("de", "Er wurde neunzehnhundert, achtundsiebzig geboren.", "Er wurde 1978 geboren."),
    ("it", "È nato nel mille, novecento sessanta.", "È nato nel 1960."),
    ("es", "Mil novecientos; setenta y dos.", "1972."),  # a semicolon is a pause too
    ("es", "Mil novecientos. Setenta y dos.", "1900. 72."),  # a sentence's end is no pause: it stays
    ("fr", "Vingt, trente, quarante.", "20, 30, 40."),  # numbers of their own: the list stays
    ("fr", "Mille, deux mille.", "1\u202f000, 2\u202f000."),  # 1002 would split 2000: the mark stays
    ("fr", "Cent, deux cents.", "100, 200."),
    ("fr", "Vingt, deuxième.", "20, deuxième."),  # one number to text2num, an ordinal no one writes: it stays
    ("fr", "En mille, neuf, cent, soixante, dix, huit, à Lyon.", "En 1978, à Lyon."),  # the number's last mark stays
    ("es", "Sí. Mil novecientos, setenta. Y mil, doce.", "Sí. 1970. Y 1012."),  # two chains, after a clause
    ("es", "Sí. Nació en mil novecientos, setenta y dos.", "Sí. Nació en 1972."),
    ("es", "Sí. Doce, mil novecientos.", "Sí. 12\u202f900."),  # each side whole in one number: 12,900
    ("es", "Sí. Mil doce, mil.", "Sí. 1012, 1000."),  # no number read takes both sides
    ("es", "Sí. Mil, doce mil.", "Sí. 1000, 12\u202f000."),  # 1012 would split 12,000
])
def test_a_mark_inside_a_spoken_number_goes_in_every_language(language, restored, expected):
    assert written(restored, language) == expected


@needs_nemo
def test_a_mark_inside_an_english_number_goes_as_text2num_reads_it():
    assert written("We paid forty, two dollars.") == "We paid $42."
    assert written("One, two, three, go.") == "One, two, three, go."  # digits said one by one are no one number
    assert written("In nineteen, eighty four") == "In 19, 84"  # text2num reads 19 and 84: two numbers
    # text2num reads 2000; the tagger writes 20 and leaves a scale alone: no number takes the mark, it stays
    assert written("twenty, hundred") == "20, hundred"


def test_which_marks_stand_inside_a_number():
    from gector_punct.text.numbers.readers import numbers_read
    from gector_punct.text.numbers.spans import inside_marks

    assert numbers_read(["zéro", "le", "cinq"], "fr") == [(0, 1), (2, 3)]  # every number, however small

    assert inside_marks("en mille, neuf, cent, soixante, dix, huit à lyon".split(), "fr") == {1, 2, 3, 4, 5}
    assert inside_marks("vingt, trente".split(), "fr") == set()
    assert inside_marks("vingt - cinq".split(), "fr") == set()  # a word of marks alone: no mark of a word
    assert inside_marks("vingt, (cinq)".split(), "fr") == set()  # the next word opens with a mark
    assert inside_marks("vingt: cinq".split(), "fr") == set()  # a colon says more than a pause
    assert inside_marks("vingt,, cinq".split(), "fr") == {0}
    assert inside_marks("vingt,; cinq".split(), "fr") == {0}  # marks of INSIDE_MARKS alone, any of them
    assert inside_marks([], "fr") == set() and inside_marks(["vingt,"], "fr") == set()
    assert inside_marks("il, vingt".split(), "fr") == set()  # no number before the mark


def test_a_stream_holds_a_number_across_the_commas_inside_it():
    from test_numbers import held

    out = held(["Elle est née en mille, neuf, cent, soixante,", "dix, huit à Lyon."])
    assert sum(out, []) == "Elle est née en 1978 à Lyon.".split()
    assert out[0] == ["Elle", "est", "née"]  # "en" and the number wait: it may go on past each comma
    assert held(["Il dit oui, puis", "non."])[0] == ["Il", "dit", "oui,"]  # a comma after no number closes


@pytest.mark.parametrize("language, spoken, expected", [
    ("fr", "douze pour cent", f"12{NO_BREAK_SPACE}%"),
    ("fr", "cent pour cent", f"100{NO_BREAK_SPACE}%"),
    ("fr", "trois pour cent", f"3{NO_BREAK_SPACE}%"),  # a percentage is in digits however small
    ("fr", "je l'ai acheté pour cent euros", f"je l'ai acheté pour 100{NO_BREAK_SPACE}€"),  # no number before
    ("es", "el cuarenta por ciento", f"el 40{NO_BREAK_SPACE}%"),
    ("es", "el paro bajó un cinco por ciento", f"el paro bajó un 5{NO_BREAK_SPACE}%"),  # "un" is an article
    ("de", "zwanzig Prozent", f"20{NO_BREAK_SPACE}%"),
    ("it", "il quaranta per cento", "il 40%"),  # Italian editors write no space
    ("it", "il quaranta percento", "il 40%"),
    ("it", "l'ho pagato per cento euro", f"l'ho pagato per 100{NO_BREAK_SPACE}€"),
])
def test_per_cent_is_written_with_percent_in_each_languages_spacing(language, spoken, expected):
    assert written(spoken, language) == expected


def test_a_german_dates_day_is_an_ordinal_in_digits():
    assert written("am dritten oktober", "de") == "am 3. oktober"
    assert written("der dritte mann", "de") == "der dritte mann"  # an ordinal before no month stays


def test_a_one_alone_is_an_article_beside_a_number_too():
    assert written("un cinco", "es") == "un cinco"
    assert written("dos tres", "es") == "2 3"  # two numbers side by side are counts
    assert written("uno dos tres cuatro", "es", "all_digits") == "1 2 3 4"


@needs_nemo
@pytest.mark.parametrize("spoken, expected", [
    ("the castle was built around fifteen hundred", "the castle was built around 1500"),
    ("By eighteen hundred, the town grew", "By 1800, the town grew"),
    ("it dates from twelve hundred and the rest", "it dates from 1200 and the rest"),
    ("fifteen hundred people came", "1,500 people came"),  # a count
    ("around fifteen hundred people came", "around 1,500 people came"),  # a counted thing follows: a count
    ("we sold about fifteen hundred", "we sold about 1,500"),  # "about" says a count
    ("around two thousand", "around 2,000"),  # said in thousands: a count
])
def test_a_year_said_in_hundreds_is_a_year_where_the_context_says_year(spoken, expected):
    assert written(spoken) == expected


@needs_nemo
def test_one_to_ten_stay_words_and_eleven_is_a_count():
    assert written("ten cats") == "ten cats"
    assert written("eleven cats") == "11 cats"
    assert written("ten cats", mode="all_digits") == "10 cats"


def test_each_language_needs_only_its_own_library(monkeypatch, capsys):
    from gector_punct.text.numbers import english
    from gector_punct.text.numbers.english import NumbersUnavailable
    from gector_punct.text.numbers.spans import numbers_available

    monkeypatch.setitem(sys.modules, "nemo_text_processing", None)  # not installed
    monkeypatch.setattr(english, "_noted", False)
    for language in ("fr", "es", "de", "it"):
        assert numbers_available("digits", language) == "digits"
    for language in ("en", None):
        with pytest.raises(NumbersUnavailable):
            numbers_available("all_digits", language)
    assert written("il a vingt cinq ans", "fr") == "il a 25 ans"
    assert written("so we paid", "en") == "so we paid" and capsys.readouterr().err == ""  # no number: no note
    assert written("it costs twenty five dollars", "en") == "it costs twenty five dollars"  # no word lost
    assert written("eleven players", "en") == "eleven players"
    assert capsys.readouterr().err.splitlines() == [  # one note, once
        "note: English numbers are left as words (numbers as digits need nemo_text_processing for English: pip "
        "install -r requirements-numbers.txt)"]


def test_the_input_language_is_its_first_words(tmp_path, monkeypatch):
    from gector_punct.text.numbers.spans import file_language

    (tmp_path / "fr.txt").write_text("il a vingt cinq ans et ça coûte trois cent quarante euros\n")
    (tmp_path / "fr.srt").write_text("1\n00:00:01,000 --> 00:00:03,000\nil a vingt cinq ans et ça coûte trois "
                                     "cent quarante euros\n")
    (tmp_path / "none.txt").write_text("12 34\n")
    (tmp_path / "odd.txt").write_bytes("il a vingt cinq ans et ça coûte trois cent \xff quarante euros"
                                       .encode("latin-1"))
    (tmp_path / "long.txt").write_text("the cat sat on the mat\n" * 34 + "il a vingt cinq ans et ça coûte trois "
                                       "cent quarante euros et il mange une pomme\n" * 200)
    assert file_language(str(tmp_path / "fr.txt")) == "fr" and file_language(str(tmp_path / "fr.srt")) == "fr"
    assert file_language(str(tmp_path / "odd.txt")) == "fr"  # a byte that is no UTF-8 is read past
    assert file_language(str(tmp_path / "long.txt")) == "en"  # its first 200 words: 204 of them English
    assert file_language(str(tmp_path / "none.txt")) is None  # no word says a language
    assert file_language(str(tmp_path / "absent.txt")) is None
    (tmp_path / "-").write_text("il a vingt cinq ans et ça coûte trois cent quarante euros\n")
    monkeypatch.chdir(tmp_path)
    assert file_language("-") is None  # stdin, never a file of that name


def test_predict_reads_french_numbers_without_nemo(tmp_path):
    """nemo hidden from the child: a French input needs only text2num; predict.py checks before loading the
    model, so an English input's error comes first and fast (the French run loads the multilingual model)."""
    (tmp_path / "sitecustomize.py").write_text(HIDE_NEMO)
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    french = tmp_path / "fr.txt"
    french.write_text("il a vingt cinq ans et ça coûte trois cent quarante euros\n")
    result = subprocess.run([sys.executable, "predict.py", "--input_file", str(french), "--output_file", "-",
                             "--numbers", "digits", "--model_path", "multilingual"], capture_output=True,
                            text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    assert "25" in result.stdout and f"340{NO_BREAK_SPACE}€" in result.stdout


def test_a_letters_period_before_the_lines_last_word_divides_nothing():
    from gector_punct.text.numbers.spans import clauses

    assert clauses("at eleven P. M".split()) == [(0, 4)]  # "M" is the last word: still a letter after "P."
    assert clauses("at eleven P.".split()) == [(0, 3)]
    assert clauses("at P. Then".split()) == [(0, 2), (2, 3)]


@needs_nemo
def test_a_clock_time_whose_letters_end_the_line_is_written():
    assert written("we meet at eleven P. M") == "we meet at 11 p.m."


def test_a_stream_closes_at_a_comma_after_no_number_word_and_reads_a_capital():
    from test_numbers import held

    assert held(["Elle a vingt ans,", "puis elle"])[0] == ["Elle", "a", "20", "ans,"]  # "ans," closes the clause
    assert sum(held(["Il est né en l'an", "Mille, neuf cent soixante."]), []) == "Il est né en l'an 1960.".split()


@pytest.mark.parametrize("language, spoken, expected", [
    ("fr", "deux pour cent", f"2{NO_BREAK_SPACE}%"),  # a number under text2num's default threshold before it
    ("fr", "zéro pour cent", f"0{NO_BREAK_SPACE}%"),
    ("fr", "à quinze heures trente et vingt euros", f"à 15{NO_BREAK_SPACE}h{NO_BREAK_SPACE}30 et 20{NO_BREAK_SPACE}€"),
    ("fr", "à quinze heures cinq", f"à 15{NO_BREAK_SPACE}h{NO_BREAK_SPACE}05"),  # a minute in two digits
    ("fr", "à quinze heures deux", f"à 15{NO_BREAK_SPACE}h{NO_BREAK_SPACE}02"),  # under text2num's default threshold
    ("fr", "à quinze heures vingt cinq", f"à 15{NO_BREAK_SPACE}h{NO_BREAK_SPACE}25"),  # minutes said in two words
    ("fr", "le premier jour il a vingt cinq ans", "le premier jour il a 25 ans"),  # the numbers after an ordinal
    ("fr", "en l'an deux mille", "en l'an 2000"),  # a year's digits are not grouped
    ("de", "am dritten oktober zahlten wir zwanzig euro", f"am 3. oktober zahlten wir 20{NO_BREAK_SPACE}€"),
    ("de", "der dritte", "der dritte"),  # an ordinal that ends the clause
    ("es", "las tres y media", "las 3:30"),  # "las" the clause's first word
    ("es", "tres y media las", "tres y media las"),  # no "las" before: no hour
])
def test_each_languages_style_in_its_exact_characters(language, spoken, expected):
    assert written(spoken, language) == expected


def test_all_digits_writes_two_to_ten_in_every_language():
    assert written("ha due cani", "it", "all_digits") == "ha 2 cani"
    assert written("ha due cani", "it") == "ha due cani"


@needs_nemo
def test_a_stream_holds_a_capitalised_english_number_word_across_its_comma():
    from test_numbers import held

    assert held(["Twenty,", "five dollars."]) == [[], ["$25."], []]


@pytest.mark.parametrize("text, error", [("it costs twenty dollars\n", True),
                                         ("il a vingt cinq ans et ça coûte trois cent quarante euros\n", False)])
def test_predict_ray_asks_for_nemo_by_its_first_files_language(tmp_path, text, error):
    """nemo hidden: an English folder is one error line before Ray starts; a French one passes that check (the
    run then fails at once on an --output_dir under a file, so no Ray starts here)."""
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(HIDE_NEMO)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(text)
    (tmp_path / "file").write_text("a file")
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join([str(tmp_path / "hide"), ROOT]))
    result = subprocess.run([sys.executable, "utils/predict_ray.py", "--input_dir", str(tmp_path / "in"),
                             "--output_dir", str(tmp_path / "file" / "out"), "--numbers", "digits"], capture_output=True,
                            text=True, cwd=ROOT, env=env)
    assert result.returncode == 2
    assert ("nemo_text_processing" in result.stderr) == error and result.stderr.startswith("error: ")
