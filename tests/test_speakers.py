"""Speakers of a diarised transcript (issue 58): each turn is restored as an utterance of its own, kept in
JSON, one speaker a cue (or a dialogue cue), named in WebVTT voices, and a paragraph a turn in --format text."""
import json
import os
import re

import pytest

from test_cli import ROOT, run
from test_timed_words import written_as

from gector_punct import Punctuator
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.tags import make_source
from gector_punct.transcripts.restoring import restored_segments
from gector_punct.transcripts.timed_words import read_segments

TURNS = [("SPEAKER_00", "hi tom thanks for calling which day works for you"),
         ("SPEAKER_01", "which would you prefer"),
         ("SPEAKER_00", "wednesday at four"),
         ("SPEAKER_01", "works great and my plan doesn't cover it this year"),
         ("SPEAKER_00", "without insurance it costs more so we should talk about it"),
         ("SPEAKER_00", "after the holidays when the new rates are out"),
         ("SPEAKER_01", "thanks so much karen"),
         ("SPEAKER_00", "you're welcome tom")]


def diarised(turns=TURNS, pause_inside=None) -> dict:
    """A WhisperX result with speakers on segments and words (one word without its own, as WhisperX leaves a
    word it could not assign), 0.35 s a word, 0.4 s between turns; a 3 s pause before turn ``pause_inside``."""
    segments, t = [], 0.0
    for n, (speaker, text) in enumerate(turns):
        t += 3.0 if n == pause_inside else 0.4
        words = []
        for word in text.split():
            words.append({"word": word, "start": round(t, 3), "end": round(t + 0.3, 3), "score": 0.9,
                          **({"speaker": speaker} if speaker else {})})
            t += 0.35
        words[-1].pop("speaker", None) if n == 2 else None
        segments.append({"start": words[0]["start"], "end": words[-1]["end"], "text": " " + text, "words": words,
                         **({"speaker": speaker} if speaker else {})})
    return {"segments": segments, "language": "en"}


@pytest.fixture(scope="module")
def default_en():
    return Punctuator.load("default_en")


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "call.json"
    path.write_text(json.dumps(diarised()))
    return str(path)


def written(default_en, path):
    """(speaker, written word) of every word, in order."""
    return [(word.speaker, result.text) for segment, results in restored_segments(default_en, read_segments(path, "whisper"))
            for word, result in zip(segment.words, results) if result is not None]


def test_a_change_of_speaker_closes_the_sentence_and_no_window_reads_across_it(default_en, transcript):
    words = written(default_en, transcript)
    changes = [k for k in range(1, len(words)) if words[k][0] != words[k - 1][0]]
    assert len(changes) == 6
    assert all(ends_sentence_after(words[k - 1][1], words[k][1]) for k in changes), words
    assert all(words[k][1][0].isupper() for k in changes)
    # each turn reads as that turn alone would: nothing of the other speaker's words shapes it
    turns = [" ".join(text for _, text in words[a:b]) for a, b in zip([0] + changes, changes + [len(words)])]
    assert turns[1] == default_en.predict(["which would you prefer"])[0]


def test_a_turn_runs_on_across_its_segments(default_en, transcript):
    """Turns 5 and 6 are one speaker's two segments: one utterance, read as one line."""
    words = [text for _, text in written(default_en, transcript)]
    first = len(" ".join(text for _, text in TURNS[:4]).split())
    both = " ".join(text for _, text in TURNS[4:6])
    assert " ".join(words[first: first + len(both.split())]) == default_en.predict([both])[0]


def test_every_word_keeps_its_speaker_in_json(default_en, transcript):
    document = json.loads(written_as(default_en, transcript, "json")[0])
    original = diarised()
    for new, old in zip(document["segments"], original["segments"], strict=True):
        assert new["speaker"] == old["speaker"]
        assert [w.get("speaker") for w in new["words"]] == [w.get("speaker") for w in old["words"]]
        assert any(w["confidence"] < 1 for w in new["words"])  # each turn scored, the last one too


