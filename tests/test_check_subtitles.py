"""The subtitle checker (gector_punct/transcripts/checker.py, utils/check_subtitles.py): each rule caught on a
small file at its limit and passed just inside it, a clean file passing, the cue builder's cues passing, and
the script's exit codes (0 clean, 1 violations, 2 one ``error:`` line for a file it cannot read)."""
import json

import pytest

from test_cli import run, test_help_documents_every_flag as help_documents_every_flag
from gector_punct.text.files import InputError
from gector_punct.transcripts.checked_cues import CheckedCue, read_cues, speech_of, timing_ms
from gector_punct.transcripts.checker import RULES, Violation, rule_counts, summary, violations
from gector_punct.transcripts.cues import CueBuilder
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.formats import FORMATS

SCRIPT = "utils/check_subtitles.py"


def clock(seconds: float, mark: str = ",") -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}{mark}{ms % 1000:03d}"


def srt(*cues) -> str:
    """SubRip text of cues given as (start, end, line, ...), seconds."""
    return "".join(f"{n}\n{clock(start)} --> {clock(end)}\n" + "".join(line + "\n" for line in lines) + "\n"
                   for n, (start, end, *lines) in enumerate(cues, 1))


def check(tmp_path, text: str, name: str = "t.srt", **style):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return [(v.cue_number, v.rule, v.message) for v in violations(read_cues(str(path)), SubtitleStyle(**style))]


CLEAN = srt((1.0, 3.0, "Hello there, how are you doing today?"),
            (4.0, 6.5, "I am fine, thank you.", "And you?"))
CLEAN_VTT = ("\ufeffWEBVTT - a talk\n\nNOTE written by hand\n\nSTYLE\n::cue { color: yellow }\n\n"
             "intro\n00:01.000 --> 00:03.000 align:start\n<v Karen><i>Hello there</i>, &amp; welcome.\n\n"
             "00:04.000 --> 00:06.500\n<v.loud Karen>-Where are you going?\n<v Tom>-Home.\n")

EACH_RULE = {
    "line-width": (srt((1.0, 4.0, "This line is much longer than forty-two characters.")),
                   [(1, "line-width", "line 1 has 51 characters (at most 42)")]),
    "lines": (srt((1.0, 5.0, "One line.", "Two lines.", "Three lines.")),
              [(1, "lines", "3 lines (at most 2)")]),
    "reading-speed": (srt((1.0, 2.0, "Far too many words for a second.")),
                      [(1, "reading-speed", "32.0 characters a second (at most 20): 32 characters need 1.600 s, "
                                            "shown 1.000 s")]),
    "too-short": (srt((1.0, 1.5, "Hi.")), [(1, "too-short", "shown 0.500 s (at least 0.834 s)")]),
    "too-long": (srt((1.0, 9.0, "Take your time.")), [(1, "too-long", "shown 8.000 s (at most 7.000 s)")]),
    "gap": (srt((1.0, 3.0, "Hello there."), (3.05, 5.0, "Hello again.")),
            [(2, "gap", "50 ms after cue 1 (at least 84 ms: 2 frames at 24 fps)")]),
    "open-gap": (srt((1.0, 3.0, "Hello there."), (3.2, 5.0, "Hello again.")),
                 [(2, "open-gap", "200 ms after cue 1: a gap of at most 12 frames (500 ms) is closed to 2 (84 ms)")]),
    "overlap": (srt((1.0, 3.0, "Hello there."), (2.5, 5.0, "Hello again.")),
                [(2, "overlap", "starts 500 ms before cue 1 ends")]),
    "line-end": (srt((1.0, 3.0, "I went to the", "market today.")),
                 [(1, "line-end", "line 1 ends with 'the' (article)")]),
    "one-word": (srt((1.0, 3.0, "Did you see it?"), (3.6, 4.5, "Yes."), (6.0, 8.0, "So did I.")),
                 [(2, "one-word", "a cue of one word ('Yes.') with 600 ms before it (a word stands alone between "
                                  "silences of 1.500 s or more)")]),
    "dialogue": (srt((1.0, 3.0, "-Where are you going?", "Home.")),
                 [(1, "dialogue", "line 2 of a dialogue cue does not open with '-'")]),
    "empty": (srt((1.0, 3.0, "Hello there."), (4.0, 6.0, "<i></i>")), [(2, "empty", "no text")]),
    "numbering": (srt((1.0, 3.0, "Hello there."), (4.0, 6.0, "Hello again."), (7.0, 9.0, "And again.")).replace(
        "\n3\n", "\n2\n"), [(3, "numbering", "cue number 2 after 2 (SubRip numbers its cues 1, 2, 3 ...: 3)")]),
    "timestamp": (srt((1.0, 3.0, "Hello there."), (4.0, 6.0, "Hello again.")).replace("04,000", "04.000"),
                  [(2, "timestamp", "time '00:00:04.000' is not written as 00:00:01,000 (a comma before three "
                                    "digits)")]),
    "tags": (srt((1.0, 3.0, "<i>Hello there.")), [(1, "tags", "<i> is not closed")]),
    "name-split": (srt((1.0, 3.0, "We met with Karen", "Smith at the station.")),
                   [(1, "name-split", "a name split between lines 1 and 2 ('Karen' / 'Smith')")]),
    "number-split": (srt((1.0, 3.0, "It cost one hundred"), (3.6, 5.0, "fifty dollars.")),
                     [(1, "number-split", "a number split between cue 1 and the next ('hundred' / 'fifty')")]),
    "sync": (srt((1.0, 3.0, "Hello there.")), []),  # without the words' times: test_sync_against_the_words
}


