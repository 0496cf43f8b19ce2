"""The command-line tools, end to end: make_source -> preprocess -> train -> predict -> evaluate."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, TINY_ENCODER

SCRIPTS = ["train.py", "predict.py", "serve.py", "utils/bench/load_test.py", "utils/preprocess_data.py",
           "utils/make_source.py", "utils/evaluate.py", "utils/data/tsv_to_text.py", "utils/data/prepare_default_data.py",
           "utils/report/ngram_overlap.py", "utils/predict_ray.py", "utils/bench/benchmark_ray.py", "utils/bench/capacity.py",
           "utils/bench/batch_dependence.py", "utils/report/fit_confidence.py", "utils/report/mark_rates.py",
           "utils/bench/benchmark_review.py", "utils/report/french_spacing.py",
           "utils/report/word_labels.py", "utils/report/timed_transcripts.py"]


def run(*args, stdin=None, check=True):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, input=stdin, cwd=ROOT, env=env)
    if check and result.returncode:
        raise AssertionError(f"{args} failed:\n{result.stderr[-3000:]}")
    return result


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_documents_every_flag(script):
    out = run(script, "--help").stdout
    assert "usage" in out
    lines = out.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("--") and stripped != "--help":
            # argparse puts the help text on the same line or indented on the next one
            same = len(stripped.split("  ")) > 1
            nxt = i + 1 < len(lines) and lines[i + 1].startswith(" " * 10) and not lines[i + 1].strip().startswith("-")
            assert same or nxt, f"{script}: {stripped} has no help text"


def test_walkthrough(tmp_path, encoder_name):
    ex = os.path.join(ROOT, "examples")
    for name in ("train", "dev"):
        run("utils/make_source.py", f"{ex}/{name}.tgt", str(tmp_path / f"{name}.src"))
        run("utils/preprocess_data.py", "-s", str(tmp_path / f"{name}.src"), "-t", f"{ex}/{name}.tgt",
            "-o", str(tmp_path / f"{name}.tagged"))
    config = tmp_path / "cfg.json"
    config.write_text(json.dumps({"transformer_model": encoder_name, "encoder_config": TINY_ENCODER, "n_epoch": 2,
                                  "lr": 2e-3, "batch_size": 32, "max_len": 96, "progress": 0}))
    out = run("train.py", "--config", str(config), "--train_set", str(tmp_path / "train.tagged"),
              "--dev_set", str(tmp_path / "dev.tagged"), "--model_dir", str(tmp_path / "model"), "--n_epoch", "1")
    assert "best_dev" in out.stdout
    assert len((tmp_path / "model" / "metrics.jsonl").read_text().splitlines()) == 1  # --n_epoch beat the config
    run("predict.py", "--model_path", str(tmp_path / "model"), "--input_file", str(tmp_path / "dev.src"),
        "--output_file", str(tmp_path / "dev.pred"))
    assert len((tmp_path / "dev.pred").read_text().splitlines()) == 60
    report = json.loads(run("utils/evaluate.py", "--reference", f"{ex}/dev.tgt", "--prediction",
                            str(tmp_path / "dev.pred"), "--json").stdout)
    assert set(report) >= {"punct", "case", "boundary", "words"} and report["words"] > 500

    shards = []
    for shard in range(3):
        run("predict.py", "--model_path", str(tmp_path / "model"), "--input_file", str(tmp_path / "dev.src"),
            "--output_file", str(tmp_path / f"shard{shard}"), "--num_shards", "3", "--shard_id", str(shard))
        shards.append((tmp_path / f"shard{shard}").read_text())
    assert "".join(shards) == (tmp_path / "dev.pred").read_text()

    piped = run("predict.py", "--model_path", str(tmp_path / "model"), "--input_file", "-", "--output_file", "-",
                "--split_sentences", stdin="hello there how are you\n\nfine thanks\n").stdout
    assert len(piped.splitlines()) >= 3


def test_predict_errors_are_clear(tmp_path):
    missing = run("predict.py", "--model_path", str(tmp_path / "nope"), "--input_file", "-", "--output_file", "-",
                  stdin="x\n", check=False)
    assert missing.returncode == 2 and "cannot load model" in missing.stderr
    bad = run("utils/evaluate.py", "--reference", os.path.join(ROOT, "examples", "dev.tgt"), "--prediction",
              os.path.join(ROOT, "examples", "test.tgt"), check=False)
    assert bad.returncode == 2 and "lines" in bad.stderr


def test_evaluate_tsv_reference(tmp_path):
    (tmp_path / "ref.tsv").write_text("so\tO\ni\tO\nwent\tCOMMA\nhome\tPERIOD\n\tCOMMA\nok\tQUESTION\n")
    (tmp_path / "pred.txt").write_text("So I went home. Ok?\n")
    report = json.loads(run("utils/evaluate.py", "--reference", str(tmp_path / "ref.tsv"), "--prediction",
                            str(tmp_path / "pred.txt"), "--json").stdout)
    assert report["punct"]["COMMA"]["recall"] == 0 and report["punct"]["PERIOD"]["f1"] == 100
    assert report["punct"]["QUESTION"]["f1"] == 100 and "case" not in report


def test_evaluate_folds_a_tsv_references_labels_as_it_folds_marks(tmp_path):
    """A ``token<TAB>LABEL`` reference is scored through the marks its labels stand for: ``!`` and ``;`` are
    PERIOD, ``:`` COMMA (the IWSLT convention) on both sides, and a sentence ends where the mark ends one."""
    from gector_punct.scoring.iwslt import IWSLT_MAP, LABEL_MARKS, label_class
    assert {mark: IWSLT_MAP[mark] for mark in "!;:—，、？！"} == {
        "!": "PERIOD", ";": "PERIOD", ":": "COMMA", "—": "COMMA", "，": "COMMA", "、": "COMMA", "？": "QUESTION",
        "！": "PERIOD"}
    assert all(label_class(label) == IWSLT_MAP.get(mark, "O") for label, mark in LABEL_MARKS.items())
    (tmp_path / "ref.tsv").write_text("stop\tEXCLAMATION\nwait\tSEMICOLON\nthen\tCOLON\ngo\tPERIOD\nok\tO\n")
    (tmp_path / "pred.txt").write_text("Stop! Wait; then: go. ok\n")
    args = ("utils/evaluate.py", "--reference", str(tmp_path / "ref.tsv"), "--prediction", str(tmp_path / "pred.txt"),
            "--json")
    report = json.loads(run(*args).stdout)
    assert report["punct"]["PERIOD"]["f1"] == report["punct"]["COMMA"]["f1"] == 100
    assert report["boundary"]["BOUNDARY"]["f1"] == 100 and report["boundary"]["BOUNDARY"]["support"] == 2
    own = json.loads(run(*args, "--map", "!=EXCLAMATION", "--classes", "PERIOD", "EXCLAMATION").stdout)
    assert own["punct"]["EXCLAMATION"]["f1"] == own["punct"]["PERIOD"]["f1"] == 100


def test_word_labels_explains_every_word():
    """utils/report/word_labels.py: per word, the tag decided and each head's likeliest labels."""
    out = run("utils/report/word_labels.py", "--input_file", "-", "--top", "2", "--threads", "1",
              stdin="my email is john dot smith at gmail dot com\n").stdout.splitlines()
    assert out[0] == "# my email is john dot smith at gmail dot com" and len(out) == 11
    assert out[1].startswith("my ") and "punct: $" in out[1] and "| case: $" in out[1]


