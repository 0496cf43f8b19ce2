"""gector_punct_data.corpora.meetings: projecting a French report's case and marks onto ASR words, and the readers of
the public-meetings files, on small hand-made examples (no network, no real package)."""
import datetime
import pickle
import zipfile

import pytest

from gector_punct.text.tags import tags_from_pair
from gector_punct_data.corpora import meetings as m


def project(report: str, asr: str, stats=None) -> str:
    target = " ".join(m.project_marks(report.split(), asr.split(), stats))
    tags_from_pair(asr.split(), target)  # the target is the ASR words, only case and edge marks changed
    return target


def test_identical_words_take_case_and_marks():
    assert project("Bonjour, je suis là.", "bonjour je suis là") == "Bonjour, je suis là."


def test_inserted_asr_word_stays_bare():
    assert project("Nous partons demain.", "nous partons euh demain") == "Nous partons euh demain."


def test_deleted_report_word_is_skipped():
    assert project("Nous partons très vite.", "nous partons vite") == "Nous partons vite."


def test_substituted_word_gets_no_case_or_mark():
    assert project("Le Conseil siège à Paris, ce soir.", "le conseil sièges à paris ce soir") == \
        "Le Conseil sièges à Paris, ce soir."


def test_sentence_end_of_a_deleted_word_goes_before_the_gap():
    stats = {}
    assert project("Il est arrivé hier. Ensuite, nous votons.", "il est arrivé ensuite nous votons", stats) == \
        "Il est arrivé. Ensuite, nous votons."
    assert stats["sentence_ends_moved"] == 1
    assert stats["asr_words"] == stats["asr_matched"] == 6 and stats["report_words"] == 7


def test_sentence_end_goes_on_the_last_asr_word_before_the_next_match():
    assert project("Il vient demain. Merci.", "il vient demains merci") == "Il vient demains. Merci."
    assert project("Nous votons. Au revoir.", "nous votons bien") == "Nous votons. bien."  # at the segment's end


def test_sentence_end_replaces_a_comma_but_not_an_abbreviation_point():
    assert project("Il parle, enfin bref. Nous", "il parle nous") == "Il parle. Nous"
    assert project("avec M. Dupont", "avec monsieur dupont") == "avec monsieur Dupont"


def test_french_quotes_and_spaced_marks():
    assert project("Il a dit « bonjour » et puis : pourquoi ?", "il a dit bonjour et puis pourquoi") == \
        "Il a dit «bonjour» et puis: pourquoi?"


def test_case_elision_and_curly_apostrophe():
    report, asr = "Thierry MORIN ouvre l’Assemblée aujourd’hui.", "thierry morin ouvre l'assemblée aujourd'hui"
    assert project(report, asr) == "Thierry MORIN ouvre l'Assemblée aujourd'hui."


def test_leading_unmatched_report_words_and_empty_inputs():
    assert project("Donc, nous partons.", "nous partons") == "nous partons."
    assert m.project_marks([], ["oui"]) == ["oui"]
    assert m.project_marks(["Oui."], []) == []


def test_align_words_cut_at_long_runs_matches_the_dp():
    a = "le président ouvre la séance et la parole est donnée au directeur général de la société".split()
    b = "euh le président ouvre la séance la parole est donc donnée au directeur de la société voilà".split()
    exact = m.align_words(a, b)
    cut = m.align_words(a, b, max_cells=20)

    def matches(pairs):
        return [(i, j) for i, j in pairs if i is not None and j is not None and a[i] == b[j]]
    assert matches(cut) == matches(exact) and len(matches(exact)) == 14
    for pairs in (exact, cut):
        assert [i for i, _ in pairs if i is not None] == list(range(len(a)))
        assert [j for _, j in pairs if j is not None] == list(range(len(b)))


def test_asr_words_join_elisions_and_drop_tags():
    text = "<start=1,end=2,speaker=S0> Bonjour , l' assemblée aujourd ' hui est -ce <unk> que B. Rein-Sein ."
    assert m.asr_words(text) == ["bonjour", "l'assemblée", "aujourd'hui", "est-ce", "que", "b", "rein-sein"]


def test_tagged_tokens_mark_headers_and_names_unspoken():
    got = m.tagged_tokens("<h> ordre du jour </h> <nom> jean dupont </nom> <p> bonjour . </p>")
    assert [t for t, s in got if s] == ["bonjour", "."]
    assert [t for t, s in got if not s] == ["ordre", "du", "jour", "jean", "dupont"]


def test_read_ctm(tmp_path):
    path = tmp_path / "x.0.ctm"
    path.write_text("REC\t1\t0.5\t0.0\t<start=0.5,end=2.0,speaker=S0>\t1.0\n"
                    "REC\t1\t0.5\t0.1\tBonjour\t0.9\n\nREC\t1\t0.7\t0.2\tl'\t0.8\nREC 1 0.9 0.1 ,\n", encoding="utf-8")
    words = m.read_ctm(str(path))
    assert [w for _, _, w, _ in words] == ["<start=0.5,end=2.0,speaker=S0>", "Bonjour", "l'", ","]
    assert words[1] == (0.5, 0.1, "Bonjour", 0.9) and words[3][3] == 1.0
    assert m.read_ctm(path.read_bytes()) == words


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def make_docx(path, paragraphs_xml: str) -> None:
    body = (f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W_NS}"><w:body>{paragraphs_xml}'
            '</w:body></w:document>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml", body)


