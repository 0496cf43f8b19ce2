"""Streaming captions (final words never change, same words out as in, unbounded look-ahead equals the batch
output) and subtitle files (cues, timings, line breaks and markup kept; text restored across cues)."""
import math
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import torch

from conftest import ROOT, tiny_tagger
from gector_punct.prediction.decoding import no_edit_probabilities
from gector_punct.text.files import InputError
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.streaming import Captions, StreamingPunctuator, caption_text
from gector_punct.transcripts.subtitles import format_subtitles, read_subtitles, restore_subtitles
from gector_punct.text.tags import ACRONYM, CAPITAL, DELETE, KEEP, MARK_CONTEXTS, UPPER, Tag
from gector_punct.text.units import split_edges
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD, Vocabulary

PERIOD, COMMA, QUESTION = "$APPEND_.", "$APPEND_,", "$APPEND_?"
OPEN_QUOTE, CLOSE_QUOTE = Tag(prepend='"').punct, Tag(append='"').punct
ACRONYM_COMMA = Tag(append=",", acronym=True).punct

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


class Scripted(Punctuator):
    """A punctuator whose tagger follows a script: ``script(line, k)`` is the tag word ``k`` of a line (a
    window) takes, with probability 1; decoding, the writer and the stream run on it as on a model."""

    def __init__(self, model, script, tasks="disf,punc", fragments=True):
        super().__init__([model], device="cpu", tasks=tasks, fragments=fragments)
        self.script = script

    def probabilities_in_parts(self, word_lines, audio=None, windows=None, part_words=math.inf):
        """Every path's probabilities (``predict_in_parts``, ``probabilities``) come from here: the script's."""
        return self.scripted(word_lines)
        yield  # a generator, as the model's, that never pauses

    def scripted(self, word_lines):
        probs = no_edit_probabilities(self.names, sum(map(len, word_lines)), len(MARK_CONTEXTS))
        rows = [(line, k) for line in word_lines for k in range(len(line))]
        for row, (line, k) in enumerate(rows):
            tag = self.script(line, k)
            probs[PUNCT_HEAD.name][row] = 0.0
            probs[PUNCT_HEAD.name][row, self.names[PUNCT_HEAD.name].index(tag.punct)] = 1.0
            probs[CASE_HEAD.name][row] = 0.0
            probs[CASE_HEAD.name][row, :, self.names[CASE_HEAD.name].index(tag.case)] = 1.0
            probs[DETECT_HEAD.name][row] = torch.tensor([0.0, 1.0] if tag.is_edit else [1.0, 0.0])
        return probs


@pytest.fixture(scope="module")
def script_model():
    vocab = Vocabulary({"labels": [KEEP, DELETE, COMMA, PERIOD, QUESTION, OPEN_QUOTE, CLOSE_QUOTE, ACRONYM,
                                   ACRONYM_COMMA],
                        "case_tags": [KEEP, CAPITAL, UPPER], "d_tags": ["CORRECT", "INCORRECT"]})
    torch.manual_seed(0)
    return tiny_tagger(vocab, max_len=48)


# Each word's tag, whatever its window: deletions, Chinese marks, quotes, acronyms.
def _tag(punct: str, case: str = KEEP) -> Tag:
    return Tag.from_labels(punct, case)


BY_WORD = {"Uh": _tag(DELETE), "uh": _tag(DELETE), "went": _tag(PERIOD), "京": _tag(COMMA), "呢": _tag(QUESTION),
           "年": _tag(PERIOD), "usa": _tag(ACRONYM_COMMA, UPPER), "vitamin": _tag(OPEN_QUOTE),
           "d": _tag(CLOSE_QUOTE, CAPITAL), "good": _tag(PERIOD), "am": _tag(ACRONYM), "left": _tag(PERIOD)}


def by_word(line, k):
    return BY_WORD.get(split_edges(line[k])[1], Tag())


@pytest.mark.parametrize("text, batch", [
    ("Uh so we went", "So we went."),  # the deleted Uh hands its capital on
    ('she said "uh no way"', 'she said "no way"'),  # and its opening quote
    ("我们 去 北京 你呢", "我们去北京，你呢？"),  # full-width marks, no spaces between Chinese characters
    ("我们去北京你呢", "我们去北京，你呢？"),  # a Chinese word: one unit per character
    ("我在usa工作了三年", "我在U.S.A.，工作了三年。"),  # an acronym keeps its own period, the comma is wide
    ("我 在 usa 工 作 了 三 年", "我在 U.S.A.，工作了三年。"),  # no space after a wide mark
    ("he said vitamin d is good", 'he said "vitamin D" is good.'),  # quotes the tagger adds, paired
    ("we met at nine am uh and then left", "we met at nine a.m. and then left."),
    ("uh uh", "")])  # every word deleted: an empty line (the batch gave the line back unchanged)
