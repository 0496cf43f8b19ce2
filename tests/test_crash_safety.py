"""Files as a careful tool treats them (modes, links, pipes), one-line errors instead of tracebacks, and what a
kill -9 leaves behind: predict.py and train.py killed for real in subprocesses."""
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, TINY_ENCODER
from gector_punct.text.files import atomic_write, temporary_dir

ENV = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1")


def mode_of(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_written_files_follow_the_umask_and_keep_their_mode(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic_write(str(tmp_path / "new.txt")) as out:
            out.write("x\n")
        assert mode_of(tmp_path / "new.txt") == 0o640
    finally:
        os.umask(old)
    (tmp_path / "shared.txt").write_text("old\n")
    os.chmod(tmp_path / "shared.txt", 0o664)
    with atomic_write(str(tmp_path / "shared.txt")) as out:
        out.write("new\n")
    assert mode_of(tmp_path / "shared.txt") == 0o664 and (tmp_path / "shared.txt").read_text() == "new\n"


def test_writing_never_sets_the_process_umask(tmp_path, monkeypatch):
    """The umask is the whole process's: setting it to 0 for a moment (to read it) would make a file that
    another thread creates meanwhile world-writable. New files and folders get it from the kernel instead."""
    real_umask = os.umask

    def forbidden(_):
        raise AssertionError("os.umask called")

    old = real_umask(0o027)
    try:
        monkeypatch.setattr(os, "umask", forbidden)
        with atomic_write(str(tmp_path / "new.txt")) as out:
            out.write("x\n")
        folder = temporary_dir(str(tmp_path / "model"))
    finally:
        real_umask(old)
    assert mode_of(tmp_path / "new.txt") == 0o640 and mode_of(folder) == 0o750


def test_model_folders_follow_the_umask(tmp_path):
    from conftest import tiny_tagger
    from gector_punct.model.vocabulary import Vocabulary

    vocab = Vocabulary({"labels": ["$KEEP"], "case_tags": ["$KEEP"], "d_tags": ["CORRECT", "INCORRECT"]})
    old = os.umask(0o022)
    try:
        tiny_tagger(vocab).save(str(tmp_path / "m"))
    finally:
        os.umask(old)
    assert mode_of(tmp_path / "m") == 0o755
    assert mode_of(tmp_path / "m" / "config.json") == mode_of(tmp_path / "m" / "vocabulary" / "labels.txt") == 0o644


def test_links_are_written_through_and_pipes_streamed(tmp_path):
    (tmp_path / "target.txt").write_text("old\n")
    os.symlink(tmp_path / "target.txt", tmp_path / "link.txt")
    with atomic_write(str(tmp_path / "link.txt")) as out:
        out.write("new\n")
    assert os.path.islink(tmp_path / "link.txt") and (tmp_path / "target.txt").read_text() == "new\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    with atomic_write(str(fifo)) as out:
        out.write("through the pipe\n")
    reader.join(timeout=10)
    assert received == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def predict_command(model_dir, *args):
    return [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", str(model_dir), "--device", "cpu", *args]


def test_cli_failures_are_one_line(trained_tiny, tmp_path):
    missing = subprocess.run(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "nope.txt"),
                                             "--output_file", "-"), capture_output=True, text=True, env=ENV)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and "nope.txt" in missing.stderr
    assert "Traceback" not in missing.stderr
    (tmp_path / "good.txt").write_text("alpha beta\n")  # the model's first use (its graph built) says so first
    good = subprocess.run(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "good.txt"),
                                          "--output_file", "-"), capture_output=True, text=True, env=ENV)
    assert good.returncode == 0 and "error" not in good.stderr
    (tmp_path / "bad.txt").write_bytes(b"alpha beta\n\xff\xfe omega\n")
    bad = subprocess.run(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "bad.txt"),
                                         "--output_file", str(tmp_path / "bad.out")), capture_output=True, text=True, env=ENV)
    assert bad.returncode == 2 and bad.stderr.strip() == f"error: {tmp_path / 'bad.txt'}:2: not valid UTF-8 (invalid start byte at byte 0)"
    assert not (tmp_path / "bad.out").exists()
    (tmp_path / "many.txt").write_text("alpha beta omega time paris\n" * 2000)
    piped = subprocess.run(" ".join(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "many.txt"),
                                                    "--output_file", "-", "--chunk_words", "50")) + " | head -1",
                           shell=True, capture_output=True, text=True, env=ENV)
    assert len(piped.stdout.splitlines()) == 1 and "Traceback" not in piped.stderr and "Error" not in piped.stderr
    to_stdout = subprocess.run(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "many.txt"),
                                               "--output_file", "/dev/stdout"), capture_output=True, text=True, env=ENV)
    assert to_stdout.returncode == 0 and len(to_stdout.stdout.splitlines()) == 2000


