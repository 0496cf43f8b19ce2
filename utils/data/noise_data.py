#!/usr/bin/env python
"""A tagged file in, the same lines with ASR-like noise out: a dev set for measuring F1 on lines as a recogniser
would give them (word swaps, drops and insertions; ``gector_punct/dataset/asr_noise.py``).

    python utils/data/noise_data.py --input W/dev.tagged --output W/dev_asr.tagged [--asr_deletion 0.02 ...]

Every line is noised (``--asr_noise_share`` 1), with the rate and seed flags ``train.py`` takes; a line that
cannot be (not an ASR-like source: kept disfluencies, marks in the input) or whose edits changed nothing is
written as it is. Lines keep their order (empty ones are left out); the input's ``.tasks`` sidecar is copied
beside the output. The output is written atomically; how many lines changed goes to stderr.
"""
import os
import shutil
import sys
from dataclasses import dataclass

from gector_punct.dataset.asr_noise import AsrNoise, noised_copy
from gector_punct.dataset.reader import DatasetReader
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write, check_input_file
from gector_punct.text.tags import format_tagged
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class NoiseDataFlags(Settings):
    input: str = flag(help="tagged file (utils/preprocess_data.py output)")
    output: str = flag(help="the noised tagged file to write")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, NoiseDataFlags)
    add_flags(p, AsrNoise, skip=("asr_noise_share",))
    raw = p.parse_args(argv)
    args, noise = p.settings(NoiseDataFlags, raw), p.settings(AsrNoise, raw, asr_noise_share=1.0)
    check_input_file(args.input)
    instances = [instance for _, instance in DatasetReader().tagged_instances(args.input)]  # every line checked
    if not instances:
        raise InputError(f"{args.input}: no instances (empty file?)")
    copies = [noised_copy(instance, noise) for instance in instances]
    with atomic_write(args.output) as out:
        for chosen in (copy or instance for copy, instance in zip(copies, instances)):
            out.write(format_tagged(chosen.words, chosen.tags) + "\n")
    if os.path.exists(args.input + ".tasks"):
        shutil.copyfile(args.input + ".tasks", args.output + ".tasks")
    changed = sum(copy is not None for copy in copies)
    print(f"{changed} of {len(instances)} lines noised -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