def test_stream_and_subtitles_write_what_the_batch_writes(script_model, text, batch):
    """With unbounded look-ahead the stream's words are the batch output's, and so are a subtitle file's
    (``restore_words``): the same writer in the same context."""
    tagger = Scripted(script_model, by_word)
    streamer = StreamingPunctuator(tagger, lookahead=10**9)
    out, _ = feed(streamer, text, chunk=2)
    assert tagger.predict([text]) == [batch]
    assert caption_text(out) == batch
    assert caption_text([word for word in tagger.restore_words(text.split()) if word is not None]) == batch


@pytest.mark.parametrize("lookahead", [0, 2])
def test_captions_are_the_utterance_lines_predict_stream_writes(script_model, lookahead):
    """``Captions`` (predict.py --stream's loop and the service's): each update's text follows the line
    written so far, an utterance's texts joined are its line, and the next utterance starts afresh."""
    tagger = Scripted(script_model, by_word, fragments=False)
    captions, streamer = Captions(StreamingPunctuator(tagger, lookahead)), StreamingPunctuator(tagger, lookahead)
    for utterance in (["uh so", "we went", "to"], ["我们 去", "北京 你呢"]):
        texts = [captions.push(chunk.split()) for chunk in utterance]
        assert captions.open
        texts.append(captions.finish())
        finals = [w for chunk in utterance for w in streamer.push(chunk.split())] + streamer.end()
        assert "".join(texts) == caption_text(finals) and not captions.open
    assert "".join(texts) == "我们去北京，你呢？"  # no space carried over from the first utterance's line


@pytest.mark.parametrize("lookahead", [0, 1, 2, 3])
def test_a_stream_closes_only_the_quotes_it_opened(script_model, lookahead):
    """A word's quote pairs with the final words' quotes as they were written, not as a later window would
    tag them again: the stream never writes a closing quote without its opening one."""
    tagger = Scripted(script_model, by_word)
    out, _ = feed(StreamingPunctuator(tagger, lookahead=lookahead), "he said vitamin d is good", chunk=1)
    text = caption_text(out)
    assert text.count('"') in (0, 2) and text.replace('"', "") == "he said vitamin D is good."
    if lookahead:
        assert text == tagger.predict(["he said vitamin d is good"])[0]


def test_a_sentence_end_in_one_update_capitalises_the_next_words_first_word(script_model):
    """The newest word of a window ends a sentence; inside a later window the same word gets no mark (as a
    real model, seeing more, may decide): the final word keeps its period, the next word starts upper-case."""
    newest_ends = Scripted(script_model, lambda line, k: _tag(PERIOD) if k == len(line) - 1 else Tag())
    for context_words in (0, 50):
        streamer = StreamingPunctuator(newest_ends, lookahead=0, context_words=context_words)
        assert streamer.push(["so"]) == ["so."]
        assert streamer.push(["we", "went"]) == ["We", "went."]  # "we" re-tagged without a mark before it
        assert streamer.end() == []
        assert streamer.push(["then"]) == ["then."]  # a new utterance starts without context


def test_chinese_streamed_character_by_character(script_model):
    tagger = Scripted(script_model, by_word)
    out, _ = feed(StreamingPunctuator(tagger, lookahead=1), "我 们 去 北 京 你 呢", chunk=1)
    assert out == ["我", "们", "去", "北", "京，", "你", "呢？"] and caption_text(out) == "我们去北京，你呢？"
    assert caption_text(["iPhone", "手机"], "用") == " iPhone 手机" and caption_text([], "用") == ""


def test_stream_cli_writes_words_as_they_become_final(tmp_path):
    feed_text = "so i went\nto new york last\ntuesday did you\n\nyes i did\n"
    run = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", "-", "--output_file", "-",
                          "--stream", "--lookahead", "2"], input=feed_text, capture_output=True, text=True,
                         env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("So I went to New York") and lines[1].startswith("Yes")
    assert [split_edges(w)[1].lower() for w in " ".join(lines).split()] == feed_text.split()
    assert "5 lines in, 2 utterances out -> -" in run.stderr
    one = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", "-", "--output_file", "-",
                          "--stream"], input="ok\n", capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert "1 line in, 1 utterance out -> -" in one.stderr  # was "1 lines in, 1 utterances out"


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
        # markup kept; after "Did you?" the sentence starts past the ♪ (the capital guarantee skips symbols)
        assert "<i>and then we took the train</i>" in out.replace("<i>And", "<i>and") and "{\\an8}♪ La la la. ♪" in out
    else:
        assert "<v Anna>So I went" in out and "NOTE written by hand\nover two lines\n" in out


def test_restored_srt_through_the_cli(tmp_path):
    (tmp_path / "in.srt").write_text(SRT)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(tmp_path / "in.srt"),
                          "--output_file", str(tmp_path / "out.srt"), "--format", "srt"], capture_output=True, text=True,
                         env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 0 and "3 cues in, 3 cues out" in run.stderr
    out = (tmp_path / "out.srt").read_text()
    # the capital after "you?" holds past the ♪ (a symbol takes no capital and ends no sentence)
    assert out.startswith("1\n00:00:01,000 --> 00:00:03,500\nSo I went to New York\n") and "{\\an8}♪ La la la. ♪" in out