def test_read_docx(tmp_path):
    path = tmp_path / "r.docx"
    make_docx(path, '<w:p><w:r><w:t>Ordre du jour</w:t></w:r></w:p>'
                    '<w:p><w:r><w:t xml:space="preserve">Bonjour à </w:t></w:r><w:r><w:t>tous</w:t><w:tab/>'
                    '<w:t>!</w:t></w:r></w:p>'
                    '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Case</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'
                    '<w:p/>')
    assert m.read_docx(str(path)) == ["Ordre du jour", "Bonjour à tous !", "Case", ""]
    assert m.read_docx(path.read_bytes())[1] == "Bonjour à tous !"


def test_load_alignment_refuses_classes():
    data = {"final": {"doc": [{"id": "0_0_0", "text": "a", "validated": True}], "ctm": []}}
    assert m.load_alignment(pickle.dumps(data, protocol=3)) == data
    with pytest.raises(pickle.UnpicklingError):
        m.load_alignment(pickle.dumps({"when": datetime.date(2020, 1, 1)}))


def test_report_segments_cut_the_docx_and_leave_headers_out():
    paragraphs = ["Sommaire", "Ouverture", "Jean DUPONT, Président", "Bonjour à tous. Merci d’être là.",
                  "Vote", "Nous votons ; c’est adopté."]
    doc = [{"id": "0_0_0", "text": "<h> ouverture </h> <nom> jean dupont , président </nom> <p> bonjour à tous . "
                                   "merci d' être là . </p>"},
           {"id": "0_1_0", "text": "<h> vote </h> <p> nous votons ; c' est adopté . </p>"},
           {"id": "0_2_0", "text": "<p> absent du document </p>"}]
    assert m.report_segments(paragraphs, doc) == {"0_0_0": "Bonjour à tous. Merci d’être là.".split(),
                                                  "0_1_0": "Nous votons; c’est adopté.".split()}


def fake_package(root) -> str:
    """A folder with one meeting as the package lays it out: ID.aligned.pckl, ID.0.ctm, ID.docx."""
    mid = "0" * 31 + "1"
    data = root / "public_meetings" / "data"
    data.mkdir(parents=True)
    make_docx(data / f"{mid}.docx", "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in
                                            ["Ouverture", "Bonjour à tous. Nous commençons.", "Vote",
                                             "Qui est pour ? Adopté."]))
    ctm_text = ["bonjour à tous nous commençons", "euh voilà", "qui est pour adopté"]
    alignment = {"initial": {}, "final": {
        "doc": [{"id": "0_0_0", "text": "<h> ouverture </h> <p> bonjour à tous . nous commençons . </p>"},
                {"id": "0_1_0", "text": "<h> vote </h> <p> qui est pour ? adopté . </p>"}],
        "ctm": [{"id": "0_0_0", "text": ctm_text[0], "aligned": "0_0_0"},
                {"id": "0_1_0", "text": ctm_text[1], "aligned": ""},
                {"id": "0_2_0", "text": ctm_text[2], "aligned": "0_1_0"}]}}
    (data / f"{mid}.aligned.pckl").write_bytes(pickle.dumps(alignment, protocol=3))
    words = " ".join(ctm_text).split()
    (data / f"{mid}.0.ctm").write_text("".join(f"R 1 {k}.0 0.5 {w} 1.0\n" for k, w in enumerate(words)))
    return str(root), mid


def test_asr_pairs_on_a_fake_package(tmp_path):
    root, mid = fake_package(tmp_path)
    stats = {}
    pairs = m.asr_pairs(root, m.MeetingFiles(root).meeting_ids(), stats)
    assert pairs == [("bonjour à tous nous commençons", "Bonjour à tous. Nous commençons.", mid),
                     ("qui est pour adopté", "Qui est pour? Adopté.", mid)]
    assert stats["segments"] == 2 and stats["asr_matched"] == stats["asr_words"] == 9
    assert stats["ctm_words"] == 11 and stats["ctm_words_in_alignment"] == 11


def test_split_ids_holds_the_last_four_apart():
    ids = [f"{k:032x}" for k in range(10)][::-1]
    assert m.split_ids(ids) == sorted(ids)[-4:]
    assert m.split_ids(ids, "train") == sorted(ids)[:-4]
    assert m.split_ids(ids, "all") == sorted(ids)


def test_prepare_french_asr_script_on_a_fake_package(tmp_path, capsys):
    import importlib.util
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "utils", "data", "prepare_french_asr.py")
    spec = importlib.util.spec_from_file_location("prepare_french_asr", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    root, mid = fake_package(tmp_path / "pkg")
    prefix = str(tmp_path / "out" / "fr")
    script.main(["--package", root, "--out_prefix", prefix])
    capsys.readouterr()

    def read(suffix):
        with open(prefix + suffix, encoding="utf-8") as f:
            return f.read()

    assert read(".src").splitlines() == ["bonjour à tous nous commençons", "qui est pour adopté"]
    assert read(".tgt").splitlines() == ["Bonjour à tous. Nous commençons.", "Qui est pour? Adopté."]
    stats = json.loads(read(".stats.json"))
    assert stats["meetings"] == [mid] and stats["lines"] == 2 and stats["asr_words_matched_share"] == 1.0
    assert stats["targets"]["marks"]["."] == 3 and stats["targets"]["lower_case_after_sentence_end"] == 0
