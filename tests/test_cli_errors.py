"""The scripts on everyday mistakes and interruptions: a bad flag value, an unknown --tasks or --existing,
a missing input, a missing output folder, a folder as the output or audio given to a text-only model stop
at once with one line starting ``error:`` that names the file, and exit status 2 (no usage block, no
traceback, no errno text) — predict.py, train.py, serve.py, utils/predict_ray.py, utils/preprocess_data.py;
a CRLF line comes back with CRLF; Ctrl-C exits quietly with status 130, --stream writing the words it
has, a batch run leaving no partial file."""
import argparse
import os
import re
import select
import signal
import subprocess
import sys
import time
import typing
from dataclasses import fields

import pytest

from conftest import ROOT
from gector_punct.options.flags import value_type
from gector_punct.text.files import atomic_write
import predict  # the script itself: conftest puts the repository root on sys.path

sys.path.insert(0, os.path.join(ROOT, "utils"))
import predict_ray  # noqa: E402
import preprocess_data  # noqa: E402
import serve  # noqa: E402
import train  # noqa: E402

BAD_VALUES = [("--lookahead", "-3"), ("--batch_size", "0"), ("--batch_size", "-1"), ("--max_len", "0"),
              ("--chunk_words", "0"), ("--iteration_count", "0"), ("--num_shards", "0"), ("--shard_id", "-1"),
              ("--special_tokens_fix", "2"), ("--min_error_probability", "1.5"), ("--deletion_threshold", "-0.1"),
              ("--question_opening", "-1"), ("--additional_confidence", "nan"), ("--case_confidence", "inf"),
              ("--batch_size", "many"), ("--tasks", "bogus"), ("--existing", "rewrite"), ("--format", "docx"),
              ("--overlap", "maybe")]
ANY_SIGN = {"additional_confidence", "case_confidence"}  # biases added to a probability: any finite number