def wait_for(condition, seconds: float = 120.0) -> None:
    deadline = time.time() + seconds
    while not condition():
        if time.time() > deadline:
            raise TimeoutError("the condition never came true")
        time.sleep(0.02)


def test_killed_predict_leaves_the_previous_output(trained_tiny, tmp_path):
    (tmp_path / "in.txt").write_text("alpha beta omega time paris london\n" * 3000)
    (tmp_path / "out.txt").write_text("previous\n")
    proc = subprocess.Popen(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / "in.txt"),
                                            "--output_file", str(tmp_path / "out.txt"), "--chunk_words", "30"),
                            env=ENV, stderr=subprocess.DEVNULL)
    temporary = lambda: [f for f in os.listdir(tmp_path) if f.startswith(".out.txt.")]  # noqa: E731
    wait_for(lambda: temporary() and os.path.getsize(tmp_path / temporary()[0]) > 0)  # mid-file
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (tmp_path / "out.txt").read_text() == "previous\n"


def test_two_predicts_in_one_folder_do_not_interfere(trained_tiny, tmp_path):
    texts = {"a": "alpha beta omega time\n" * 400, "b": "paris london water table\n" * 300}
    procs = []
    for name, text in texts.items():
        (tmp_path / f"{name}.txt").write_text(text)
        procs.append(subprocess.Popen(predict_command(trained_tiny["dir"], "--input_file", str(tmp_path / f"{name}.txt"),
                                                      "--output_file", str(tmp_path / f"{name}.out"), "--chunk_words", "40"),
                                      env=ENV, stderr=subprocess.DEVNULL))
    assert [p.wait() for p in procs] == [0, 0]
    for name, text in texts.items():
        out = (tmp_path / f"{name}.out").read_text().splitlines()
        assert len(out) == len(text.splitlines()) and len(set(out)) == 1  # each its own lines, all alike
    assert sorted(os.listdir(tmp_path)) == ["a.out", "a.txt", "b.out", "b.txt"]  # no temporary file left


def dev_records(model_dir) -> list[dict]:
    timing = {"seconds", "train_words_per_s", "train_samples_per_s"}
    with open(os.path.join(model_dir, "metrics.jsonl")) as f:
        return [{k: v for k, v in json.loads(line).items() if k not in timing} for line in f]


def test_train_killed_mid_epoch_resumes_to_the_same_result(learnable_data, encoder_name, tmp_path):
    config = {"transformer_model": encoder_name, "encoder_config": TINY_ENCODER, "n_epoch": 2, "lr": 3e-3,
              "batch_size": 8, "max_len": 64, "patience": 5, "seed": 3, "progress": 0}
    (tmp_path / "tiny.json").write_text(json.dumps(config))
    big = tmp_path / "train.tagged"  # a longer epoch, so that the kill lands inside one
    big.write_text(open(learnable_data["train"]).read() * 4)

    def command(model_dir):
        return [sys.executable, os.path.join(ROOT, "train.py"), "--config", str(tmp_path / "tiny.json"), "--train_set",
                str(big), "--dev_set", learnable_data["dev"], "--model_dir", str(model_dir), "--resume", "1"]

    subprocess.run(command(tmp_path / "whole"), env=ENV, check=True, capture_output=True)
    proc = subprocess.Popen(command(tmp_path / "killed"), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = tmp_path / "killed" / "metrics.jsonl"
    wait_for(lambda: log.exists() and log.read_text().count("\n") >= 1)
    time.sleep(0.5)  # into the second epoch
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(dev_records(tmp_path / "killed")) < 2
    subprocess.run(command(tmp_path / "killed"), env=ENV, check=True, capture_output=True)
    assert dev_records(tmp_path / "killed") == dev_records(tmp_path / "whole")
    assert not os.path.exists(tmp_path / "killed" / "last.old")


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="checks the message of a CPU-only torch")
def test_cuda_on_a_cpu_only_torch_is_one_line(trained_tiny, tmp_path):
    (tmp_path / "in.txt").write_text("alpha beta\n")
    command = [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", trained_tiny["dir"],
               "--device", "cuda", "--input_file", str(tmp_path / "in.txt"), "--output_file", "-"]
    run = subprocess.run(command + ["--engine", "torch"], capture_output=True, text=True, env=ENV)
    assert run.returncode == 2 and "no CUDA device" in run.stderr and "Traceback" not in run.stderr
    run = subprocess.run(command, capture_output=True, text=True, env=ENV)  # the onnx engine: the CPU only
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "--engine torch" in run.stderr