def test_chinese_cues_are_restored_per_character(script_model, tmp_path):
    (tmp_path / "zh.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\n<i>我们去北京你呢</i>\n", encoding="utf-8")
    restored = restore_subtitles(Scripted(script_model, by_word), read_subtitles(str(tmp_path / "zh.srt"), "srt"))
    assert format_subtitles(restored).endswith("\n<i>我们去北京，你呢？</i>\n")


def test_malformed_cue_names_the_line(tmp_path):
    (tmp_path / "bad.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:03 --> later\nthere\n")
    with pytest.raises(InputError, match=r"bad.srt:6: expected a srt timing line"):
        read_subtitles(str(tmp_path / "bad.srt"), "srt")
    (tmp_path / "bad.vtt").write_text("1\n00:01.000 --> 00:02.000\nhello\n")
    with pytest.raises(InputError, match=r"bad.vtt:1: a WebVTT file starts with 'WEBVTT'"):
        read_subtitles(str(tmp_path / "bad.vtt"), "vtt")


def test_a_stream_of_deleted_words_keeps_a_flat_state(script_model):
    """Pushing words that are all deleted grew the writer's context without end (98, 198 ... 798 words, a
    push's cost with it); it stays within the newest kept word, the model's context and C more."""
    streamer = StreamingPunctuator(Scripted(script_model, by_word), lookahead=2, context_words=6)
    assert caption_text(feed(streamer, "we went", chunk=2)[0]) == "we went."
    sizes, out = [], streamer.push(["we", "went"])
    for _ in range(2_000):  # 100,000 deleted words
        out += streamer.push(["uh"] * 50)
        sizes.append(len(streamer.written))
    assert caption_text(out) == "we went."
    assert max(sizes) <= 1 + 6 + 6 and sizes[-1] == sizes[100]
    assert len(streamer.context) == 6
    assert caption_text(streamer.push(["then", "we", "went"]) + streamer.end()) == "Then we went."


def test_a_subtitle_file_is_restored_as_predict_restores_its_words_as_one_line(shipped, tmp_path):
    """Its last sentence was left open (``... around ten`` where plain text ends it with a mark): the cues'
    words were read as a fragment."""
    path = tmp_path / "in.srt"
    path.write_text("1\n00:00:01,000 --> 00:00:03,500\nthe meeting ran over so i missed my train\n\n"
                    "2\n00:00:03,600 --> 00:00:06,000\ni will be home around eight instead of seven\n")
    out = format_subtitles(restore_subtitles(shipped, read_subtitles(str(path), "srt")))
    words = [t for line in out.splitlines() if line and not line[0].isdigit() for t in line.split()]
    source = " ".join(t for line in path.read_text().splitlines() if line and not line[0].isdigit() for t in line.split())
    assert " ".join(words) == shipped.predict([source])[0]
    assert words[-1][-1] in ".?!"


def test_a_subtitle_file_given_as_plain_text_is_refused_naming_the_format(tmp_path):
    """Read as plain text it came out as ``00:00:01,000, --> 00:00:03,500.`` with exit status 0."""
    (tmp_path / "in.srt").write_text(SRT)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--input_file", str(tmp_path / "in.srt"),
                          "--output_file", str(tmp_path / "out.txt")], capture_output=True, text=True,
                         env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.returncode == 2 and not (tmp_path / "out.txt").exists()
    assert run.stderr == f"error: {tmp_path / 'in.srt'}:2: a subtitle file's timing line (srt): give --format srt\n"


FUZZ_WORDS = list(BY_WORD) + ["so", "we", "then", "ok", "um", "new", "york"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(FUZZ_WORDS), min_size=1, max_size=30), chunk=st.integers(1, 7),
       tasks=st.sampled_from(["punc", "disf,punc"]), fragments=st.booleans())
def test_an_unbounded_stream_writes_the_batch_line_for_any_words_and_tasks(script_model, words, chunk, tasks,
                                                                          fragments):
    """The one writer: with unbounded look-ahead a stream's text is ``predict``'s line, whatever the words
    (deletions, quotes, acronyms, Chinese marks), the tasks and the reading; a line whose words all go
    is empty in both."""
    tagger = Scripted(script_model, by_word, tasks=tasks, fragments=fragments)
    text = " ".join(words)
    streamed, _ = feed(StreamingPunctuator(tagger, lookahead=10**9), text, chunk)
    assert caption_text(streamed) == tagger.predict([text])[0]


def test_a_json_file_given_as_subtitles_is_refused_with_a_short_excerpt(tmp_path):
    """The error quoted the whole first line: 700 KB for an hour of timed words."""
    path = tmp_path / "talk.json"
    path.write_text(json.dumps({"segments": [{"text": "word " * 20_000}]}) + "\n")
    with pytest.raises(InputError) as refused:
        read_subtitles(str(path), "srt")
    assert str(refused.value).startswith(f"{path}:1: expected a srt timing line") and len(str(refused.value)) < 300
    assert "... (100,028 characters)" in str(refused.value)  # the line stripped of its trailing space