def test_a_clean_file_passes(tmp_path):
    assert check(tmp_path, CLEAN) == []
    assert check(tmp_path, CLEAN_VTT, "t.vtt") == []


def test_every_rule_has_a_case():
    assert sorted(EACH_RULE) == sorted(RULES)


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_is_caught_alone(tmp_path, rule):
    text, expected = EACH_RULE[rule]
    assert check(tmp_path, text) == expected
    path = tmp_path / "t.srt"
    others = [other for other in RULES if other != rule]
    assert violations(read_cues(str(path)), SubtitleStyle(), rules=others) == []  # only this rule fails it


def test_the_vtt_cues_are_read_as_shown(tmp_path):
    (tmp_path / "t.vtt").write_text(CLEAN_VTT, encoding="utf-8")
    cues = read_cues(str(tmp_path / "t.vtt"))
    shown = [(c.number, c.start, c.end, c.lines, c.speakers) for c in cues]
    assert shown == [(1, 1.0, 3.0, ("Hello there, & welcome.",), ("Karen",)),
                     (2, 4.0, 6.5, ("-Where are you going?", "-Home."), ("Karen", "Tom"))]
    assert cues[0].fmt == "vtt" and cues[0].head == ("intro", "00:01.000 --> 00:03.000 align:start")
    assert cues[0].tokens == (("<v Karen><i>Hello", "there</i>,", "&amp;", "welcome."),)
    assert (cues[0].start_ms, cues[0].end_ms) == (1000, 3000)


def test_a_voice_lasts_until_it_is_closed(tmp_path):
    (tmp_path / "t.vtt").write_text("WEBVTT\n\n00:01.000 --> 00:05.000\n<v Karen>It's <b>me</b>,\nreally.</v>\n"
                                    "You?\n<v   Tom >Yes.\n", encoding="utf-8")
    [cue] = read_cues(str(tmp_path / "t.vtt"))
    assert cue.lines == ("It's me,", "really.", "You?", "Yes.") and cue.speakers == ("Karen", "Karen", None, "Tom")


def test_markup_is_not_measured(tmp_path):
    wide = "<i>" + "a" * 20 + "</i> {\\an8}<b>" + "b" * 21 + "</b>"  # 42 characters shown
    assert check(tmp_path, srt((1.0, 4.0, wide))) == []
    assert check(tmp_path, srt((1.0, 4.0, wide + "c"))) == [(1, "line-width", "line 1 has 43 characters (at most 42)")]


def test_one_long_word_is_no_wide_line(tmp_path):
    word = "Pneumonoultramicroscopicsilicovolcanoconiosis."
    assert check(tmp_path, srt((1.0, 4.0, word))) == []
    assert check(tmp_path, srt((1.0, 4.0, "- " + word), (6.0, 9.0, "Oh, " + word))) == [
        (2, "line-width", "line 1 has 50 characters (at most 42)")]  # a dash is no word: no line to break


