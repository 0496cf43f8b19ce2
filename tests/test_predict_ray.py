"""utils/predict_ray.py: a folder restored on a local Ray (2 CPUs) byte for byte as predict.py restores each
file, a bad file named while the others are written, a run killed with SIGKILL and resumed; the JSON-lines
format and the chunking through the same pieces in this process (no Ray)."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from gector_punct.prediction.folders import ChunkRestorer, FileWriter, LineFormat, read_chunks

sys.path.insert(0, os.path.join(ROOT, "utils"))
from benchmark_cli import asr_lines  # noqa: E402

SCRIPT = os.path.join(ROOT, "utils", "predict_ray.py")
CHUNK_WORDS = "400"  # the long files have several chunks each


def child_env() -> dict:
    return dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")


def write_inputs(folder) -> list[str]:
    """Plain files predict.py can restore (kept lines, marks, CRLF, no final newline, empty, several chunks)
    and one that is not UTF-8; returns the good names."""
    folder.mkdir(parents=True)
    (folder / "mixed.txt").write_bytes(b"so i went to new york\n\n  \nHello, already Punctuated here.\r\n"
                                       b"what time is it\r\nthe last line has no newline")
    (folder / "empty.txt").write_bytes(b"")
    long_names = [f"long{i}.txt" for i in range(4)]
    for i, name in enumerate(long_names):
        (folder / name).write_text("\n".join(asr_lines(1200, seed=i)) + "\n\n", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("ok then\ncaf\xe9 au lait\n".encode("latin-1"))
    return ["empty.txt", "mixed.txt", *long_names]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """Each good input file and what predict.py writes for it: its ``restore``, run here with the model
    loaded once (a child process per file would double this file's time)."""
    import predict

    inputs = tmp_path_factory.mktemp("ray") / "in"
    names = write_inputs(inputs)
    out = inputs.parent / "predict_py"
    out.mkdir()
    args = predict.parse_args(["--input_file", "-", "--output_file", "-", "--chunk_words", CHUNK_WORDS])
    punctuator = predict.load_punctuator(args)
    for name in names:
        args.input_file, args.output_file = str(inputs / name), str(out / name)
        predict.restore(args, punctuator, None)
    return inputs, {name: (out / name).read_bytes() for name in names}


def start_ray_script(inputs, outputs, *flags) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, SCRIPT, "--input_dir", str(inputs), "--output_dir", str(outputs),
                             "--num_cpus", "2", "--chunk_words", CHUNK_WORDS, *flags], cwd=ROOT, env=child_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)


def kill_session(child: subprocess.Popen) -> None:
    """SIGKILL to the script and every process of its session (the local Ray it started)."""
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        try:
            if os.getsid(pid) == child.pid:
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def test_killed_run_resumes_and_matches_predict_py_with_the_bad_file_named(expected, tmp_path):
    pytest.importorskip("ray")
    inputs, wanted = expected
    outputs = tmp_path / "out"
    first = start_ray_script(inputs, outputs, "--num_actors", "1")
    deadline = time.monotonic() + 240
    while not (outputs.is_dir() and [n for n in os.listdir(outputs) if not n.startswith(".")]):
        assert first.poll() is None and time.monotonic() < deadline, first.stderr.read() if first.poll() else "timeout"
        time.sleep(0.02)
    kill_session(first)
    done_first = {n: os.stat(outputs / n) for n in os.listdir(outputs) if not n.startswith(".")}
    assert 0 < len(done_first) < len(wanted)  # the kill came while files were left
    assert all((outputs / n).read_bytes() == wanted[n] for n in done_first)  # what is there is whole

    second = start_ray_script(inputs, outputs)  # the default: as many actors as CPUs (2)
    _, stderr = second.communicate(timeout=300)
    assert second.returncode == 2, stderr
    assert "latin1.txt:2: not valid UTF-8" in stderr
    assert f"{len(wanted) - len(done_first)} files done, {len(done_first)} skipped" in stderr
    assert sorted(os.listdir(outputs)) == sorted(wanted)  # no temporary file left, no output for the bad file
    for name, content in wanted.items():
        assert (outputs / name).read_bytes() == content, name
    for name, before in done_first.items():  # finished files were not redone
        after = os.stat(outputs / name)
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), name


def test_an_empty_folder_is_an_error_naming_it(tmp_path):
    (tmp_path / "in").mkdir()
    result = subprocess.run([sys.executable, SCRIPT, "--input_dir", str(tmp_path / "in"), "--output_dir",
                             str(tmp_path / "out")], cwd=ROOT, env=child_env(), capture_output=True, text=True)
    assert result.returncode == 2
    assert f"{tmp_path / 'in'} has no files to restore" in result.stderr


