"""predict.py on everyday mistakes and interruptions: a bad flag value, a missing output folder or audio
given to a text-only model stop at once with one error line and exit status 2 (no traceback); Ctrl-C
exits quietly with status 130, --stream writing the words it has, a batch run leaving no partial file."""
import argparse
import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from gector_punct.options.argtypes import (finite_float, nonnegative_float, nonnegative_int, positive_float, positive_int,
                                   probability)
from gector_punct.text.files import atomic_write
import predict  # the script itself: conftest puts the repository root on sys.path

BAD_VALUES = [("--lookahead", "-3"), ("--batch_size", "0"), ("--batch_size", "-1"), ("--max_len", "0"),
              ("--chunk_words", "0"), ("--iteration_count", "0"), ("--num_shards", "0"), ("--shard_id", "-1"),
              ("--special_tokens_fix", "2"), ("--min_error_probability", "1.5"), ("--deletion_threshold", "-0.1"),
              ("--question_opening", "-1"), ("--additional_confidence", "nan"), ("--case_confidence", "inf"),
              ("--batch_size", "many")]
CHECKED_TYPES = {positive_int, nonnegative_int, finite_float, nonnegative_float, probability}


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


@pytest.mark.parametrize("flag,value", BAD_VALUES)
def test_a_bad_numeric_flag_is_one_error_line(flag, value, capsys):
    with pytest.raises(SystemExit) as stop:
        predict.parse_args(["--input_file", "-", "--output_file", "-", flag, value])
    assert stop.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f": error: argument {flag}: " in last and value in last  # argparse's usage, then this line


def test_every_numeric_flag_has_a_checking_type():
    actions = predict.build_parser()._actions
    for action in actions:
        assert action.type not in (int, float) or action.choices, f"{action.option_strings}: bare {action.type}"
    numeric = {a.dest for a in actions if a.type in CHECKED_TYPES}
    assert numeric >= {"lookahead", "batch_size", "max_len", "chunk_words", "num_shards", "shard_id",
                       "iteration_count", "min_error_probability", "deletion_threshold", "question_opening",
                       "additional_confidence", "case_confidence"}


def test_lookahead_below_zero_ends_without_a_traceback():
    child = start_predict("--input_file", "-", "--output_file", "-", "--stream", "--lookahead", "-3")
    _, err = child.communicate(b"so i went\n", timeout=120)
    assert child.returncode == 2 and "Traceback" not in err.decode()
    last = err.decode().strip().splitlines()[-1]
    assert last == "predict.py: error: argument --lookahead: -3 is not allowed: it must be 0 or more"


def test_preprocess_tasks_flag_is_checked_by_the_parser():
    result = subprocess.run([sys.executable, "utils/preprocess_data.py", "-s", "a", "-t", "b", "-o", "c", "--tasks",
                             "punc,bogus"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("preprocess_data.py: error: argument --tasks: unknown task")


def test_a_missing_output_folder_is_an_error_that_names_it(tmp_path, capsys):
    missing = tmp_path / "no_such_dir"
    with pytest.raises(SystemExit) as stop:
        predict.parse_args(["--input_file", "-", "--output_file", str(missing / "out.txt")])
    assert stop.value.code == 2 and f"the folder {missing} does not exist" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):  # the writer itself, too
        with atomic_write(str(missing / "out.txt"), create_parents=False) as out:
            out.write("never\n")
    assert not missing.exists()
    with atomic_write(str(missing / "made.txt")) as out:  # callers that own the folder still get it made
        out.write("made\n")
    assert (missing / "made.txt").read_text() == "made\n"


def test_audio_for_a_text_only_model_is_an_error_naming_it(tmp_path, capsys):
    audio = os.path.join(ROOT, "examples", "audio")
    out = tmp_path / "out.txt"
    code = predict.main(["--input_file", os.path.join(audio, "talk.txt"), "--output_file", str(out),
                         "--audio_list", os.path.join(audio, "talk.list")])  # good audio, the text-only default model
    err = capsys.readouterr().err
    assert code == 2 and "default_en has no acoustic part" in err and not out.exists()


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


def test_argtypes_accept_good_values_and_reject_bad_ones():
    """The argtypes functions reject with ArgumentTypeError, the error argparse turns into one line."""
    for check, bad in ((positive_int, "0"), (nonnegative_int, "-1"), (probability, "2"), (finite_float, "inf"),
                       (nonnegative_float, "-0.5"), (positive_float, "0")):
        with pytest.raises(argparse.ArgumentTypeError):
            check(bad)
    assert (positive_int("3"), nonnegative_int("0"), probability("1"), finite_float("-2.5")) == (3, 0, 1.0, -2.5)
    assert positive_float("0.25") == 0.25