def test_times_at_each_limit_pass_and_a_millisecond_past_fails(tmp_path):
    assert check(tmp_path, srt((1.0, 1.834, "Hi there."), (1.918, 8.918, "Hello again."))) == []
    assert [rule for _, rule, _ in check(tmp_path, srt((1.0, 1.833, "Hi there."), (1.916, 8.917, "Hello again."),
                                                       (9.375, 12.0, "Bye now.")))] == ["too-short", "too-long", "gap",
                                                                                      "open-gap"]
    assert check(tmp_path, srt((1.0, 3.0, "Hi there."), (3.501, 5.0, "Hello again."))) == []


def test_reading_speed_at_its_limit_passes(tmp_path):
    twenty = "Twenty characters ok"
    assert check(tmp_path, srt((1.0, 2.0, twenty))) == []
    assert check(tmp_path, srt((1.0, 1.999, twenty))) == [
        (1, "reading-speed", "20.0 characters a second (at most 20): 20 characters need 1.000 s, shown 0.999 s")]
    assert check(tmp_path, srt((1.0, 2.0, twenty)), max_cps=19.9)[0][1] == "reading-speed"
    assert check(tmp_path, srt((1.0, 1.001, "Hi there."))) == [
        (1, "reading-speed", "9000.0 characters a second (at most 20): 9 characters need 0.450 s, shown 0.001 s"),
        (1, "too-short", "shown 0.001 s (at least 0.834 s)")]


def test_the_limits_come_from_the_style(tmp_path):
    text = srt((1.0, 3.0, "Hello there, friend."), (3.1, 5.0, "I am here.", "Where?"))
    assert check(tmp_path, text) == [(2, "open-gap", "100 ms after cue 1: a gap of at most 12 frames (500 ms) is "
                                                     "closed to 2 (84 ms)")]
    assert check(tmp_path, text, fps=25, close_frames=2) == []
    assert check(tmp_path, text, gap_frames=3, fps=25) == [
        (2, "gap", "100 ms after cue 1 (at least 120 ms: 3 frames at 25 fps)")]
    assert [rule for _, rule, _ in check(tmp_path, text, line_chars=15, max_lines=1)] == [
        "line-width", "lines", "open-gap"]
    assert [rule for _, rule, _ in check(tmp_path, text, min_duration=1.95)] == ["too-short", "open-gap"]
    assert [rule for _, rule, _ in check(tmp_path, text, max_duration=1.95)] == ["too-long", "open-gap"]
    assert check(tmp_path, text, max_cps=7.4)[0] == (1, "reading-speed", "10.0 characters a second (at most 7.4): "
                                                                         "20 characters need 2.703 s, shown 2.000 s")


def test_a_cue_that_ends_where_it_starts_or_before(tmp_path):
    assert check(tmp_path, srt((1.0, 3.0, "Hello there."), (3.0, 3.0, "Gone."))) == [
        (2, "too-short", "shown 0.000 s (at least 0.834 s)"), (2, "gap", "0 ms after cue 1 (at least 84 ms: 2 frames "
                                                                         "at 24 fps)"),
        (2, "one-word", "a cue of one word ('Gone.') with 0 ms before it (a word stands alone between silences of "
                        "1.500 s or more)")]
    assert check(tmp_path, srt((1.0, 3.0, "Hello there."), (5.0, 4.0, "Back in time."))) == [
        (2, "overlap", "ends 1000 ms before it starts")]