def start_predict(*args: str) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "predict.py", *args], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(ready, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def read_some(pipe, timeout: float = 120) -> bytes:
    """The first bytes a child writes to ``pipe`` (blocks until there are some)."""
    readable, _, _ = select.select([pipe], [], [], timeout)
    assert readable, "the child wrote nothing"
    return os.read(pipe.fileno(), 65536)


def interrupted(child: subprocess.Popen, close_stdin: bool) -> tuple[int, str, str]:
    """Send Ctrl-C (SIGINT) and return (exit status, stdout, stderr); ``close_stdin``: the input ends at
    the same moment (Ctrl-C in a terminal stops a pipeline's writer too), else only once the child is gone."""
    child.send_signal(signal.SIGINT)
    if not close_stdin:
        child.wait(timeout=120)
    out, err = child.communicate(timeout=120)
    return child.returncode, out.decode(), err.decode()


def one_error_line(stderr: str) -> str:
    """The one line a refused run writes: ``error: ...``, no usage block, no traceback, no errno text."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Errno" not in lines[0] and "usage" not in lines[0]
    return lines[0]


def refused(parse, argv, capsys) -> str:
    """The error line of ``parse(argv)``, which must stop with exit status 2."""
    with pytest.raises(SystemExit) as stop:
        parse(argv)
    assert stop.value.code == 2
    return one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("flag,value", BAD_VALUES)
def test_a_bad_flag_value_is_one_error_line(flag, value, capsys):
    line = refused(predict.parse_args, ["--input_file", "-", "--output_file", "-", flag, value], capsys)
    assert line.startswith(f"error: argument {flag}: ") and value in line


def test_every_numeric_setting_is_bounded():
    """Each number a flag gives has its range in one place, its field (an ANY_SIGN bias: finite only)."""
    hints = typing.get_type_hints(predict.PredictCommand)
    numeric = [f for f in fields(predict.PredictCommand) if value_type(hints[f.name]) in (int, float)]
    assert {f.name for f in numeric} >= {"lookahead", "batch_size", "max_len", "chunk_words", "num_shards",
                                         "shard_id", "iteration_count", "min_error_probability",
                                         "deletion_threshold", "question_opening", "additional_confidence",
                                         "case_confidence"}
    for f in numeric:
        checks = [f.metadata[k] for k in ("min", "max", "above", "choices") if f.metadata[k] is not None]
        assert checks or f.name in ANY_SIGN, f"--{f.name} has no bounds"


def test_lookahead_below_zero_ends_without_a_traceback():
    child = start_predict("--input_file", "-", "--output_file", "-", "--stream", "--lookahead", "-3")
    _, err = child.communicate(b"so i went\n", timeout=120)
    assert child.returncode == 2
    assert one_error_line(err.decode()) == "error: argument --lookahead: must be at least 0, not -3"


def test_a_missing_output_folder_is_an_error_that_names_it(tmp_path, capsys):
    missing = tmp_path / "no_such_dir"
    line = refused(predict.parse_args, ["--input_file", "-", "--output_file", str(missing / "out.txt")], capsys)
    assert line == f"error: cannot write {missing / 'out.txt'}: the folder {missing} does not exist"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):  # the writer itself, too
        with atomic_write(str(missing / "out.txt"), create_parents=False) as out:
            out.write("never\n")
    assert not missing.exists()
    with atomic_write(str(missing / "made.txt")) as out:  # callers that own the folder still get it made
        out.write("made\n")
    assert (missing / "made.txt").read_text() == "made\n"


def test_a_missing_input_is_an_error_that_names_it(tmp_path, capsys):
    missing = tmp_path / "nope.txt"
    line = refused(predict.parse_args, ["--input_file", str(missing), "--output_file", "-"], capsys)
    assert line == f"error: cannot read {missing}: no such file or directory"
    line = refused(predict.parse_args, ["--input_file", str(tmp_path), "--output_file", "-"], capsys)
    assert line == f"error: cannot read {tmp_path}: it is a folder"


def test_a_folder_as_the_output_is_an_error_that_names_it(tmp_path, capsys):
    line = refused(predict.parse_args, ["--input_file", "-", "--output_file", str(tmp_path)], capsys)
    assert line == f"error: cannot write {tmp_path}: it is a folder"
    with pytest.raises(IsADirectoryError) as raised:  # the writer itself: the folder's name, no temporary one
        with atomic_write(str(tmp_path)) as out:
            out.write("never\n")
    assert str(raised.value) == f"cannot write {tmp_path}: it is a folder" and os.listdir(tmp_path) == []


def test_crlf_lines_come_back_with_crlf(tmp_path, random_editor):
    """Each output line ends as its input line did: CRLF stays CRLF, LF stays LF (a last line without an
    ending gets LF); with --split_sentences each sentence ends as its line did."""
    from gector_punct.text.sentences import split_sentences

    (tmp_path / "in.txt").write_bytes(b"so i went home\r\nand then i slept\n\r\nok\r\nthe end")
    args = predict.parse_args(["--input_file", str(tmp_path / "in.txt"), "--output_file", str(tmp_path / "out")])
    assert predict.restore(args, random_editor, None) == (5, 5)
    written = (tmp_path / "out").read_bytes().decode()
    assert [line.endswith("\r") for line in written.split("\n")[:-1]] == [True, False, True, True, False]
    restored, ends = random_editor.predict(["so i went home", "and then i slept", "", "ok", "the end"]), \
        ["\r\n", "\n", "\r\n", "\r\n", "\n"]
    assert written == "".join(line + end for line, end in zip(restored, ends))
    args.split_sentences = True
    predict.restore(args, random_editor, None)
    assert (tmp_path / "out").read_bytes().decode() == "".join(
        part + end for line, end in zip(restored, ends) for part in split_sentences(line) or [""])


SCRIPT_ERRORS = [  # (the script's parse, its flags, the error line it must give)
    (train.main, ["--train_set", "t", "--dev_set", "d", "--model_dir", "m", "--lr", "-1"],
     "error: argument --lr: must be at least 0.0, not -1.0"),
    (train.main, ["--train_set", "t", "--dev_set", "d", "--model_dir", "m", "--off_tasks", "some"],
     "error: argument --off_tasks: must be one of untaught, unchanged, not 'some'"),
    (train.main, ["--config", "/no/such/preset.json", "--model_dir", "m"],
     "error: --config /no/such/preset.json: no such file or directory"),
    (train.main, ["--dev_set", "d"], "error: missing --train_set, --model_dir"),
    (serve.parse_settings, ["--port", "-1"], "error: argument --port: must be at least 0, not -1"),
    (serve.parse_settings, ["--tasks", "disf,pun"],
     "error: argument --tasks: unknown task 'pun' in 'disf,pun' (tasks: disf, punc, or none)"),
    (serve.parse_settings, ["--max_body_mb", "0"], "error: argument --max_body_mb: must be more than 0, not 0.0"),
    (predict_ray.parse_args, ["--input_dir", ROOT, "--output_dir", "o", "--existing", "x"],
     "error: argument --existing: must be one of weigh, keep, strip, not 'x'"),
    (predict_ray.parse_args, ["--input_dir", "/no/such/folder", "--output_dir", "o"],
     "error: --input_dir /no/such/folder is not a folder"),
    (predict_ray.parse_args, ["--input_dir", ROOT, "--output_dir", "o", "--model_path", "no_such_model"],
     "error: --model_path: no folder no_such_model (the shipped models, by name: "),
    (preprocess_data.main, ["-s", "a", "-t", "b", "-o", "c", "--tasks", "punc,bogus"],
     "error: argument --tasks: unknown task 'bogus' in 'punc,bogus' (tasks: disf, punc, or none)"),
    (preprocess_data.main, ["-s", "/no/such.src", "-t", "b", "-o", "/tmp/out.tagged"],
     "error: cannot read /no/such.src: no such file or directory"),
    (preprocess_data.main, ["-s", "a", "-t", "b", "-o", ROOT], f"error: cannot write {ROOT}: it is a folder"),
    (predict.main, ["--in_file", "x"], "error: unknown flag --in_file (did you mean --input_file or --output_file?)"),
    (train.main, ["--lr_rate", "3"], "error: unknown flag --lr_rate (did you mean --lr?)"),
]


@pytest.mark.parametrize("parse,argv,message", SCRIPT_ERRORS,
                         ids=[f"{parse.__module__}:{argv[-1]}" for parse, argv, _ in SCRIPT_ERRORS])
def test_every_script_refuses_with_one_error_line(parse, argv, message, capsys):
    try:
        status = parse(argv)
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    assert one_error_line(capsys.readouterr().err).startswith(message)


def test_audio_for_a_text_only_model_is_an_error_naming_it(tmp_path, capsys):
    audio = os.path.join(ROOT, "examples", "audio")
    out = tmp_path / "out.txt"
    code = predict.main(["--input_file", os.path.join(audio, "talk.txt"), "--output_file", str(out),
                         "--audio_list", os.path.join(audio, "talk.list")])  # good audio, the text-only default model
    err = capsys.readouterr().err
    assert code == 2 and "ensemble_en has no acoustic part" in err and not out.exists()


@pytest.mark.parametrize("close_stdin", [False, True])
def test_ctrl_c_in_stream_mode_writes_the_pending_words_and_exits_130(close_stdin):
    words = "so i went to new york".split()
    child = start_predict("--input_file", "-", "--output_file", "-", "--stream", "--lookahead", "2")
    child.stdin.write((" ".join(words) + "\n").encode())
    child.stdin.flush()
    first = read_some(child.stdout)  # the first four words are final: the model is loaded, the line read
    time.sleep(0.5)  # the child now waits for the next line (Ctrl-C during an update: the test below)
    code, rest, err = interrupted(child, close_stdin)
    assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    written = first.decode() + rest
    assert written.endswith("\n") and re.sub(r"[^\w ]", "", written).lower().split() == words


class InterruptingPunctuator:
    """A punctuator that sends this process Ctrl-C (SIGINT) during its first update."""

    def __init__(self, punctuator):
        self.punctuator, self.updates = punctuator, 0

    def __getattr__(self, name):  # everything else is the wrapped punctuator's
        return getattr(self.punctuator, name)

    def predict_tags(self, lines, **options):
        self.updates += 1
        if self.updates == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return self.punctuator.predict_tags(lines, **options)


def test_ctrl_c_during_a_stream_update_writes_its_words_then_stops(tmp_path, random_editor):
    (tmp_path / "in.txt").write_text("one two three four five\nsix seven\n")
    args = argparse.Namespace(input_file=str(tmp_path / "in.txt"), output_file=str(tmp_path / "out.txt"), lookahead=2)
    punctuator = InterruptingPunctuator(random_editor)
    with pytest.raises(KeyboardInterrupt):
        predict.stream(args, punctuator)
    written = (tmp_path / "out.txt").read_text()  # complete: the first line's words, its last two flushed
    assert re.sub(r"[^\w ]", "", written).lower().split() == "one two three four five".split()
    assert written.endswith("\n") and punctuator.updates == 2  # the second line was never read
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_in_a_batch_run_leaves_the_old_output_file(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("the previous output\n")
    child = start_predict("--input_file", "-", "--output_file", str(out), "--chunk_words", "1")
    child.stdin.write(b"so i went to new york\n")
    child.stdin.flush()

    def restored_line_written() -> bool:  # the temporary output beside OUT has the first restored line
        return any(p.name.endswith(".tmp") and p.stat().st_size for p in tmp_path.iterdir())

    wait_for(restored_line_written, "the first restored line")
    code, _, err = interrupted(child, close_stdin=False)
    assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) <= 1, err
    assert out.read_text() == "the previous output\n" and os.listdir(tmp_path) == ["out.txt"]
    assert f"interrupted: {out} is left as it was" in err


def test_ctrl_c_of_a_batch_run_to_stdout_says_what_was_written():
    """It said "an output file is written only when the run completes" after 2,626 lines went to stdout."""
    child = start_predict("--input_file", "-", "--output_file", "-", "--chunk_words", "1")
    child.stdin.write(b"so i went to new york\n")
    child.stdin.flush()
    assert child.stdout.readline().startswith(b"So I went")
    code, _, err = interrupted(child, close_stdin=False)
    assert code == 130 and err.strip() == "interrupted: the lines restored so far are written", err


def test_a_value_is_checked_alike_from_a_flag_json_or_python():
    """One check per field: a flag's text, a --config JSON value and a Python value are refused alike."""
    from gector_punct.prediction.settings import PredictionSettings
    from gector_punct.training.options import TrainOptions

    with pytest.raises(ValueError, match=r"^batch_size: must be at least 1, not 0$"):
        PredictionSettings(batch_size=0)
    with pytest.raises(ValueError, match=r"^existing: must be one of weigh, keep, strip, not 'x'$"):
        PredictionSettings(existing="x")
    with pytest.raises(ValueError, match=r"^lr: must be a finite number, not 'fast'$"):
        TrainOptions(lr="fast")
    settings = PredictionSettings(tasks="disf,punc", model_path="switch_en", fragments=1)
    assert (settings.tasks, settings.model_path, settings.fragments) == (frozenset({"disf", "punc"}), ["switch_en"], True)


def test_serve_on_a_busy_port_is_one_error_line_before_the_model_loads(capsys, monkeypatch):
    """It logged "serving ... on :PORT", loaded the model, then failed with uvicorn's errno line and exit 1."""
    import socket

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(serve, "load_punctuator", no_model)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert serve.main(["--port", str(port)]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"error: cannot listen on 127.0.0.1:{port}: the address is in use or not this machine's (--port, --host)")


@pytest.mark.parametrize("script", ["utils/bench/benchmark.py", "utils/report/everyday_report.py",
                                    "utils/bench/compare_graphs.py --out_dir unused"])
def test_a_utils_script_given_a_wrong_model_says_so_in_one_line(script):
    """Scripts that load a model their own way printed a traceback (``gector_punct_data.script.run_script``:
    the shared tail)."""
    name, *rest = script.split()
    run = subprocess.run([sys.executable, os.path.join(ROOT, name), "--model_path", "defualt_en", *rest],
                         capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 2 and one_error_line(run.stderr).startswith("error: "), run.stderr
    assert "defualt_en" in run.stderr and "default_en" in run.stderr  # the shipped names, to choose from
