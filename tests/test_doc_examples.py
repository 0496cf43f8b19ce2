"""The example outputs the README and the model cards quote are what the program writes now: each is the
first indented block after the command that makes it, compared word for word (the block is wrapped); and the
README's Python lines run, each giving what its comment says."""
import os

import pytest

from conftest import ROOT
from gector_punct.encoders.pip_mpnet import installed
from gector_punct.prediction.punctuator import Punctuator

# (document, the model its example runs, the input file): the command `predict.py --input_file INPUT
# --output_file - [--model_path MODEL]` stands just before the block.
EXAMPLES = [("README.md", "ensemble_en", "examples/talk.txt"),
            ("models/accurate_en/README.md", "accurate_en", "examples/talk.txt"),
            ("models/ensemble_en/README.md", "ensemble_en", "examples/talk.txt")]


def quoted_output(document: str, command: str) -> str:
    """The words of the first indented block after the line holding ``command``, outside code fences."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, line in enumerate(lines) if command in line)
    block, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif i > start and not fenced and line.startswith("    ") and line.strip():
            block.append(line.strip())
        elif block:
            break
    return " ".join(block)


@pytest.mark.parametrize("document, model, input_file", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_a_quoted_example_is_what_the_model_writes(document, model, input_file):
    if model in ("accurate_en", "ensemble_en") and not installed():
        pytest.skip("pip install --no-deps -r requirements-accurate.txt")
    with open(os.path.join(ROOT, input_file), encoding="utf-8") as f:
        lines = f.read().splitlines()
    written = " ".join(Punctuator.load(model).predict(lines)).split()
    assert quoted_output(document, f"--input_file {input_file}").split() == written


def python_lines(document: str) -> list[str]:
    """The lines of the first ```python block of ``document``."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as f:
        text = f.read()
    return text.split("```python\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_readmes_python_lines_run_and_give_what_they_say(monkeypatch):
    """Each line of the README's Python block run in order, from the checkout's root; a line whose comment is a
    Python value gives that value; the transcript's SRT is what the subtitle writer writes for its words."""
    import ast
    import functools

    if not installed():
        pytest.skip("pip install --no-deps -r requirements-accurate.txt")
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(Punctuator, "load", functools.lru_cache(Punctuator.load))  # each model loaded once here
    scope, values = {}, {}
    for line in python_lines("README.md"):
        code, _, comment = line.partition("  # ")
        try:
            values[code.strip()] = eval(compile(code, "README.md", "eval"), scope)
        except SyntaxError:
            exec(compile(code, "README.md", "exec"), scope)
            continue
        said = comment.strip().split("  ")[0]
        if said.startswith(("[", "'", '"')):
            assert values[code.strip()] == ast.literal_eval(said), line
    srt = values["call.to_srt()"]
    assert srt.startswith("1\n00:00:00,000 --> ") and srt.endswith("\n\n")
    shown = [line.removeprefix("-") for cue in srt.strip().split("\n\n") for line in cue.splitlines()[2:]]
    assert " ".join(shown).split() == [text for _, text in scope["call"].words()]  # every written word, in order


def test_the_transcript_api_in_docs_subtitles_writes_the_webvtt_it_quotes(monkeypatch):
    """docs/subtitles.md's Python lines run, and ``to_vtt`` gives the WebVTT its Speakers section quotes (which
    tests/test_speakers.py holds to be what predict.py writes)."""
    if not installed():
        pytest.skip("pip install --no-deps -r requirements-accurate.txt")
    monkeypatch.chdir(ROOT)
    scope, vtt = {}, None
    for line in python_lines(os.path.join("docs", "subtitles.md")):
        code = line.partition("  # ")[0]
        if code.startswith("transcript.to_vtt("):
            vtt = eval(code, scope)
        else:
            exec(code, scope)
    with open(os.path.join(ROOT, "docs", "subtitles.md"), encoding="utf-8") as f:
        lines = f.read().split("## Speakers\n", 1)[1].splitlines()
    quoted = []
    for line in lines[3:]:  # the command, an empty line, then the indented output (its empty lines kept)
        if line and not line.startswith("    "):
            break
        quoted.append(line[4:])
    assert vtt.strip("\n") == "\n".join(quoted).strip("\n") and vtt.startswith("WEBVTT\n\n00:00:00.400")