def test_a_word_stands_alone_between_silences(tmp_path):
    def one_word(before: float, after: float):
        return check(tmp_path, srt((1.0, 3.0, "Did you see it?"), (3.0 + before, 4.0 + before, "Yes."),
                                   (4.0 + before + after, 6.0 + before + after, "So did I.")))
    assert one_word(1.5, 1.5) == []
    assert [rule for _, rule, _ in one_word(1.499, 1.5)] == ["one-word"]
    assert one_word(1.5, 1.499) == [(2, "one-word", "a cue of one word ('Yes.') with 1499 ms after it (a word stands "
                                                    "alone between silences of 1.500 s or more)")]
    assert [message for _, _, message in one_word(0.6, 0.6)] == [
        "a cue of one word ('Yes.') with 600 ms before it and 600 ms after it (a word stands alone between silences "
        "of 1.500 s or more)"]
    assert check(tmp_path, srt((1.0, 2.0, "Yes."))) == []  # the file's start and end are silence
    assert check(tmp_path, srt((1.0, 2.0, "- Yes!"), (2.6, 4.0, "Two words."))) == [
        (1, "one-word", "a cue of one word ('Yes!') with 600 ms after it (a word stands alone between silences of "
                        "1.500 s or more)")]
    assert check(tmp_path, srt((1.0, 2.0, "Yes."), (2.6, 4.0, "...")), pause=1.0) == []  # marks are no word


def test_line_ends_name_their_fault_in_english_only(tmp_path):
    text = srt((1.0, 4.0, "He said that he and", "I will call my"), (5.0, 7.0, "Tell the"))
    assert check(tmp_path, text) == [(1, "line-end", "line 1 ends with 'and' (conjunction)"),
                                     (1, "line-end", "line 2 ends with 'my' (possessive)"),
                                     (2, "line-end", "line 1 ends with 'the' (article)")]
    path = str(tmp_path / "t.srt")
    assert violations(read_cues(path), SubtitleStyle(), language="fr") == []
    assert check(tmp_path, srt((1.0, 3.0, "He said that he and,", "I will."))) == []


@pytest.mark.parametrize("text, expected", [
    ("WEBVTT\n\n00:01.000 --> 00:03.000\n<v Karen>Where are you going?\n<v Tom>Home.\n",
     "2 voices (Karen, Tom) in one cue: one line a voice, each opening with '-'"),
    ("WEBVTT\n\n00:01.000 --> 00:03.000\n<v Karen>-Where?\n<v Tom>-Home,\n<v Tom>-now.\n",
     "2 voices (Karen, Tom) in one cue: one line a voice, each opening with '-'"),
    ("WEBVTT\n\n00:01.000 --> 00:03.000\n-Where?\n-Home.\n-Now.\n",
     "a dialogue cue of 3 lines (at most 2, a speaker each)"),
    ("WEBVTT\n\n00:01.000 --> 00:03.000\nWhere?\n-Home.\n", "line 1 of a dialogue cue does not open with '-'"),
])
def test_dialogue_cues(tmp_path, text, expected):
    found = check(tmp_path, text, "t.vtt", max_lines=3)
    assert found == [(1, "dialogue", expected)]


def test_a_dialogue_cue_of_one_voice_a_line_passes(tmp_path):
    text = "WEBVTT\n\n00:01.000 --> 00:03.000\n<v Karen>-Where?\n<v Tom>-Home.\n"
    assert check(tmp_path, text, "t.vtt") == []
    assert check(tmp_path, "WEBVTT\n\n00:01.000 --> 00:03.000\n<v Karen>Where are you?\n<v Karen>Home.\n",
                 "t.vtt") == []


def test_timing_lines():
    assert timing_ms("00:01:02,500 --> 01:00:00.000") == (62_500, 3_600_000)
    assert timing_ms("01:02.5 --> 01:03.25 align:start") == (62_500, 63_250)
    assert timing_ms("0:00:01,000-->0:00:02,000") == (1000, 2000)
    assert timing_ms("00:60:00,000 --> 00:00:02,000") is None
    assert timing_ms("00:00:01,000 --> 00:00:60,000") is None
    assert timing_ms("00:59:59,999 --> 00:00:02,000") == (3_599_999, 2000)
    assert timing_ms("00:00:01,0000 --> 00:00:02,000") is None
    assert timing_ms("Hello --> there") is None