def test_cues_hold_one_speaker_or_are_dialogue_cues_and_vtt_names_the_voices(default_en, transcript):
    vtt = written_as(default_en, transcript, "vtt", names={"SPEAKER_00": "Karen", "SPEAKER_01": "Tom"})[0]
    for cue in vtt.split("\n\n")[1:-1]:
        lines = cue.splitlines()[1:]
        voices = [found.group(1) for line in lines for found in [re.match(r"<v ([^>]+)>", line)] if found]
        if len(set(voices)) > 1:  # a dialogue cue: one closed voice span a line
            assert len(lines) == 2 and all(re.fullmatch(r"<v [^>]+>-.*</v>", line) for line in lines), cue
        else:  # one voice: one span, opening the cue
            assert len(voices) == 1 and lines[0].startswith("<v ") and "</v>" not in cue, cue
    assert "<v Karen>" in vtt and "<v Tom>" in vtt and "SPEAKER_" not in vtt


def test_text_is_a_labelled_paragraph_per_turn(default_en, tmp_path):
    path = tmp_path / "call.json"
    turns = [("SPEAKER_00", "hi tom thanks for calling"), ("SPEAKER_00", "which day works for you")] + TURNS[1:]
    path.write_text(json.dumps(diarised(turns, pause_inside=1)))  # a long pause after "calling."
    written, (words_in, paragraphs) = written_as(default_en, str(path), "text", names={"SPEAKER_01": "Tom"},
                                                 timestamps=True)
    text = written.split("\n\n")
    assert paragraphs == len(text) == 8  # seven turns, and a long pause after a sentence end inside the first
    assert text[0].startswith("[00:00:00] SPEAKER_00: Hi") and text[0].endswith("calling.")
    assert text[1].startswith("[00:00:05] Which day") and text[2].startswith("[00:00:07] Tom: Which would")
    assert words_in == sum(len(t.split()) for _, t in TURNS)


def test_the_text_depends_on_neither_chunk_words_nor_the_segments(tmp_path):
    """One speaker's 700 words, cut into segments of 9 or 40 words: the same text, whatever --chunk_words."""
    words = " ".join(text for _, text in TURNS * 12).split()
    outs = []
    for size, extra in ((9, []), (40, ["--chunk_words", "7"])):
        path = tmp_path / f"long{size}.json"
        path.write_text(json.dumps(diarised([(None, " ".join(words[k:k + size])) for k in range(0, len(words), size)])))
        outs.append(run("predict.py", "--input_file", str(path), "--output_file", "-", "--format", "text",
                        *extra).stdout)
    assert outs[0] == outs[1] and len(outs[0].split()) == len(words)


def test_a_turn_shorter_than_a_step_reads_as_its_plain_line(default_en, tmp_path):
    """A turn of 300 words (more than the context and lookahead, less than a step) is one window: what
    predict gives its line, so timed input scores as plain lines do."""
    words = make_source(open(os.path.join(ROOT, "examples", "dev.tgt"), encoding="utf-8").read()).split()[97:397]
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(diarised([("SPEAKER_00", " ".join(words[:200])), ("SPEAKER_00", " ".join(words[200:])),
                                         ("SPEAKER_01", "okay")])))
    assert " ".join(text for _, text in written(default_en, str(path))[:-1]) == default_en.predict([" ".join(words)])[0]


@pytest.mark.parametrize("fmt", ["vtt", "text --timestamps"])
def test_the_examples_in_docs_subtitles_are_what_the_program_writes(fmt):
    command = f"--input_file examples/call.json --format {fmt} --output_file - --speaker_names SPEAKER_00=Karen,SPEAKER_01=Tom"
    with open(os.path.join(ROOT, "docs", "subtitles.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(k for k, line in enumerate(lines) if line.strip() == f"python predict.py {command}")
    block = []
    for line in lines[start + 2:]:  # an empty line, then the indented output (its empty lines kept)
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    assert "\n".join(block).strip("\n") == run("predict.py", *command.split()).stdout.strip("\n")