def test_jsonl_records_keep_their_fields_and_gain_the_restored_text(tmp_path):
    import predict_ray

    lines = [{"id": 3, "text": "so i went to new york", "speaker": {"name": "ann"}},
             {"text": "what time is it", "id": 4}, None, {"z": 1, "text": "é ok then", "restored": "old"}]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "talk.jsonl").write_text(
        "".join((json.dumps(r) if r else "  ") + "\n" for r in lines), encoding="utf-8")
    (tmp_path / "in" / "bad.jsonl").write_text('{"text": "fine"}\n{"words": "no text"}\n', encoding="utf-8")
    (tmp_path / "in" / "list.jsonl").write_text('["not", "an", "object"]\n', encoding="utf-8")
    args = predict_ray.parse_args(["--input_dir", str(tmp_path / "in"), "--output_dir", str(tmp_path / "out"),
                                   "--format", "jsonl"])
    line_format = LineFormat("jsonl")
    rows = [row for name in ("talk.jsonl", "bad.jsonl", "list.jsonl")
            for row in read_chunks({"name": name}, args.input_dir, line_format, chunk_words=5)]
    assert len([row for row in rows if row["name"] == "talk.jsonl"]) == 2  # cut after 6 words
    restorer, writer = ChunkRestorer(args, line_format, threads=1), FileWriter(args.output_dir)
    random.Random(0).shuffle(rows)  # chunks come back in any order
    for row in rows:
        out = restorer({key: [value] for key, value in row.items()})
        writer.add({key: values[0] for key, values in out.items()})
    assert writer.failed == {"bad.jsonl": f"{tmp_path / 'in' / 'bad.jsonl'}:2: the record has no field 'text'",
                             "list.jsonl": f"{tmp_path / 'in' / 'list.jsonl'}:1: not a JSON object"}
    assert sorted(os.listdir(tmp_path / "out")) == ["talk.jsonl"]
    written = (tmp_path / "out" / "talk.jsonl").read_text(encoding="utf-8").split("\n")
    assert len(written) == 5 and written[2] == written[4] == ""  # the blank line kept, each line ended
    records = [json.loads(line) for line in written if line]
    restored = restorer.punctuator.predict([r["text"] for r in lines if r])
    assert [list(r) for r in records] == [["id", "text", "speaker", "restored"], ["text", "id", "restored"],
                                          ["z", "text", "restored"]]
    assert [r.pop("restored") for r in records] == restored
    assert restored[0].startswith("So I went to New York")
    assert records == [r for r in lines if r][:2] + [{"z": 1, "text": "é ok then"}]


def test_capacity_of_a_million_hours_of_speech():
    import capacity

    words = capacity.archive_words(1e6, 150)
    assert words == 9e9
    assert capacity.capacity_rows(words, 2500, 10, [1, 100]) == [(1, 100.0), (100, 1.0)]  # 1,000 unit-hours over 10 units a machine


def test_a_write_that_fails_part_way_leaves_no_output_and_the_resume_rewrites_it(tmp_path, monkeypatch):
    """A file is written under its final name only once whole (``atomic_write``): a disk that fills after the
    first chunk leaves no output named ``talk.txt`` (which a resume would take for finished), no temporary
    file, and the file among the failed ones; the next run finds it pending and writes it whole."""
    from gector_punct.prediction import folders

    rows = [{"name": "talk.txt", "chunk": k, "chunks": 2, "output": [f"Line {k}a.", f"Line {k}b."], "endings": ["\n", "\n"], "words": 4,
             "error": ""} for k in (1, 0)]
    written = folders.write_lines

    def fills_the_disk(out, lines, *args):
        if "Line 1a." in lines:
            out.write("Line 1a.\n")  # the second chunk's first line gets out, then the disk is full
            raise OSError(28, "No space left on device")
        return written(out, lines, *args)

    monkeypatch.setattr(folders, "write_lines", fills_the_disk)
    writer = FileWriter(str(tmp_path))
    for row in rows:
        writer.add(row)
    assert writer.failed["talk.txt"] == f"{tmp_path / 'talk.txt'}: no space left on device" and writer.files == 0
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr(folders, "write_lines", written)
    assert folders.pending_names(["talk.txt"], str(tmp_path)) == ["talk.txt"]
    resumed = FileWriter(str(tmp_path))
    for row in rows:
        resumed.add(row)
    assert (tmp_path / "talk.txt").read_text() == "Line 0a.\nLine 0b.\nLine 1a.\nLine 1b.\n"
    assert (resumed.files, resumed.lines, resumed.words, resumed.failed) == (1, 4, 8, {})