def test_rules_subset_and_counts(tmp_path):
    (tmp_path / "t.srt").write_text(srt((1.0, 1.5, "Hi."), (1.55, 2.0, "Yo."), (2.05, 20.0, "I went to the")))
    cues = read_cues(str(tmp_path / "t.srt"))
    found = violations(cues)
    assert rule_counts(found) == {"too-short": 2, "too-long": 1, "gap": 2, "line-end": 1, "one-word": 2}
    assert list(rule_counts(found)) == ["too-short", "too-long", "gap", "line-end", "one-word"]
    assert [v.rule for v in violations(cues, rules=("gap", "too-long"))] == ["gap", "too-long", "gap"]
    assert rule_counts([]) == {}
    with pytest.raises(ValueError) as refused:
        violations(cues, rules=("gaps", "overlaps", "gap"))
    assert str(refused.value) == f"unknown rules gaps, overlaps (the rules: {', '.join(RULES)})"
    assert ", ".join(RULES).startswith("line-width, lines, reading-speed")


def test_the_summary_line():
    found = [Violation(1, "gap", ""), Violation(2, "line-end", ""), Violation(3, "gap", "")]
    assert summary(12_345, found) == "12,345 cues, 3 violations (gap: 2, line-end: 1)"
    assert summary(2, [], files=2) == "2 cues in 2 files, 0 violations"
    assert summary(1, found[:1], files=1) == "1 cues, 1 violations (gap: 1)"


@pytest.mark.parametrize("text, message", [
    ("# notes\nnothing here\n", "t.srt:1: not a SubRip or WebVTT file"),
    ("\n\n", "t.srt:1: no subtitles (an empty file)"),
    ("1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03,000 --> 00:00:04,000\nB\n\n3\n00:00:03,000 --> "
     "00:00:04,000\nC\n\n4\n00:00:03,000 --> 00:00:04,000\nD\n\n3\n00:00:05,000 --> 00:00:75,000\nE\n",
     "t.srt:18: a bad timing line '00:00:05,000 --> 00:00:75,000' (a minute or a second past 59)"),
    ("WEBVTT\n\nNOTE\n00:00.000 --> 00:01.000 is a timing line\n\n00:01.000 --> 00:02.000\nA\n\n"
     "00:61.000 --> 00:62.000  \nB\n", "t.srt:9: a bad timing line '00:61.000 --> 00:62.000'"),
    ("1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:01 --> 00:00:02\nB\n", "t.srt:6: expected a srt timing line"),
])
def test_a_file_it_cannot_read_names_file_and_line(tmp_path, text, message):
    (tmp_path / "t.srt").write_text(text)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_cues(str(tmp_path / "t.srt"))


def builder_words():
    """Ordinary speech: 2.5 words a second, two speakers, pauses short and long, a word said alone."""
    turns = [("A", "So I went to the market on Tuesday, and the place was packed. Everyone wanted fresh bread "
                   "before the holiday weekend.", 0.8),
             ("B", "Really?", 0.3), ("A", "Yes.", 2.5),
             ("B", "I waited in line for almost forty minutes, which is not my idea of a good morning at all.", 2.6),
             ("A", "Right.", 2.6),
             ("B", "Did you get the sourdough in the end? I did, and it was worth every minute of the wait.", 0.4),
             ("A", "Next time we should go together, early, before the crowds arrive.", 0.2),
             ("B", "Okay. Sounds good to me, but only if you bring the coffee and the pastries.", 0.0)]
    t = 0.4
    for speaker, text, pause in turns:
        for word in text.split():
            yield t, t + 0.3, word, speaker
            t += 0.4
        t += pause


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_the_cue_builders_cues_pass(tmp_path, fmt):
    builder, cues = CueBuilder(SubtitleStyle()), []
    for start, end, word, speaker in builder_words():
        cues += builder.add(start, end, word, speaker)
    cues += builder.finish()
    text = FORMATS[fmt].header + "".join(FORMATS[fmt].cue(n, cue) for n, cue in enumerate(cues, 1))
    path = tmp_path / f"built.{fmt}"
    path.write_text(text, encoding="utf-8")
    checked = read_cues(str(path))
    assert len(checked) == len(cues) > 6 and any(len(cue.lines) == 1 and cue.lines[0] == "Right." for cue in checked)
    assert violations(checked, SubtitleStyle()) == []


