#!/usr/bin/env python
"""Restore punctuation, case and sentence boundaries, one output line per input line.

    python predict.py --input_file talk.txt --output_file talk.restored.txt      # the shipped default model
    echo "so i went to new york did you" | python predict.py --input_file - --output_file -
    python predict.py --model_path models/audio_en --input_file examples/audio/talk.txt \
        --audio_list examples/audio/talk.list --output_file -          # text with its audio (UniPunc models)
    python predict.py --tasks disf,punc --input_file call.txt --output_file -   # drop uh, um, restarts; punctuate
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
from collections.abc import Iterator

from gector_punct.options.argtypes import nonnegative_int, positive_int
from gector_punct.audio.waves import check_audio_list, read_audio_list
from gector_punct.prediction.chunks import word_chunks, write_lines
from gector_punct.text.files import InputError, atomic_write, check_parent_folder, read_lines
from gector_punct.options.prediction import add_decoding_flags, add_model_flags, add_text_flags, choose_model
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.pipeline import predict_chunks
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.encoders.runtime import mmap_large_buffers, trim_heap
from gector_punct.prediction.streaming import StreamingPunctuator, caption_text
from gector_punct.prediction.subtitles import format_subtitles, read_subtitles, restore_subtitles


def build_parser() -> argparse.ArgumentParser:
    """Every flag, each value checked by its ``type`` (gector_punct.options.argtypes); ``parse_args`` then checks
    how the flags combine."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input_file", required=True, help="text to restore, one text per line ('-': stdin)")
    p.add_argument("--output_file", required=True, help="where to write ('-': stdout); written atomically")
    add_model_flags(p)
    add_decoding_flags(p)
    add_text_flags(p)
    p.add_argument("--overlap", choices=["auto", "threads", "off"], default="auto",
                   help="threads: the next chunk is tokenised and the last one decoded, each in a thread of its own, "
                        "while the encoder runs; off: one after the other; auto: threads on a GPU, off on a CPU, "
                        "whose cores the encoder already keeps busy (docs/speed.md). The output is the same "
                        "(default auto)")
    p.add_argument("--low_memory", action="store_true",
                   help="keep peak memory flat on very large inputs (large buffers mmapped), at some cost in "
                        "system time (README: Speed and scale)")
    p.add_argument("--split_sentences", action="store_true", help="write one sentence per line instead of one line per input line")
    p.add_argument("--format", choices=["plain", "srt", "vtt"], default="plain",
                   help="plain: one text per line; srt / vtt: a subtitle file, restored as one stream across cues, "
                        "written in the same format with every cue's index, timing and line breaks (default plain)")
    p.add_argument("--stream", action="store_true",
                   help="live captions: each input line is a chunk of new words (an empty line ends an utterance); "
                        "each word is written, flushed, once --lookahead more words have come, never rewritten")
    p.add_argument("--lookahead", type=nonnegative_int, default=8,
                   help="with --stream: words to wait for before a word is final (default 8)")
    p.add_argument("--device", default=None,
                   help="cpu, cuda ... (default: the CPU on the onnx engine; on torch, cuda when available)")
    p.add_argument("--num_shards", type=positive_int, default=1,
                   help="split the input into this many contiguous parts, one per process (default 1)")
    p.add_argument("--shard_id", type=nonnegative_int, default=0,
                   help="which part this process restores (0-based); outputs of shards 0..K-1 concatenate in input order")
    p.add_argument("--audio_list", default=None,
                   help="audio of each input line for an audio model (line i: wav path, path:offset:frames, or empty: none; "
                        "relative to the list's folder)")
    p.add_argument("--skip_bad", action="store_true",
                   help="restore a line whose audio is missing, unreadable or empty from its words alone instead of stopping")
    p.add_argument("--audio_cache", default=None, help="folder to cache acoustic features in (default: none)")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    choose_model(args)
    try:
        check_parent_folder(args.output_file)  # before the model loads: a typo in the path fails at once
    except FileNotFoundError as err:
        p.error(str(err))
    if not 0 <= args.shard_id < args.num_shards:
        p.error("--shard_id must be in 0 .. --num_shards-1")
    if args.num_shards > 1 and args.input_file == "-":
        p.error("--num_shards needs an input file (stdin cannot be counted and read twice)")
    if args.stream and (args.format != "plain" or args.num_shards > 1 or args.split_sentences or args.audio_list):
        p.error("--stream reads words as they come: no --format, --num_shards, --split_sentences or --audio_list")
    if args.format != "plain" and (args.num_shards > 1 or args.split_sentences or args.audio_list or args.fragments):
        p.error(f"--format {args.format} restores a whole subtitle file as one stream across its cues: no "
                "--num_shards, --split_sentences, --audio_list or --fragments")
    return args


