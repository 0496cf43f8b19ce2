#!/usr/bin/env python
"""Average the weights of several fine-tuned models into one (a uniform "model soup", Wortsman et al. 2022;
checkpoint averaging as fairseq's average_checkpoints.py does it).

    python utils/build/average_models.py --models run_s1/best,run_s2/best,run_s3/best --output run_soup

What goes in: model folders (or training folders: their ``best/``) of one architecture fine-tuned from the same
starting weights: the same encoder, the same label vocabulary and the same switches (anything else is refused,
naming the folder that differs). What comes out: one model folder, written atomically, whose every floating
weight is the mean of theirs and whose decoding settings are the first model's. The result is one model, so
it predicts as fast as any of them; whether it predicts better is for the dev sets to say.
"""
import sys
from dataclasses import dataclass

import torch

from gector_punct.model.tagger import Seq2Labels
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.script import run_script

MUST_MATCH = ("transformer_model", "switches", "special_tokens_fix", "case_context", "acoustic")


def average_models(models: list[Seq2Labels], names: list[str]) -> Seq2Labels:
    """The first model, its floating weights replaced by the mean over ``models`` (integer buffers kept)."""
    first = models[0]
    states = [m.state_dict() for m in models]
    for model, state, name in zip(models[1:], states[1:], names[1:]):
        if model.vocab != first.vocab:
            raise ValueError(f"{name}: its label vocabulary differs from {names[0]}'s")
        for field in MUST_MATCH:
            if getattr(model.config, field) != getattr(first.config, field):
                raise ValueError(f"{name}: {field} {getattr(model.config, field)!r} differs from "
                                 f"{names[0]}'s {getattr(first.config, field)!r}")
        for key, value in states[0].items():
            if key not in state or state[key].shape != value.shape:
                raise ValueError(f"{name}: weight {key} is missing or has another shape than in {names[0]}")
    mean = {key: (torch.stack([s[key].float() for s in states]).mean(0).to(value.dtype)
                  if value.is_floating_point() else value)
            for key, value in states[0].items()}
    first.load_state_dict(mean)
    return first


@dataclass(kw_only=True)
class AverageFlags(Settings):
    models: str = flag(help="comma-separated model folders, two or more (full precision, not low-rank: compress the "
                            "average instead)")
    output: str = flag(help="where to write the averaged model folder")
    store_dtype: str = flag("float32", "weight precision of the written folder; float32 to compress it afterwards",
                            choices=("float32", "float16", "bfloat16"))


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, AverageFlags)
    args = p.settings(AverageFlags, p.parse_args(argv))
    names = [n for n in args.models.split(",") if n]
    if len(names) < 2:
        p.error("--models needs two folders or more")
    models = [Seq2Labels.load(n) for n in names]
    try:
        averaged = average_models(models, names)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    averaged.save(args.output, store_dtype=args.store_dtype)
    print(f"wrote {args.output}: the mean of {len(names)} models")
    return 0


if __name__ == "__main__":
    run_script(main)