def test_the_script_exits_0_on_a_clean_file(tmp_path):
    (tmp_path / "a.srt").write_text(CLEAN)
    (tmp_path / "b.vtt").write_text(CLEAN_VTT, encoding="utf-8")
    result = run(SCRIPT, str(tmp_path / "a.srt"), str(tmp_path / "b.vtt"))
    assert result.stdout == "" and result.stderr == "4 cues in 2 files, 0 violations\n"


def test_the_script_lists_each_violation_and_exits_1(tmp_path):
    path = tmp_path / "a.srt"
    path.write_text(srt((1.0, 2.0, "Far too many words for a second."), (2.05, 4.0, "I went to the", "market.")))
    result = run(SCRIPT, str(path), check=False)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:1: reading-speed: 32.0 characters a second (at most 20): 32 characters need 1.600 s, shown 1.000 s",
        f"{path}:2: gap: 50 ms after cue 1 (at least 84 ms: 2 frames at 24 fps)",
        f"{path}:2: line-end: line 1 ends with 'the' (article)"]
    assert result.stderr == "2 cues, 3 violations (reading-speed: 1, gap: 1, line-end: 1)\n"
    loose = ("--max_cps", "35", "--gap_frames", "1", "--close_frames", "1", "--language", "de")
    assert run(SCRIPT, str(path), *loose).returncode == 0
    only = run(SCRIPT, str(path), "--rules", "gap", "line-end", check=False)
    assert only.returncode == 1 and [line.split(": ")[1] for line in only.stdout.splitlines()] == ["gap", "line-end"]


