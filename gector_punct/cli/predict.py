r"""Restore punctuation, case and sentence boundaries, one output line per input line (predict.py, or the
gector-punct command that installing this package puts on the PATH: the same flags).

    python predict.py --input_file talk.txt --output_file talk.restored.txt      # the best shipped model
    echo "so i went to new york did you" | gector-punct --input_file -           # to stdout
    python predict.py --model_path audio_en --input_file examples/audio/talk.txt \
        --audio_list examples/audio/talk.list --output_file -          # text with its audio (UniPunc models)
    python predict.py --tasks disf,punc --input_file call.txt --output_file -   # drop uh, um, restarts; punctuate

A model is a folder or a shipped model's name (default_en, switch_en, ...), which works from any folder.
A bad flag value, a missing input or output folder stops at once with one line starting "error:" (exit 2).
"""
# The command line of predict.py and gector-punct: PredictCommand's flags -> the input routed by its kind (plain
# lines, a stream, a subtitle file, a word-timed transcript) to its reader and its format's writer
# (transcripts.formats); every error before any output; the exit status (main).
from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from gector_punct.audio.waves import check_audio_count, check_audio_list, read_audio_list
from gector_punct.cli.interrupts import InterruptGuard
from gector_punct.encoders.runtime import mmap_large_buffers, trim_heap
from gector_punct.options.flags import FlagParser, add_flags, flag
from gector_punct.prediction.chunks import word_chunks, write_lines
from gector_punct.prediction.confidence import CALIBRATION_FILE
from gector_punct.prediction.loading import ModelLoadError, load_punctuator
from gector_punct.prediction.pipeline import OVERLAP_MODES, predict_chunks
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct.prediction.streaming import Captions, StreamingPunctuator
from gector_punct.text.files import (InputError, atomic_write, check_input_file, check_output_file, error_text,
                                     read_ended_lines, read_lines)
from gector_punct.text.numbers.english import NumbersUnavailable
from gector_punct.text.numbers.spans import file_language, numbers_available
from gector_punct.transcripts.formats import FORMATS
from gector_punct.transcripts.restored_transcript import TIMED_WRITERS, transcript_language, write_transcript
from gector_punct.transcripts.restoring import written_segments
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.subtitles import format_subtitles, read_subtitles, restore_subtitles, subtitle_format_of
from gector_punct.transcripts.timed_words import check_transcript, read_segments
from gector_punct.transcripts.transcript_sources import FileSource, timed_shape


TIMED_FORMATS = TIMED_WRITERS  # formats that restore a whole file as one stream (srt and vtt: subtitle files too)
PROGRESS_BYTES = 20_000  # about 3,500 words: a file that takes a few seconds or more shows a progress bar


@dataclass(kw_only=True)
class PredictCommand(PredictionSettings):
    """predict.py's flags: the prediction settings and what this program does with them."""
    input_file: str = flag(help="text to restore, one text per line ('-': stdin)")
    output_file: str = flag("-", "where to write ('-': stdout); written atomically. A line that ends with CRLF "
                                 "in the input ends with CRLF here, every other line with LF")
    overlap: str = flag(OVERLAP_MODES[0], "threads: the next chunk is tokenised and the last one decoded, each in "
                                          "a thread of its own, while the encoder runs; off: one after the other; "
                                          "auto: threads on a GPU, off on a CPU, whose cores the encoder already "
                                          "keeps busy (docs/speed.md). The output is the same", choices=OVERLAP_MODES)
    low_memory: bool = flag(False, "keep peak memory flat on very large inputs (large buffers mmapped), at some "
                                   "cost in system time (docs/speed.md)")
    split_sentences: bool = flag(False, "write one sentence per line instead of one line per input line")
    format: str = flag("plain", "plain: one text per line; jsonl: per line, a JSON object with the text and each "
                                "word's confidence and review flag (docs/review.md); json: a word-timed transcript "
                                "(WhisperX / faster-whisper or Vosk JSON, told by its content) written back in its "
                                "shape, each word restored, with its confidence; srt / vtt: a subtitle file "
                                "restored as one stream across cues, in the same format with every cue's index, "
                                "timing and line breaks, or cues built from a word-timed transcript to the style "
                                "guide below (docs/subtitles.md); text: a word-timed transcript as a document, a "
                                "paragraph per speaker turn",
                       choices=("plain", *FORMATS))
    stream: bool = flag(False, "live captions: each input line is a chunk of new words (an empty line ends an "
                               "utterance); each word is written, flushed, once --lookahead more words have come, "
                               "never rewritten; one output line (LF) per utterance")
    num_shards: int = flag(1, "split the input into this many contiguous parts, one per process", min=1)
    shard_id: int = flag(0, "which part this process restores (0-based); outputs of shards 0..K-1 concatenate in "
                            "input order", min=0)
    audio_list: str | None = flag(None, "audio of each input line for an audio model (line i: wav path, "
                                        "path:offset:frames, or empty: none; relative to the list's folder)")
    skip_bad: bool = flag(False, "restore a line whose audio is missing, unreadable or empty from its words alone "
                                 "instead of stopping")
    audio_cache: str | None = flag(None, "folder to cache acoustic features in")
    speaker_names: str | None = flag(None, "a word-timed transcript's speakers by name, in --format text "
                                           "labels and vtt voices: SPEAKER_00=Karen,SPEAKER_01=Tom")
    timestamps: bool = flag(False, "open each paragraph of --format text with its time ([00:01:23])")
    style: SubtitleStyle = field(default_factory=SubtitleStyle)  # the flags of SubtitleStyle, read apart


