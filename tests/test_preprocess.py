"""Preprocessing and file handling: bad input names its file and line; nothing is silently misaligned."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from gector_punct.text.files import InputError, atomic_write, read_lines
from gector_punct.dataset.preprocess import preprocess_files
from gector_punct.dataset.reader import DatasetReader
from gector_punct.text.tags import parse_tagged


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return str(path)


def test_preprocess_writes_tags_and_detects_case(tmp_path):
    src = write(tmp_path / "s", "so i went to new york\nhello world\n\n")
    tgt = write(tmp_path / "t", "So I went to New York.\nHello , world !\n\n")
    lines, stats = preprocess_files(src, tgt)
    assert stats == {"lines": 3, "written": 2, "skipped": 0, "empty": 1, "cased": True}
    words, tags = parse_tagged(lines[1])
    assert words == ["hello", "world"] and str(tags[0]) == "$TRANSFORM_CASE_CAPITALSEPL__SEPR$APPEND_,"


def test_uncased_target_gets_unknown_case(tmp_path):
    src = write(tmp_path / "s", "so i went home\n")
    tgt = write(tmp_path / "t", "so i went home.\n")
    lines, stats = preprocess_files(src, tgt)
    assert not stats["cased"] and "$CASE_UNKNOWN" in lines[0]


def test_word_mismatch_names_file_and_line(tmp_path):
    src = write(tmp_path / "s", "one two\nthree four\n")
    tgt = write(tmp_path / "t", "One two.\nThree five.\n")
    with pytest.raises(InputError, match=r"s:2 / .*t:2: .*differ at word 2"):
        preprocess_files(src, tgt)
    lines, stats = preprocess_files(src, tgt, skip_bad=True)
    assert stats["skipped"] == 1 and len(lines) == 1


def test_line_count_mismatch(tmp_path):
    src = write(tmp_path / "s", "one\ntwo\n")
    tgt = write(tmp_path / "t", "One.\n")
    with pytest.raises(InputError, match="2 lines but .* has 1"):
        preprocess_files(src, tgt)


def test_empty_and_undecodable_files(tmp_path):
    empty = write(tmp_path / "empty", "")
    with pytest.raises(InputError, match="empty"):
        preprocess_files(empty, empty)
    bad = write(tmp_path / "bad", b"fine line\nbroken \xff\xfe line\n", "wb")
    with pytest.raises(InputError, match=r"bad:2: not valid UTF-8"):
        list(read_lines(bad))


def test_read_lines_splits_only_on_newline(tmp_path):
    path = write(tmp_path / "odd", b"a\r\nb\rc\xe2\x80\xa8d\n\nlast", "wb")
    assert [t for _, t in read_lines(path)] == ["a", "b\rc\u2028d", "", "last"]


def test_atomic_write_leaves_old_file_on_failure(tmp_path):
    path = write(tmp_path / "out", "old\n")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_write(path) as out:
            out.write("partial")
            raise RuntimeError("boom")
    assert open(path).read() == "old\n"
    assert os.listdir(tmp_path) == ["out"]


def test_reader_reports_bad_line(tmp_path):
    path = write(tmp_path / "data", "aSEPL|||SEPR$KEEP bSEPL|||SEPR$APPEND_.\nno tag here\n")
    with pytest.raises(InputError, match="data:2"):
        DatasetReader().read(path)
    reader = DatasetReader(skip_bad=True)
    assert len(reader.read(path)) == 1 and reader.skipped == 1


def test_cli_error_exit_code(tmp_path):
    src = write(tmp_path / "s", "one two\n")
    tgt = write(tmp_path / "t", "One three.\n")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "preprocess_data.py"), "-s", src, "-t", tgt,
                          "-o", str(tmp_path / "o")], capture_output=True, text=True)
    assert run.returncode == 2 and "s:1" in run.stderr and not os.path.exists(tmp_path / "o")


def test_make_source_cli(tmp_path):
    tgt = write(tmp_path / "t", "So I went to New York, didn't I?\n\n¿Qué tal?\n")
    out = tmp_path / "s"
    subprocess.run([sys.executable, os.path.join(ROOT, "utils", "make_source.py"), tgt, str(out)], check=True)
    assert open(out, encoding="utf-8").read() == "so i went to new york didn't i\n\nqué tal\n"
