#!/usr/bin/env python
"""Check subtitle files against a style guide: each cue that breaks one of its rules, one line a fault.

    python utils/check_subtitles.py talk.srt                           # Netflix's English rules
    python utils/check_subtitles.py talk.vtt --max_cps 17 --line_chars 37
    python utils/check_subtitles.py a.srt b.vtt --rules gap overlap     # some rules only

In: SubRip (.srt) or WebVTT (.vtt) files, a recogniser's or an editor's, told by their content. Out, on
stdout: FILE:CUE: RULE: message for each violation (CUE: the cue's place in its file, from 1), e.g.
"talk.srt:3: reading-speed: 24.1 characters a second (at most 20): ..."; then on stderr one line, "N cues,
M violations (rule: count, ...)". Exit status 1 when there is any violation, 0 when none, 2 with one line
"error: FILE:LINE: ..." for a file it cannot read (missing, not SubRip or WebVTT, a bad timing line), every
file read before any is checked. The rules: gector_punct/transcripts/checker.py; the figures: the flags
below (gector_punct/transcripts/style.py); docs/subtitles.md.
"""
import sys
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError
from gector_punct.transcripts.checked_cues import read_cues, speech_of
from gector_punct.transcripts.checker import RULES, summary, violations
from gector_punct.transcripts.timed_words import check_transcript, read_segments
from gector_punct.transcripts.transcript_sources import timed_shape
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class CheckFlags(Settings):
    language: str = flag("en", "the subtitles' language (en, fr, de, ...): a line ending with an article, a "
                               "preposition, a conjunction, a possessive or a subject pronoun is a fault in "
                               "English; the word lists are English's, so no line-end word is a fault in another")
    rules: list[str] = flag(list(RULES), "the rules to check (several: --rules gap overlap)", choices=RULES,
                                  default_text="all")
    words: str | None = flag(None, "the word-timed JSON transcript (WhisperX / faster-whisper or Vosk) the "
                                   "subtitles were made from (one file checked): the sync rule reports cues that "
                                   "start more than --sync_frames from their first word, or end later than "
                                   "--linger after their last word without need")


def transcript_words(path: str) -> list[tuple[str, float, float]]:
    """The words of a word-timed transcript, each with its times; InputError naming what is wrong with it."""
    shape = timed_shape(path)
    if shape is None:
        raise InputError(f"{path}: --words takes a word-timed JSON transcript (WhisperX / faster-whisper or Vosk)")
    check_transcript(path, shape)
    return [(w.text, w.start, w.end) for segment in read_segments(path, shape) for w in segment.words if w.text]


def build_parser() -> FlagParser:
    parser = FlagParser(__doc__)
    parser.add_argument("files", nargs="+", metavar="FILE", help="SubRip or WebVTT files to check")
    add_flags(parser, CheckFlags)
    add_flags(parser, SubtitleStyle, title="the style guide, Netflix's English by default "
                                           "(gector_punct/transcripts/style.py)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    namespace = parser.parse_args(argv)
    flags, style = parser.settings(CheckFlags, namespace), parser.settings(SubtitleStyle, namespace)
    files = [(path, read_cues(path)) for path in namespace.files]  # a file that cannot be read stops all
    if flags.words is not None and len(files) > 1:
        parser.error("--words: the transcript of one subtitle file: give one FILE")
    speech = speech_of(files[0][1], transcript_words(flags.words)) if flags.words is not None else None
    found = []
    for path, cues in files:
        for violation in violations(cues, style, flags.language, flags.rules, speech):
            print(f"{path}:{violation.cue_number}: {violation.rule}: {violation.message}")
            found.append(violation)
    print(summary(sum(len(cues) for _, cues in files), found, len(files)), file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    run_script(main)