def speaker_names(text: str | None) -> dict[str, str]:
    """``--speaker_names`` (``SPEAKER_00=Karen,SPEAKER_01=Tom``) as a mapping; ValueError naming a part
    without ``=``."""
    names = {}
    for part in filter(None, (part.strip() for part in (text or "").split(","))):
        label, sep, name = part.partition("=")
        if not sep or not label.strip() or not name.strip():
            raise ValueError(f"{part!r} is not LABEL=NAME (e.g. SPEAKER_00=Karen)")
        names[label.strip()] = name.strip()
    return names


def build_parser() -> FlagParser:
    """Every flag, one per field of ``PredictCommand`` (its help, default and checks come from there)."""
    parser = FlagParser(__doc__)
    add_flags(parser, PredictCommand, skip=PredictionSettings.field_names() | {"style"})
    add_flags(parser, PredictionSettings,
              title="prediction settings (gector_punct/prediction/settings.py; serve.py and Ray take them too)")
    add_flags(parser, SubtitleStyle, title="subtitles built from word times (srt, vtt): the style guide, Netflix's "
                                           "English by default (gector_punct/transcripts/style.py)")
    return parser


def parse_args(argv=None) -> PredictCommand:
    """The flags, each value checked, then how they combine and whether the files can be read and written:
    a bad one stops here, before the model loads, with one ``error:`` line and exit status 2."""
    p = build_parser()
    namespace = p.parse_args(argv)
    args = p.settings(PredictCommand, namespace, style=p.settings(SubtitleStyle, namespace))
    try:
        speaker_names(args.speaker_names)
    except ValueError as err:
        p.error(f"argument --speaker_names: {err}")
    if not 0 <= args.shard_id < args.num_shards:
        p.error("--shard_id must be in 0 .. --num_shards-1")
    if args.num_shards > 1 and args.input_file == "-":
        p.error("--num_shards needs an input file (stdin cannot be counted and read twice)")
    if args.stream and (args.format != "plain" or args.num_shards > 1 or args.split_sentences or args.audio_list):
        p.error("--stream reads words as they come: no --format, --num_shards, --split_sentences or --audio_list")
    if args.format == "jsonl" and args.split_sentences:
        p.error("--format jsonl writes one object per input line: no --split_sentences")
    if args.format in TIMED_FORMATS and (args.num_shards > 1 or args.split_sentences or args.audio_list
                                         or args.fragments):
        p.error(f"--format {args.format} restores a whole transcript or subtitle file as one stream: no "
                "--num_shards, --split_sentences, --audio_list or --fragments")
    if args.format in ("json", "text") and args.input_file == "-":
        p.error(f"--format {args.format} reads a word-timed transcript from a file (it is read twice): give its path")
    try:
        check_input_file(args.input_file)
        check_output_file(args.output_file)
    except (InputError, OSError) as err:  # their messages name the file
        p.error(str(err))
    return args


def read_audio(args: PredictCommand, punctuator: Punctuator) -> list | None:
    """The audio list, every file checked before any output: a bad one never stops the run half-way."""
    if not args.audio_list:
        return None
    if not any(m.acoustic is not None for m in punctuator.models):
        model = " ".join(model_paths(args.model_path, args.tasks))
        raise InputError(f"--audio_list {args.audio_list}: the model {model} has no acoustic part "
                         "and cannot use audio (leave the flag out, or give an audio model such as audio_en)")
    audio = read_audio_list(args.audio_list)
    check_audio_list(audio, args.audio_list, args.skip_bad)
    return audio


