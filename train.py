#!/usr/bin/env python
"""Train a gector-punct tagger on preprocessed files (see utils/preprocess_data.py).

    python train.py --train_set train.tagged --dev_set dev.tagged --model_dir models/run1
    python train.py --config configs/tiny.json --model_dir models/tiny     # flags override the preset
    torchrun --nproc_per_node 2 train.py --config ...   # N processes (DDP); --batch_size stays the global batch

Every flag is a field of gector_punct/options/training.py TrainOptions (its help, type and bounds come from there);
a --config JSON file holds any of them by the same names. Switches are --flag / --no-flag, and the
spellings --flag 1 / --flag 0 of the recipes in utils/*.sh are read as them too.

Audio (UniPunc): train/dev files with FILE.audio beside them (preprocess_data.py -a) or UniPunc .jsonl files,
plus --acoustic settings (configs/audio_en.json), train one model on text with and without audio
(utils/build_audio_model.sh).
"""
import argparse
import json
import sys
import typing
from dataclasses import MISSING, fields

from gector_punct.model.config import ModelConfig, ModelFolderError
from gector_punct.text.files import InputError
from gector_punct.options.training import MODEL_SETTINGS, TrainOptions, bounds_text, value_type
from gector_punct.training.trainer import train

LEGACY_SWITCH_VALUES = {"1": True, "true": True, "0": False, "false": False}


def json_object(text: str) -> dict:
    """A flag's JSON object (``--acoustic '{"dim": 64}'``)."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(text)
    return value


def flag_type(annotation):
    """The argparse ``type`` of a TrainOptions field (None for a switch)."""
    kind = value_type(annotation)
    return {bool: None, int: int, float: float, str: str, tuple: str}.get(kind, json_object)


def flag_help(f) -> str:
    """A field's help text with its default and bounds."""
    if f.name in MODEL_SETTINGS:
        default = getattr(ModelConfig(), f.name)
        shown = [f"default {'on' if default is True else 'off' if default is False else default} for a new model"
                 if default not in (None, (), "") else "", "an init model keeps its own unless given"]
    else:
        default = f.default if f.default is not MISSING else None
        shown = [f"default {'on' if default is True else 'off' if default is False else default}"
                 if default not in (None, "") else ""]
    shown.append(bounds_text(f.metadata))
    extra = "; ".join(part for part in shown if part)
    return f"{f.metadata['help']} ({extra})" if extra else f.metadata["help"]


def build_parser() -> argparse.ArgumentParser:
    """One flag per TrainOptions field, plus --config; only the flags given end up in the parsed namespace."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     argument_default=argparse.SUPPRESS)
    parser.add_argument("--config", help="JSON preset (configs/*.json) holding any of these flags")
    types = typing.get_type_hints(TrainOptions)
    for f in fields(TrainOptions):
        kind = flag_type(types[f.name])
        if kind is None:
            parser.add_argument(f"--{f.name}", action=argparse.BooleanOptionalAction, help=flag_help(f))
        else:
            parser.add_argument(f"--{f.name}", type=kind, help=flag_help(f))
    return parser


def switch_spellings(argv: list[str], switches: set[str]) -> list[str]:
    """``--flag 1`` / ``--flag 0`` (and ``=1`` / ``=0``) of a switch rewritten as ``--flag`` / ``--no-flag``."""
    out, i = [], 0
    while i < len(argv):
        flag, eq, value = argv[i].partition("=")
        if flag in switches and not eq and i + 1 < len(argv) and argv[i + 1].lower() in LEGACY_SWITCH_VALUES:
            value, eq, i = argv[i + 1], "=", i + 1
        if flag in switches and eq:
            if value.lower() not in LEGACY_SWITCH_VALUES:
                out.append(argv[i])  # argparse reports it
            else:
                out.append(flag if LEGACY_SWITCH_VALUES[value.lower()] else "--no-" + flag[2:])
        else:
            out.append(argv[i])
        i += 1
    return out


def parse_flags(parser: argparse.ArgumentParser, argv: list[str]) -> dict:
    """The flags given (and only those), by option name; switches also as ``--flag 1`` / ``--flag 0``."""
    switches = {a.option_strings[0] for a in parser._actions if isinstance(a, argparse.BooleanOptionalAction)}
    return vars(parser.parse_args(switch_spellings(argv, switches)))


def main(argv=None) -> int:
    parser = build_parser()
    args = parse_flags(parser, sys.argv[1:] if argv is None else list(argv))
    options = {}
    if "config" in args:
        with open(args.pop("config"), encoding="utf-8") as f:
            options = json.load(f)
        unknown = set(options) - TrainOptions.field_names()
        if unknown:
            parser.error(f"unknown keys in the config: {sorted(unknown)}")
    options.update(args)
    missing = [k for k in ("train_set", "dev_set", "model_dir") if not options.get(k)]
    if missing:
        parser.error("missing " + ", ".join("--" + k for k in missing))
    try:  # a bad value (bounds), bad data, or a setting the model or this machine cannot take (--device ...)
        best = train(TrainOptions(**options))
    except (InputError, ModelFolderError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if best:
        print(json.dumps({"best_dev": {g: best[g]["overall"] for g in ("punct", "case", "boundary") if g in best}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