def test_the_installed_command_is_predict_py_and_writes_to_stdout(tmp_path):
    """``gector-punct`` (pyproject's console script, installed with the package) takes predict.py's flags and
    writes the same; without --output_file both write to stdout."""
    import shutil

    command = shutil.which("gector-punct")
    assert command is not None, "pip install -e . installs the gector-punct command"
    source = tmp_path / "in.txt"
    source.write_text("so i went to new york last tuesday did you\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    args = ["--input_file", str(source), "--model_path", "default_en"]
    installed = subprocess.run([command, *args], cwd=tmp_path, env=env, capture_output=True, text=True)
    script = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert installed.returncode == script.returncode == 0, installed.stderr
    assert installed.stdout == script.stdout == "So I went to New York last Tuesday. Did you?\n"
    assert "usage: gector-punct" in subprocess.run([command, "--help"], capture_output=True, text=True).stdout


def test_a_long_file_shows_a_progress_bar_on_a_terminal_only(tmp_path):
    """stderr a terminal and an input of PROGRESS_BYTES or more: a tqdm bar; stderr a file: none."""
    import fcntl
    import pty
    import struct
    import termios

    from gector_punct.cli.predict import PROGRESS_BYTES

    source = tmp_path / "long.txt"
    line = "so i went to new york last tuesday and we saw a show did you\n"
    source.write_text(line * (PROGRESS_BYTES // len(line) + 1))
    args = [sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(source), "--model_path",
            "default_en", "--output_file", str(tmp_path / "out.txt")]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    done = subprocess.run(args, env=env, stderr=follower, stdout=subprocess.DEVNULL)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0 and b"restoring" in shown and b"%|" in shown
    plain = subprocess.run(args, env=env, capture_output=True, text=True)
    assert plain.returncode == 0 and "restoring" not in plain.stderr


def test_no_model_named_runs_the_best_for_files_and_the_fast_one_live(monkeypatch, capsys):
    """ensemble_en for files and the API, default_en for live words (--stream, the service), switch_en for
    disf; without ensemble_en's second encoder, default_en, said in one line on stderr."""
    from gector_punct.prediction import shipped
    from gector_punct.service.settings import ServiceSettings
    from gector_punct.text.tasks import parse_tasks

    punc, disf = parse_tasks("punc"), parse_tasks("disf,punc")
    assert shipped.shipped_model(punc) == shipped.BEST_MODEL and shipped.BEST_MODEL.endswith("ensemble_en")
    assert shipped.shipped_model(punc, live=True) == shipped.FAST_MODEL and shipped.FAST_MODEL.endswith("default_en")
    assert shipped.shipped_model(disf) == shipped.shipped_model(disf, live=True) == shipped.SWITCHING_MODEL
    assert ServiceSettings().prediction().model_path == [shipped.FAST_MODEL]
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(shipped, "mpnet_installed", lambda: False)
    assert shipped.shipped_model(punc) == shipped.FAST_MODEL
    (said,) = capsys.readouterr().err.splitlines()
    assert "restoring with default_en" in said and "requirements-accurate.txt" in said


@pytest.mark.parametrize("stream", [False, True])
def test_predict_py_asks_for_the_live_model_only_with_stream(stream, monkeypatch, tmp_path):
    from gector_punct.cli import predict as command
    from gector_punct.prediction.loading import ModelLoadError

    asked = []

    def load(settings, live=False, **options):
        asked.append(live)
        raise ModelLoadError("stop here")

    monkeypatch.setattr(command, "load_punctuator", load)
    (tmp_path / "in.txt").write_text("so i went\n")
    assert command.main(["--input_file", str(tmp_path / "in.txt")] + (["--stream"] if stream else [])) == 2
    assert asked == [stream]