def restore(args: PredictCommand, punctuator: Punctuator, audio: list | None) -> tuple[int, int]:
    """Read, restore and write chunk by chunk of ``--chunk_words`` words, the next chunk tokenised and the
    last one decoded while the encoder runs (``pipeline.predict_chunks``); each output line ends as its
    input line did (CRLF or LF, ``files.line_end``); the output replaces OUTPUT_FILE only when all is
    written. Returns (lines in, lines out)."""
    first, last = 1, float("inf")
    if args.num_shards > 1:  # contiguous line ranges, so that shard outputs concatenate in order
        total = sum(1 for _ in read_lines(args.input_file))
        first = args.shard_id * total // args.num_shards + 1
        last = (args.shard_id + 1) * total // args.num_shards
    lines_in = lines_out = read = 0
    endings: deque[list[str]] = deque()  # per chunk read and not yet written, its lines' endings
    sizes: deque[int] = deque()  # and its bytes, for the progress bar
    bar = progress_bar(args)

    def selected() -> Iterator[tuple[str, object, str]]:  # this shard's lines, each with its audio and ending
        nonlocal read
        for read, line, ending in read_ended_lines(args.input_file):
            if first <= read <= last:
                yield line, (audio[read - 1] if audio and read <= len(audio) else None), ending

    def chunks() -> Iterator[list[tuple[str, object, str]]]:
        nonlocal lines_in
        for chunk, _ in word_chunks(selected(), args.chunk_words, text=lambda item: item[0]):
            lines_in += len(chunk)
            endings.append([ending for _, _, ending in chunk])
            sizes.append(sum(len(line.encode()) + len(ending) for line, _, ending in chunk))
            yield chunk

    scored = args.format == "jsonl"
    with atomic_write(args.output_file, create_parents=False) as out:
        if audio is None and overlapped(args.overlap, punctuator):  # tokenising ahead, decoding behind
            restored_chunks = predict_chunks(punctuator, ([line for line, _, _ in chunk] for chunk in chunks()), scored)
        else:
            restore_lines = punctuator.predict_scored if scored else punctuator.predict
            restored_chunks = (restore_lines([line for line, _, _ in chunk], [sound for _, sound, _ in chunk] if audio
                                             else None) for chunk in chunks())
        for restored in restored_chunks:
            text = map(FORMATS["jsonl"].line, restored) if scored else restored
            lines_out += write_lines(out, text, args.split_sentences, endings.popleft())
            if bar is not None:
                bar.update(sizes.popleft())
            trim_heap()  # what this chunk's batches freed goes back to the OS
        if audio is not None:
            check_audio_count(args.audio_list, len(audio), args.input_file, read)
    if bar is not None:
        bar.close()
    return lines_in, lines_out


def progress_bar(args: PredictCommand):
    """A tqdm bar on stderr over the input file's bytes, when stderr is a terminal and the file is long
    (``PROGRESS_BYTES``) and read whole (one shard); else None."""
    if args.input_file == "-" or args.num_shards > 1 or not sys.stderr.isatty():
        size = 0
    else:
        size = os.path.getsize(args.input_file)
    if size < PROGRESS_BYTES:
        return None
    from tqdm import tqdm

    return tqdm(total=size, unit="B", unit_scale=True, desc="restoring", file=sys.stderr, leave=False)


def overlapped(overlap: str, punctuator: Punctuator) -> bool:
    """Whether ``--overlap`` runs the pipeline's threads for this predictor's device."""
    return overlap == "threads" or (overlap == "auto" and punctuator.device.type != "cpu")


def stream(args: PredictCommand, punctuator: Punctuator) -> tuple[int, int]:
    """Words out as they become final: one output line per utterance; returns (input lines, utterances).
    Ctrl-C ends the input as its end would (the pending words are written, final; an output file is
    complete), and is then raised again as KeyboardInterrupt."""
    captions = Captions(StreamingPunctuator(punctuator, args.lookahead))
    lines_in = utterances = 0
    with InterruptGuard() as guard, atomic_write(args.output_file, create_parents=False) as out:
        try:
            for _, line in guard.lines(args.input_file):
                lines_in += 1
                words = line.split()
                if words:
                    out.write(captions.push(words))
                else:  # an empty line ends the utterance
                    out.write(captions.finish() + "\n")
                    utterances += 1
                out.flush()
                if guard.pressed:
                    break
        except KeyboardInterrupt:  # raised only while waiting for a line: nothing is in hand
            pass
        if captions.open:
            out.write(captions.finish() + "\n")
            utterances += 1
    if guard.pressed:
        raise KeyboardInterrupt
    return lines_in, utterances


def restore_subtitle_file(args: PredictCommand, punctuator: Punctuator) -> tuple[int, int]:
    """The whole file read, restored across cues and written in its own format; (cues in, cues out)."""
    subtitles = restore_subtitles(punctuator, read_subtitles(args.input_file, args.format))
    with atomic_write(args.output_file, create_parents=False) as out:
        out.write(format_subtitles(subtitles))
    cues = sum(block.is_cue for block in subtitles.blocks)
    return cues, cues