def read_audio(args: argparse.Namespace, punctuator: Punctuator) -> list | None:
    """The audio list, every file checked before any output: a bad one never stops the run half-way."""
    if not args.audio_list:
        return None
    if not any(m.acoustic is not None for m in punctuator.models):
        raise InputError(f"--audio_list {args.audio_list}: the model {' '.join(args.model_path)} has no acoustic part "
                         "and cannot use audio (leave the flag out, or give an audio model such as models/audio_en)")
    audio = read_audio_list(args.audio_list)
    check_audio_list(audio, args.audio_list, args.skip_bad)
    return audio


def restore(args: argparse.Namespace, punctuator: Punctuator, audio: list | None) -> tuple[int, int]:
    """Read, restore and write chunk by chunk of ``--chunk_words`` words, the next chunk tokenised and the
    last one decoded while the encoder runs (``pipeline.predict_chunks``); the output replaces OUTPUT_FILE
    only when all is written. Returns (lines in, lines out)."""
    first, last = 1, float("inf")
    if args.num_shards > 1:  # contiguous line ranges, so that shard outputs concatenate in order
        total = sum(1 for _ in read_lines(args.input_file))
        first = args.shard_id * total // args.num_shards + 1
        last = (args.shard_id + 1) * total // args.num_shards
    lines_in = lines_out = read = 0

    def selected() -> Iterator[tuple[str, object]]:  # this shard's lines, each with its audio
        nonlocal read
        for read, line in read_lines(args.input_file):
            if first <= read <= last:
                yield line, (audio[read - 1] if audio and read <= len(audio) else None)

    def chunks() -> Iterator[list[tuple[str, object]]]:
        nonlocal lines_in
        for chunk, _ in word_chunks(selected(), args.chunk_words, text=lambda item: item[0]):
            lines_in += len(chunk)
            yield chunk

    with atomic_write(args.output_file, create_parents=False) as out:
        if audio is None and overlapped(args.overlap, punctuator):  # tokenising ahead, decoding behind
            restored_chunks = predict_chunks(punctuator, ([line for line, _ in chunk] for chunk in chunks()))
        else:
            restored_chunks = (punctuator.predict([line for line, _ in chunk],
                                                  [sound for _, sound in chunk] if audio else None)
                               for chunk in chunks())
        for restored in restored_chunks:
            lines_out += write_lines(out, restored, args.split_sentences)
            trim_heap()  # what this chunk's batches freed goes back to the OS
        if audio is not None and len(audio) != read:
            raise InputError(f"{args.audio_list} has {len(audio)} lines but {args.input_file} has {read}: "
                             "one audio line per input line (an empty line for none)")
    return lines_in, lines_out


def overlapped(overlap: str, punctuator: Punctuator) -> bool:
    """Whether ``--overlap`` runs the pipeline's threads for this predictor's device."""
    return overlap == "threads" or (overlap == "auto" and punctuator.device.type != "cpu")