@pytest.mark.parametrize("content, expected", [
    (None, "error: cannot read {path}: no such file or directory"),
    ("just some text\n", "error: {path}:1: not a SubRip or WebVTT file"),
    ("1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03,000 --> 00:61:04,000\nB\n",
     "error: {path}:6: a bad timing line"),
])
def test_the_script_exits_2_with_one_error_line(tmp_path, content, expected):
    path = tmp_path / "a.srt"
    if content is not None:
        path.write_text(content)
    (tmp_path / "ok.srt").write_text(CLEAN)
    result = run(SCRIPT, str(tmp_path / "ok.srt"), str(path), check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(expected.format(path=path))


def test_the_script_refuses_a_bad_flag_in_one_line(tmp_path):
    result = run(SCRIPT, "x.srt", "--rules", "gaps", check=False)
    assert result.returncode == 2 and result.stderr.startswith("error: argument --rules: must be one of line-width")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("script", [SCRIPT, "utils/bench/subtitle_library.py"])
def test_the_scripts_help_documents_every_flag(script):
    help_documents_every_flag(script)


def test_form_rules_read_the_cue_as_written(tmp_path):
    assert check(tmp_path, srt((1.0, 3.0, "<b>Hello</b> <i>there</i>."), (4.0, 6.0, "</i>Again <font color=red>so"))) \
        == [(2, "tags", "</i> closes no <i>"), (2, "tags", "<font> is not closed")]
    assert check(tmp_path, "WEBVTT\n\n00:01.000 --> 00:03.000\n<v Karen>Hello there.\n") == []  # a voice may stay open
    assert check(tmp_path, srt((1.0, 3.0, "Hello there.")).replace("1\n", "one\n", 1)) == [
        (1, "numbering", "cue number 'one' is no number")]
    assert check(tmp_path, srt((1.0, 3.0, "Hello there."), (4.0, 6.0, "Again here.")).replace("2\n", "7\n", 1)) == [
        (2, "numbering", "cue number 7 after 1 (SubRip numbers its cues 1, 2, 3 ...: 2)")]
    with pytest.raises(InputError, match="expected a vtt timing line"):  # WebVTT's reader is strict itself
        check(tmp_path, "WEBVTT\n\n00:00:01,000 --> 00:00:03.000\nHello there.\n", "t.vtt")
    assert check(tmp_path, srt((1.0, 3.0, "Hello.")).replace(",000 -->", ",0 -->"))[0][1] == "timestamp"


def test_split_names_and_numbers_need_no_mark_between(tmp_path):
    assert check(tmp_path, srt((1.0, 3.0, "We met with Karen,", "Smith was there."))) == []
    assert check(tmp_path, srt((1.0, 3.0, "It cost twenty,"), (3.6, 5.0, "five said the others."))) == []
    assert [message for _, _, message in check(tmp_path, srt((1.0, 3.0, "It cost one hundred and"),
                                                             (3.6, 5.0, "fifty dollars.")))] == [
        "line 1 ends with 'and' (conjunction)", "a number split between cue 1 and the next ('hundred and' / 'fifty')"]
    assert [rule for _, rule, _ in check(tmp_path, srt((1.0, 3.0, "It cost twenty", "five dollars.")))] == [
        "number-split"]
    assert check(tmp_path, srt((1.0, 3.0, "He had 25", "apples."))) == []  # a number before its noun: no split


def test_sync_against_the_words(tmp_path):
    path = tmp_path / "t.srt"
    path.write_text(srt((1.0, 3.0, "Hello there."), (3.084, 4.0, "So,", "again."), (6.5, 8.0, "Bye now.")))
    words = [("hello", 1.2, 1.5), ("there", 1.6, 2.0), ("so", 3.2, 3.4), ("again", 3.5, 3.9),
             ("um", 4.0, 4.2), ("bye", 6.2, 6.5), ("now", 6.5, 6.9)]
    speech = speech_of(read_cues(str(path)), words)
    assert speech == [(1200, 2000), (3200, 3900), (6200, 6900)]
    found = [(v.cue_number, v.message) for v in violations(read_cues(str(path)), SubtitleStyle(), speech=speech,
                                                            rules=["sync"])]
    assert found == [(1, "starts 0.200 s before its first word is said (at most 0.125 s: 3 frames)"),  # chained on
                     (3, "starts 0.300 s after its first word is said (at most 0.125 s: 3 frames)"),
                     (3, "ends 1.100 s after its last word (at most 0.500 s unless the minimum duration, the reading "
                         "speed or a chained gap needs more)")]


def test_the_script_checks_cues_against_the_words_they_were_made_from(tmp_path):
    path, words = tmp_path / "a.srt", tmp_path / "a.json"
    path.write_text(srt((1.0, 3.0, "Hello there."), (6.5, 8.0, "Bye now.")))
    words.write_text(json.dumps({"segments": [{"words": [
        {"word": w, "start": s, "end": e} for w, s, e in (("hello", 1.05, 1.5), ("there", 1.6, 2.0),
                                                          ("bye", 6.2, 6.5), ("now", 6.5, 6.9))]}]}))
    result = run(SCRIPT, str(path), "--words", str(words), check=False)
    assert result.returncode == 1 and result.stdout.splitlines() == [
        f"{path}:1: sync: ends 1.000 s after its last word (at most 0.500 s unless the minimum duration, the reading "
        "speed or a chained gap needs more)",
        f"{path}:2: sync: starts 0.300 s after its first word is said (at most 0.125 s: 3 frames)",
        f"{path}:2: sync: ends 1.100 s after its last word (at most 0.500 s unless the minimum duration, the reading "
        "speed or a chained gap needs more)"]
    assert run(SCRIPT, str(path), "--rules", "gap").returncode == 0  # no words: no sync
    plain = tmp_path / "a.txt"
    plain.write_text("hello there\n")
    bad = run(SCRIPT, str(path), "--words", str(plain), check=False)
    assert bad.returncode == 2 and bad.stderr.startswith(f"error: {plain}: --words takes a word-timed JSON")
    two = run(SCRIPT, str(path), str(path), "--words", str(words), check=False)
    assert two.returncode == 2 and "one FILE" in two.stderr


def test_a_subrip_file_written_with_webvtts_times_is_read_as_subrip(tmp_path):
    text = srt((1.0, 3.0, "Hello there."), (4.0, 6.0, "Hello again.")).replace(",000", ".000")
    for name in ("t.srt", "T.SRT"):
        found = check(tmp_path, text, name)
        assert [rule for _, rule, _ in found] == ["timestamp"] * 4, name
    assert read_cues(str(tmp_path / "t.srt"))[0].fmt == "srt"
    vtt = "\ufeffWEBVTT\n\n00:01.000 --> 00:03.000\nHello there.\n"
    (tmp_path / "v.srt").write_text(vtt, encoding="utf-8")  # a WebVTT file named .srt stays WebVTT
    assert read_cues(str(tmp_path / "v.srt"))[0].fmt == "vtt"
    (tmp_path / "e.srt").write_text("\n\n1\n00:00:01.000 --> 00:00:03.000\nHello there.\n", encoding="utf-8")
    assert read_cues(str(tmp_path / "e.srt"))[0].fmt == "srt"


def test_speech_is_found_for_long_transcripts_and_missing_words(tmp_path):
    """Aligned by difflib without its junk heuristic: in a transcript of hundreds of words the common ones
    (``the``) still align; a cue whose first or last word is not said, or an empty cue, has None there."""
    said = [(w, k * 0.5, k * 0.5 + 0.4) for k, w in enumerate(("the cat saw the dog and the bird " * 60).split())]
    cues = [CheckedCue(1, 0.0, 2.0, ("The cat saw",), (None,)), CheckedCue(2, 2.0, 3.0, ("the dog",), (None,)),
            CheckedCue(3, 200.0, 201.0, ("the bird.",), (None,)), CheckedCue(4, 202.0, 203.0, ("Wow, the",), (None,)),
            CheckedCue(5, 203.0, 204.0, ("",), (None,))]
    speech = speech_of(cues, said)
    assert speech[:2] == [(0, 1400), (1500, 2400)]
    assert speech[2] == (3000, 3900)  # aligned in order: the first "the bird" after "the dog"
    assert speech[3][0] is None and speech[4] == (None, None)


def test_each_new_rule_at_its_edge(tmp_path):
    style = SubtitleStyle()
    path = tmp_path / "t.srt"
    path.write_text(srt((1.0, 3.0, "Hello there."), (3.5, 5.0, "Hello again.")))  # a gap of exactly 12 frames
    assert [v.rule for v in violations(read_cues(str(path)))] == ["open-gap"]
    path.write_text(srt((1.0, 3.0, "Our children's"), (3.6, 5.0, "and grandchildren's futures.")))
    assert violations(read_cues(str(path))) == []  # the next cue's first word decides a possessive's end
    path.write_text(srt((1.0, 3.0, "It cost a hundred and"), (3.6, 5.0, "fifty dollars."), (5.6, 7.0, "And"),
                        (7.6, 9.0, "five more.")))
    assert [v.message for v in violations(read_cues(str(path)), rules=["number-split"])] == [
        "a number split between cue 1 and the next ('hundred and' / 'fifty')"]  # a lone "and" is no number's
    cues = read_cues(str(path))
    speech = [(c.start_ms + style.sync_ms, c.end_ms - style.linger_ms) for c in cues]  # exactly at both limits
    assert violations(cues, rules=["sync"], speech=speech) == []
    late = [(c.start_ms - style.sync_ms - 1, c.end_ms - style.linger_ms - 1) for c in cues]
    assert [v.message.split(" ")[3] for v in violations(cues, rules=["sync"], speech=late)][:2] == ["after", "after"]
    early = [(c.start_ms + style.sync_ms + 1, None) for c in cues]
    assert {v.message.split(" ")[3] for v in violations(cues, rules=["sync"], speech=early)} == {"before"}
    path.write_text(srt((1.0, 3.0, "Hello there."), (3.6, 5.0, "Again.")).replace("\n2\n", "\n1\n"))
    assert [v.message for v in violations(read_cues(str(path)), rules=["numbering"])] == [
        "cue number 1 after 1 (SubRip numbers its cues 1, 2, 3 ...: 2)"]
    path.write_text(srt((1.0, 3.0, "Hello there.")).replace("1\n", "2\n", 1))
    assert [v.message for v in violations(read_cues(str(path)), rules=["numbering"])] == [
        "cue number 2 after 0 (SubRip numbers its cues 1, 2, 3 ...: 1)"]
    path.write_text(srt((1.0, 3.0, "<v Tom>Hello <i>there</i>.")))
    assert violations(read_cues(str(path)), rules=["tags"]) == []  # a voice skipped, the tags after it read
    path.write_text(srt((1.0, 3.0, "<v Tom>Hello <i>there.")))
    assert [v.message for v in violations(read_cues(str(path)), rules=["tags"])] == ["<i> is not closed"]
