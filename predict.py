#!/usr/bin/env python
"""Restore punctuation, case and sentence boundaries, one output line per input line.

    python predict.py --input_file talk.txt --output_file talk.restored.txt      # the shipped default model
    echo "so i went to new york did you" | python predict.py --input_file - --output_file -
"""
import argparse
import os
import sys

from gector_punct.io import InputError, atomic_write, read_lines
from gector_punct.predictor import Punctuator, split_sentences

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(HERE, "models", "default_en")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input_file", required=True, help="text to restore, one text per line ('-': stdin)")
    p.add_argument("--output_file", required=True, help="where to write ('-': stdout); written atomically")
    p.add_argument("--model_path", nargs="+", default=[DEFAULT_MODEL],
                   help="model folder(s); several = an ensemble averaging per-word probabilities (default: shipped model)")
    p.add_argument("--vocab_path", default=None, help="vocabulary folder overriding the model's own")
    p.add_argument("--min_error_probability", type=float, default=None,
                   help="leave a line alone when no word's error probability reaches this, and skip any edit below it (default: the model's)")
    p.add_argument("--additional_confidence", type=float, default=None,
                   help="added to the $KEEP probability: higher = fewer edits (default: the model's)")
    p.add_argument("--iteration_count", type=int, default=1, help="tagging passes over lines that changed (default 1)")
    p.add_argument("--batch_size", type=int, default=32, help="encoder windows per batch (default 32)")
    p.add_argument("--max_len", type=int, default=None, help="subwords per window (default: the model's)")
    p.add_argument("--special_tokens_fix", type=int, default=None,
                   help="accepted for GECToR compatibility; a model folder records its own setting")
    p.add_argument("--chunk_lines", type=int, default=2000, help="lines read, predicted and written at a time (default 2000)")
    p.add_argument("--split_sentences", action="store_true", help="write one sentence per line instead of one line per input line")
    p.add_argument("--allow_delete", action="store_true", help="let the model delete words it tags $DELETE (disfluencies)")
    p.add_argument("--device", default=None, help="cpu, cuda ... (default: cuda when available)")
    p.add_argument("--num_shards", type=int, default=1,
                   help="split the input into this many contiguous parts, one per process (default 1)")
    p.add_argument("--shard_id", type=int, default=0,
                   help="which part this process restores (0-based); outputs of shards 0..K-1 concatenate in input order")
    args = p.parse_args(argv)
    if not 0 <= args.shard_id < args.num_shards:
        p.error("--shard_id must be in 0 .. --num_shards-1")
    if args.num_shards > 1 and args.input_file == "-":
        p.error("--num_shards needs an input file (stdin cannot be counted and read twice)")

    try:
        punctuator = Punctuator.load(args.model_path, args.vocab_path, min_error_probability=args.min_error_probability,
                                     additional_confidence=args.additional_confidence, iteration_count=args.iteration_count,
                                     batch_size=args.batch_size, max_len=args.max_len, allow_delete=args.allow_delete,
                                     device=args.device)
    except (OSError, ValueError) as err:
        print(f"error: cannot load model {args.model_path}: {err}", file=sys.stderr)
        return 2
    lines_in = lines_out = 0
    try:
        first, last = 1, float("inf")
        if args.num_shards > 1:  # contiguous line ranges, so that shard outputs concatenate in order
            total = sum(1 for _ in read_lines(args.input_file))
            first = args.shard_id * total // args.num_shards + 1
            last = (args.shard_id + 1) * total // args.num_shards
        with atomic_write(args.output_file) as out:
            chunk = []
            for number, line in read_lines(args.input_file):
                if not first <= number <= last:
                    continue
                chunk.append(line)
                if len(chunk) >= args.chunk_lines:
                    lines_out += write(out, punctuator.predict(chunk), args.split_sentences)
                    lines_in += len(chunk)
                    chunk = []
            if chunk:
                lines_out += write(out, punctuator.predict(chunk), args.split_sentences)
                lines_in += len(chunk)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{lines_in} lines in, {lines_out} lines out -> {args.output_file}", file=sys.stderr)
    return 0


def write(out, restored, sentences: bool) -> int:
    count = 0
    for line in restored:
        parts = split_sentences(line) if sentences else [line]
        for part in parts or [""]:
            out.write(part + "\n")
            count += 1
    out.flush()
    return count


if __name__ == "__main__":
    sys.exit(main())