class InterruptGuard:
    """Ctrl-C (SIGINT) while a stream runs, as a context manager: while the program waits for input
    (``lines``) it raises KeyboardInterrupt there and then; at any other time it only sets ``pressed``, so
    that the words in hand are written (and an output file committed) before the program stops. A Ctrl-C
    that comes with the end of the input (a pipeline's writer killed too) is caught either way."""

    def __init__(self):
        self.waiting = self.pressed = False

    def __enter__(self) -> InterruptGuard:
        self.previous = signal.signal(signal.SIGINT, self._on_interrupt)
        return self

    def __exit__(self, *_) -> None:
        signal.signal(signal.SIGINT, self.previous)

    def _on_interrupt(self, *_) -> None:
        self.pressed = True
        if self.waiting:
            raise KeyboardInterrupt

    def lines(self, path: str) -> Iterator[tuple[int, str]]:
        """``read_lines(path)``, interruptible while it waits for the next line."""
        lines = read_lines(path)
        while True:
            self.waiting = True
            try:
                item = next(lines, None)
            finally:
                self.waiting = False
            if item is None:
                return
            yield item


def stream(args: argparse.Namespace, punctuator: Punctuator) -> tuple[int, int]:
    """Words out as they become final: one output line per utterance; returns (input lines, utterances).
    Ctrl-C ends the input as its end would (the pending words are written, final; an output file is
    complete), and is then raised again as KeyboardInterrupt."""
    streamer = StreamingPunctuator(punctuator, args.lookahead)
    lines_in = utterances = 0
    with InterruptGuard() as guard, atomic_write(args.output_file, create_parents=False) as out:
        last = None  # the newest word written on the current output line
        try:
            for _, line in guard.lines(args.input_file):
                lines_in += 1
                words = line.split()
                final = streamer.push(words) if words else streamer.end()
                if final:
                    out.write(caption_text(final, last))
                    last = final[-1]
                if not words:
                    out.write("\n")
                    last, utterances = None, utterances + 1
                out.flush()
                if guard.pressed:
                    break
        except KeyboardInterrupt:  # raised only while waiting for a line: nothing is in hand
            pass
        final = streamer.end()
        if final or last is not None:
            out.write(caption_text(final, last) + "\n")
            utterances += 1
    if guard.pressed:
        raise KeyboardInterrupt
    return lines_in, utterances


def restore_subtitle_file(args: argparse.Namespace, punctuator: Punctuator) -> int:
    """The whole file read, restored across cues and written in its own format; returns its cue count."""
    subtitles = restore_subtitles(punctuator, read_subtitles(args.input_file, args.format))
    with atomic_write(args.output_file, create_parents=False) as out:
        out.write(format_subtitles(subtitles))
    return sum(block.is_cue for block in subtitles.blocks)


def main(argv=None) -> int:
    """Run the command line; the exit status: 0 done, 1 the reader of stdout left, 2 bad input or model,
    130 interrupted (Ctrl-C: an output file is left as it was, except in --stream mode, where what came in
    is restored and written)."""
    args = parse_args(argv)
    try:
        return restore_files(args)
    except KeyboardInterrupt:
        print("interrupted: " + ("the words that came are written" if args.stream else
                                 "an output file is written only when the run completes"), file=sys.stderr)
        return 130


def restore_files(args: argparse.Namespace) -> int:
    """Load the model and restore the input as ``args`` say; returns the exit status (``main``'s)."""
    if args.low_memory:
        mmap_large_buffers()
    if args.input_file != "-" and not os.path.exists(args.input_file):  # before a model loads (or its graph is built)
        print(f"error: {FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), args.input_file)}", file=sys.stderr)
        return 2
    try:
        punctuator = load_punctuator(args, audio_cache=args.audio_cache, skip_bad_audio=args.skip_bad)
    except (OSError, ValueError) as err:
        print(f"error: cannot load model {' '.join(args.model_path)}: {err}", file=sys.stderr)
        return 2
    try:
        if args.stream:
            lines_in, lines_out = stream(args, punctuator)
        elif args.format != "plain":
            lines_in = lines_out = restore_subtitle_file(args, punctuator)
        else:
            lines_in, lines_out = restore(args, punctuator, read_audio(args, punctuator))
    except BrokenPipeError:  # `predict.py ... --output_file - | head -1`: the reader has all it wants
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    unit_in, unit_out = ("cues", "cues") if args.format != "plain" else ("lines", "utterances" if args.stream else "lines")
    print(f"{lines_in} {unit_in} in, {lines_out} {unit_out} out -> {args.output_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