def restore_timed_file(args: PredictCommand, punctuator: Punctuator, shape: str) -> tuple[int, int]:
    """A word-timed transcript written back in its shape (json), as cues (srt, vtt) or as a document (text),
    restored as it is read (``restored_transcript.write_transcript``, as the Python API writes it); (words in,
    items out)."""
    source, top = FileSource(args.input_file, shape), {}
    language = transcript_language(source) if args.format in ("srt", "vtt") else None
    restored = written_segments(punctuator, read_segments(source, top=top))
    with atomic_write(args.output_file, create_parents=False) as out:
        return write_transcript(args.format, restored, source, top, out, args.style, speaker_names(args.speaker_names),
                                args.timestamps, language)


def input_problem(args: PredictCommand) -> tuple[str | None, str | None]:
    """(the input's word-timed shape, None) or (None, what is wrong with the input for --format)."""
    if args.input_file == "-":
        return None, None
    shape = timed_shape(args.input_file)  # InputError: JSON of another shape
    if shape is not None and args.format not in TIMED_FORMATS:
        return None, f"{args.input_file}: a word-timed transcript ({shape} JSON): give --format json, srt, vtt or text"
    if shape is None and args.format in ("json", "text"):
        return None, (f"{args.input_file}: --format {args.format} reads a word-timed JSON transcript (WhisperX / "
                      "faster-whisper or Vosk), and this file is not JSON")
    if shape is not None:
        check_transcript(args.input_file, shape)  # InputError: the whole file read once, before any output
    shown = subtitle_format_of(args.input_file) if args.format in ("plain", "jsonl") else None
    if shown is not None:  # as plain text its timing lines came out as "00:00:01,000, --> 00:00:03,500."
        fmt, line = shown
        what = "header" if fmt == "vtt" and line == 1 else "timing line"
        return None, f"{args.input_file}:{line}: a subtitle file's {what} ({fmt}): give --format {fmt}"
    return shape, None


def main(argv=None) -> int:
    """Run the command line; the exit status: 0 done, 1 the reader of stdout left, 2 bad input or model,
    130 interrupted (Ctrl-C: an output file is left as it was, except in --stream mode, where what came in
    is restored and written)."""
    args = parse_args(argv)
    try:
        return restore_files(args)
    except KeyboardInterrupt:
        print("interrupted: " + ("the words that came are written" if args.stream else
                                 "the lines restored so far are written" if args.output_file == "-" else
                                 f"{args.output_file} is left as it was (it is written when the run completes)"),
              file=sys.stderr)
        return 130


def restore_files(args: PredictCommand) -> int:
    """Load the model and restore the input as ``args`` say; returns the exit status (``main``'s)."""
    if args.low_memory:
        mmap_large_buffers()
    try:
        shape, problem = input_problem(args)
    except InputError as err:
        shape, problem = None, str(err)
    try:  # the library the input's language needs (its first words': nemo for English or none known)
        if args.numbers != "words":
            numbers_available(args.numbers, transcript_language(FileSource(args.input_file, shape)) if shape
                              else file_language(args.input_file))
    except NumbersUnavailable as err:
        problem = problem or str(err)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        punctuator = load_punctuator(args, live=args.stream, audio_cache=args.audio_cache,
                                     skip_bad_audio=args.skip_bad)
    except ModelLoadError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.format in ("jsonl", "json") and not punctuator.calibration.calibrated:
        model = " ".join(model_paths(args.model_path, args.tasks, args.stream))
        print(f"note: {model} has no {CALIBRATION_FILE}: each word's confidence is its heads' probability, "
              "uncalibrated, and review flags those below 0.5 (utils/report/fit_confidence.py fits one)",
              file=sys.stderr)
    try:
        if args.stream:
            lines_in, lines_out = stream(args, punctuator)
        elif shape is not None:
            lines_in, lines_out = restore_timed_file(args, punctuator, shape)
        elif args.format in TIMED_FORMATS:
            lines_in, lines_out = restore_subtitle_file(args, punctuator)
        else:
            lines_in, lines_out = restore(args, punctuator, read_audio(args, punctuator))
    except BrokenPipeError:  # `predict.py ... --output_file - | head -1`: the reader has all it wants
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # writing: a full disk, a folder gone
        print(f"error: {error_text(err, args.output_file)}", file=sys.stderr)
        return 2
    unit_in, unit_out = (("word", {"json": "segment", "text": "paragraph"}.get(args.format, "cue")) if shape is not None else
                         ("cue", "cue") if args.format in TIMED_FORMATS else
                         ("line", "utterance" if args.stream else "line"))
    print(f"{counted(lines_in, unit_in)} in, {counted(lines_out, unit_out)} out -> {args.output_file}", file=sys.stderr)
    return 0


def counted(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


if __name__ == "__main__":
    sys.exit(main())
