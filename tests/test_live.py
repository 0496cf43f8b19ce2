"""Streaming captions (final words never change, same words out as in, unbounded look-ahead equals the batch
output) and subtitle files (cues, timings, line breaks and markup kept; text restored across cues)."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from gector_punct.io import InputError
from gector_punct.predictor import Punctuator
from gector_punct.streaming import StreamingPunctuator
from gector_punct.subtitles import format_subtitles, read_subtitles, restore_subtitles
from gector_punct.tags import Tag, split_edges

PERIOD = "$APPEND_."

UTTERANCES = ["so i went to new york last tuesday did you go there too",
              "yes i did it was great we saw the statue of liberty and ate pizza in brooklyn",
              "ok"]


@pytest.fixture(scope="module")
def shipped():
    return Punctuator.load(os.path.join(ROOT, "models", "default_en"), device="cpu")


def feed(streamer: StreamingPunctuator, text: str, chunk: int) -> tuple[list[str], list[list[str]]]:
    words, emitted = text.split(), []
    for i in range(0, len(words), chunk):
        emitted.append(streamer.push(words[i: i + chunk]))
    emitted.append(streamer.end())
    return [w for part in emitted for w in part], emitted


@pytest.mark.parametrize("lookahead", [0, 3, 8])
def test_streamed_words_are_final_and_complete(shipped, lookahead):
    streamer = StreamingPunctuator(shipped, lookahead=lookahead, context_words=6)
    for text in UTTERANCES:
        out, emitted = feed(streamer, text, chunk=2)
        assert [split_edges(w)[1].lower() for w in out] == text.split()  # every word once, in order
        words = text.split()
        for k, part in enumerate(emitted[:-1]):  # after each push, all but the last K words are out
            arrived = min(len(words), 2 * (k + 1))
            assert sum(map(len, emitted[: k + 1])) == max(0, arrived - lookahead)
        assert not streamer.context  # an utterance's end starts the next one afresh


def test_unbounded_lookahead_is_the_batch_output(shipped):
    streamer = StreamingPunctuator(shipped, lookahead=10**9)
    for text in UTTERANCES:
        out, _ = feed(streamer, text, chunk=3)
        assert " ".join(out) == shipped.predict([text])[0]


class _ChangingMind:
    """A stand-in punctuator whose mark on a word depends on the window: the newest word of a window ends a
    sentence; inside a later window the same word gets no mark (as a real model, seeing more, may decide)."""

    def predict_tags(self, lines):
        (words,) = lines
        return [[Tag.parse(PERIOD) if k == len(words) - 1 else Tag() for k in range(len(words))]]


def test_a_sentence_end_in_one_update_capitalises_the_next_words_first_word():
    streamer = StreamingPunctuator(_ChangingMind(), lookahead=0)
    assert streamer.push(["so"]) == ["so."]
    assert streamer.push(["we", "went"]) == ["We", "went."]  # "we" re-tagged without a mark before it
    assert streamer.end() == []
    assert streamer.push(["then"]) == ["then."]  # a new utterance starts without context


def test_stream_cli_writes_words_as_they_become_final(tmp_path):
    feed_text = "so i went\nto new york last\ntuesday did you\n\nyes i did\n"
    run = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", "-", "--output_file", "-",
                          "--stream", "--lookahead", "2"], input=feed_text, capture_output=True, text=True,
                         env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("So I went to New York") and lines[1].startswith("Yes")
    assert [split_edges(w)[1].lower() for w in " ".join(lines).split()] == feed_text.split()


SRT = """1
00:00:01,000 --> 00:00:03,500
so i went to new york
last tuesday

2
00:00:03,600 --> 00:00:06,000
<i>and then we took the train</i>
to boston did you

3
00:00:06,100 --> 00:00:08,000
{\\an8}♪ la la la ♪
"""

VTT = """WEBVTT - a talk

NOTE written by hand
over two lines

intro
00:01.000 --> 00:04.000 align:start
<v Anna>so i went to new york last

00:04.500 --> 00:06.000
tuesday did you
"""


@pytest.mark.parametrize("fmt, text", [("srt", SRT), ("vtt", VTT)])
def test_subtitles_keep_cues_and_restore_across_them(shipped, tmp_path, fmt, text):
    path = tmp_path / f"in.{fmt}"
    path.write_text(text)
    before = read_subtitles(str(path), fmt)
    after = restore_subtitles(shipped, before)
    out = format_subtitles(after)
    (tmp_path / f"out.{fmt}").write_text(out)
    again = read_subtitles(str(tmp_path / f"out.{fmt}"), fmt)  # still a valid file of the format
    assert [b.head for b in again.blocks] == [b.head for b in before.blocks]  # indices, timings, NOTE blocks
    for a, b in zip(before.blocks, again.blocks):
        assert len(a.lines) == len(b.lines)  # line breaks kept
        for x, y in zip(a.lines, b.lines):
            assert [split_edges(t)[1].lower() for t in x] == [split_edges(t)[1].lower() for t in y]
    assert "New York" in out and "Tuesday" in out  # a sentence restored across two cues
    if fmt == "srt":
        assert "<i>and then we took the train</i>" in out.replace("<i>And", "<i>and") and "{\\an8}♪ la la la ♪" in out
    else:
        assert "<v Anna>So I went" in out and "NOTE written by hand\nover two lines\n" in out


def test_restored_srt_through_the_cli(tmp_path):
    (tmp_path / "in.srt").write_text(SRT)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(tmp_path / "in.srt"),
                          "--output_file", str(tmp_path / "out.srt"), "--format", "srt"], capture_output=True, text=True,
                         env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 0 and "3 cues in, 3 cues out" in run.stderr
    out = (tmp_path / "out.srt").read_text()
    assert out.startswith("1\n00:00:01,000 --> 00:00:03,500\nSo I went to New York\n") and "{\\an8}♪ la la la ♪" in out


def test_malformed_cue_names_the_line(tmp_path):
    (tmp_path / "bad.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:03 --> later\nthere\n")
    with pytest.raises(InputError, match=r"bad.srt:6: expected a srt timing line"):
        read_subtitles(str(tmp_path / "bad.srt"), "srt")
    (tmp_path / "bad.vtt").write_text("1\n00:01.000 --> 00:02.000\nhello\n")
    with pytest.raises(InputError, match=r"bad.vtt:1: a WebVTT file starts with 'WEBVTT'"):
        read_subtitles(str(tmp_path / "bad.vtt"), "vtt")
