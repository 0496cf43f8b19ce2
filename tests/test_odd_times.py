"""Times a recogniser really writes (issue 68): values that cannot be times are one ``error:`` line before any
output; words without a speaker inside a speaker's turn belong to that turn."""
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from gector_punct.text.files import InputError
from gector_punct.transcripts.timed_words import MAX_SECONDS, check_transcript, read_segments


def document(value: str) -> str:
    """A WhisperX JSON whose second word's start is ``value`` as written in the file."""
    words = [{"word": w, "start": k * 0.4, "end": k * 0.4 + 0.3} for k, w in enumerate("so we went home".split())]
    return json.dumps({"segments": [{"start": 0.0, "end": 2.0, "words": words}]}).replace('"start": 0.4', f'"start": {value}')


@pytest.mark.parametrize("value, says", [
    ("1e306", "start is 1e+306, not a time in seconds (at most 360,000: 100 hours)"),
    ("1" + "0" * 400, "start is an integer of 401 digits, not a time in seconds (at most 360,000: 100 hours)"),
    ("-1e306", "start is -1e+306, not a time in seconds (at most 360,000: 100 hours)"),
    (str(MAX_SECONDS + 1), "start is an integer of 6 digits, not a time in seconds (at most 360,000: 100 hours)"),
])
def test_a_value_that_cannot_be_a_time_is_named(tmp_path, value, says):
    path = tmp_path / "t.json"
    path.write_text(document(value), encoding="utf-8")
    with pytest.raises(InputError) as err:
        check_transcript(str(path), "whisper")
    assert str(err.value) == f"{path}: segment 1, word 2: {says}"


def test_the_longest_time_is_read(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(document(str(MAX_SECONDS)), encoding="utf-8")
    check_transcript(str(path), "whisper")
    assert [w.start for s in read_segments(str(path), "whisper") for w in s.words][1] == MAX_SECONDS


@pytest.mark.parametrize("fmt", ["srt", "vtt", "json", "text"])
def test_the_command_says_so_in_one_line_before_any_output(tmp_path, fmt):
    """Was a traceback: OverflowError in the reader (an integer of 400 digits), round(inf) in the cue builder."""
    path, out = tmp_path / "t.json", tmp_path / f"out.{fmt}"
    path.write_text(document("1e306"), encoding="utf-8")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(path),
                           "--output_file", str(out), "--format", fmt], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.splitlines() == [f"error: {path}: segment 1, word 2: start is 1e+306, not a time in seconds "
                                        "(at most 360,000: 100 hours)"]
