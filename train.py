#!/usr/bin/env python
"""Train a gector-punct tagger on preprocessed files (see utils/preprocess_data.py).

    python train.py --train_set train.tagged --dev_set dev.tagged --model_dir models/run1
    python train.py --config configs/tiny.json --model_dir models/tiny     # flags override the preset
    torchrun --nproc_per_node 2 train.py --config ...   # N processes (DDP); --batch_size stays the global batch

Every flag is a field of gector_punct/training/options.py TrainOptions (its help, type and bounds come from
there; gector_punct/options/flags.py makes the flags); a --config JSON file holds any of them by the same
names. Switches are --flag / --no-flag, and the spellings --flag 1 / --flag 0 of the recipes in utils/*.sh
(--resume 1) are read as them too. A bad value stops the run before it starts, with one error line.

Audio (UniPunc): train/dev files with FILE.audio beside them (preprocess_data.py -a) or UniPunc .jsonl files,
plus --acoustic settings (configs/audio_en.json), train one model on text with and without audio
(utils/build/build_audio_model.sh).
"""
import argparse
import json
import sys

from gector_punct.model.config import ModelFolderError
from gector_punct.options.flags import FlagParser, add_flags
from gector_punct.text.files import InputError, error_text, read_json_object
from gector_punct.training.options import TrainOptions
from gector_punct.training.trainer import train

REQUIRED = ("train_set", "dev_set", "model_dir")  # given by a flag or the --config file


def build_parser() -> FlagParser:
    """One flag per TrainOptions field, plus --config; only the flags given end up in the parsed namespace."""
    parser = FlagParser(__doc__)
    parser.add_argument("--config", default=argparse.SUPPRESS,
                        help="JSON preset (configs/*.json) holding any of these flags (default: none)")
    add_flags(parser, TrainOptions, given_only=True)
    return parser


def parse_flags(parser: FlagParser, argv: list[str]) -> dict:
    """The flags given (and only those), by option name; switches also as ``--flag 1`` / ``--flag 0``."""
    return vars(parser.parse_args(argv))


def read_config(path: str) -> dict:
    """A --config file's options (a JSON object whose keys are TrainOptions' names); InputError otherwise."""
    try:
        options = read_json_object(path)
    except InputError as err:
        raise InputError(f"--config {err}") from None
    unknown = set(options) - TrainOptions.field_names()
    if unknown:
        raise InputError(f"--config {path}: unknown keys {sorted(unknown)}")
    return options


def main(argv=None) -> int:
    parser = build_parser()
    args = parse_flags(parser, sys.argv[1:] if argv is None else list(argv))
    try:
        options = read_config(args.pop("config")) if "config" in args else {}
    except InputError as err:
        parser.error(str(err))
    options.update(args)
    missing = [k for k in REQUIRED if not options.get(k)]
    if missing:
        parser.error("missing " + ", ".join("--" + k for k in missing))
    try:  # a bad value (bounds), bad data, or a setting the model or this machine cannot take (--device ...)
        best = train(TrainOptions(**options))
    except (InputError, ModelFolderError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: {error_text(err, options['model_dir'])}", file=sys.stderr)
        return 2
    if best:
        print(json.dumps({"best_dev": {g: best[g]["overall"] for g in ("punct", "case", "boundary") if g in best}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
