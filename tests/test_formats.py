"""The formats as objects (issue 68): each format's facts in its class, cues from timed words and subtitle files
given as input written through the same class; WebVTT's text escaped and its voices closed as its
specification asks; a file given as input keeps its own markup and entities."""
import pytest

from gector_punct.transcripts.cues import Cue
from gector_punct.transcripts.formats import FORMATS, SUBTITLE_FORMATS, SubRip, WebVTT
from gector_punct.transcripts.subtitles import format_subtitles, read_subtitles, restore_subtitles

TRICKY = Cue(3723.5, 3725.25, ("AT&T said x<y", "and a-->b > c."), ("A", "A"))
DIALOGUE = Cue(1.0, 2.5, ("-Hi, Tom.", "-Hello, Karen."), ("A", "B"))


def test_webvtt_escapes_text_built_from_words():
    assert FORMATS["vtt"].cue(7, TRICKY) == ("01:02:03.500 --> 01:02:05.250\n"
                                             "<v A>AT&amp;T said x&lt;y\nand a--&gt;b &gt; c.\n\n")


def test_a_webvtt_cue_of_two_voices_closes_each_span_and_one_voice_opens_the_cue():
    names = {"A": "Karen", "B": "Tom <the host> & co"}
    assert FORMATS["vtt"].cue(1, DIALOGUE, names).strip().splitlines()[1:] == [
        "<v Karen>-Hi, Tom.</v>", "<v Tom &lt;the host&gt; &amp; co>-Hello, Karen.</v>"]
    one = FORMATS["vtt"].cue(1, Cue(1.0, 2.0, ("So we went", "home."), ("A", "A")), names)
    assert one.strip().splitlines()[1:] == ["<v Karen>So we went", "home."]  # one span, the whole cue: no end tag
    unnamed = FORMATS["vtt"].cue(1, Cue(1.0, 2.0, ("-Yes.", "-No."), ("A", None)))
    assert unnamed.strip().splitlines()[1:] == ["<v A>-Yes.</v>", "-No."]
    assert FORMATS["vtt"].cue(1, Cue(1.0, 2.0, ("Hi.",), (None,))).strip().splitlines()[1:] == ["Hi."]


def test_subrip_writes_its_text_as_it_is_with_its_number_and_comma():
    assert FORMATS["srt"].cue(7, TRICKY) == "7\n01:02:03,500 --> 01:02:05,250\nAT&T said x<y\nand a-->b > c.\n\n"
    assert FORMATS["srt"].cue(1, DIALOGUE, {"A": "Karen"}) == "1\n00:00:01,000 --> 00:00:02,500\n-Hi, Tom.\n-Hello, Karen.\n\n"


def test_each_format_has_its_own_time_form_and_header():
    assert SubRip().timestamp(0.0016) == "00:00:00,002" and WebVTT().timestamp(-1) == "00:00:00.000"
    assert FORMATS["text"].timestamp(3723.9996) == "[01:02:04]"
    assert FORMATS["vtt"].header == "WEBVTT\n\n" and FORMATS["srt"].header == ""
    assert set(SUBTITLE_FORMATS) == {"srt", "vtt"} and set(FORMATS) == {"srt", "vtt", "json", "text", "jsonl"}


GIVEN_VTT = ("WEBVTT - a talk\n\nNOTE kept\n\nintro\n00:00:01.000 --> 00:00:03.000 align:start\n"
             "<v Karen>AT&amp;T <i>said</i> x&lt;y\n\n00:00:04.000 --> 00:00:05.000\n&gt; so it goes\n")
GIVEN_SRT = "1\n00:00:01,000 --> 00:00:03,000\n{\\an8}AT&amp;T <i>said</i> x&lt;y\n"


@pytest.mark.parametrize("fmt, text", [("vtt", GIVEN_VTT), ("srt", GIVEN_SRT)])
def test_a_subtitle_file_given_keeps_its_markup_and_entities(tmp_path, fmt, text):
    path = tmp_path / f"given.{fmt}"
    path.write_text(text, encoding="utf-8")
    assert format_subtitles(read_subtitles(str(path), fmt)) == text  # through the format's class: no escape again
    assert SUBTITLE_FORMATS[fmt].write(SUBTITLE_FORMATS[fmt].read(str(path))) == text


def test_a_restored_subtitle_file_writes_its_entities_once(tmp_path):
    class Upper:  # restores each word as itself, capitalised: what the writer does is all that is seen
        numbers = "words"

        @staticmethod
        def restore_words(words):
            return [word[:1].upper() + word[1:] for word in words]

    path = tmp_path / "given.vtt"
    path.write_text(GIVEN_VTT, encoding="utf-8")
    written = format_subtitles(restore_subtitles(Upper(), read_subtitles(str(path), "vtt")))
    assert "<v Karen>AT&amp;T <i>Said</i> X&lt;y" in written and "&gt; So It Goes" in written
    assert "&amp;amp;" not in written and "&amp;lt;" not in written


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_every_cue_written_is_laid_out_by_its_format_class(tmp_path, monkeypatch, fmt, random_editor):
    """Cues built from timed words (predict.py's path and the Python API's) and a subtitle file given as input
    are written through the same method of the same class."""
    from gector_punct.transcripts.formats import SubtitleFormat
    from gector_punct.transcripts.restored_transcript import restore_transcript

    laid_out = SubtitleFormat.block
    monkeypatch.setattr(SubtitleFormat, "block", lambda self, head, lines: f"<{self.name}>" + laid_out(self, head, lines))
    path = tmp_path / f"given.{fmt}"
    path.write_text(GIVEN_VTT if fmt == "vtt" else GIVEN_SRT, encoding="utf-8")
    given = format_subtitles(read_subtitles(str(path), fmt))
    words = [{"word": w, "start": k * 0.4, "end": k * 0.4 + 0.3} for k, w in enumerate("so we went home".split())]
    built = getattr(restore_transcript(random_editor, {"segments": [{"words": words}]}), f"to_{fmt}")()
    for text in (given, built):
        blocks = [block for block in text.strip().split("\n\n") if block != "WEBVTT"]
        assert blocks and all(block.startswith(f"<{fmt}>") for block in blocks), text
