#!/usr/bin/env python
"""Label training files with a teacher's soft labels, for distillation (``train.py --soft_labels``).

    python utils/data/label_teacher.py --train_set W/distill/train.tagged --out_dir W/distill/teacher
    python utils/data/label_teacher.py --train_set A.tagged,B.tagged --out_dir W/t --model_path accurate_en default_en

Each file gets a folder ``OUT_DIR/<file name>.soft`` of shards (``gector_punct/training/soft_labels.py``
says what a shard holds): per word, the teacher's likeliest punctuation and case labels with their
probabilities, and its detection probability. A killed run is resumed by running the same command again:
finished shards are never redone; a folder labelled by another teacher (told by its members' weights, the
sha256 of each ``model.safetensors``, not by its name: ``ensemble_en`` after a member is replaced is another
teacher), ``--top_k``, ``--shard_lines`` or another version of the file is refused. Shards are written in
file order; ``--max_lines N`` labels the first
N lines (a share to train on: ``head -n N``; the trainer finds a line's labels by its words, in any file).
``--asr_noise_share`` and the other ``--asr_*`` flags, given as to ``train.py``, label the ASR-like noised
copies the trainer makes of the lines alone (``gector_punct/dataset/asr_noise.py``; label the lines themselves
without them, into another folder, and train with both); a folder labelled with other
noise settings is refused.
"""
import os
import sys
from dataclasses import dataclass

from gector_punct.dataset.asr_noise import AsrNoise
from gector_punct.engines.graphs import file_digest
from gector_punct.model.config import WEIGHTS, model_folders
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct.training.soft_labels import label_file
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class LabelFlags(Settings):
    train_set: str = flag(help="tagged training file(s) to label (utils/preprocess_data.py output), comma-separated")
    out_dir: str = flag(help="folder of the labels: one <file name>.soft folder per file")
    top_k: int = flag(6, "labels kept per word and head (the likeliest, renormalised)", min=1, max=64)
    shard_lines: int = flag(2000, "lines per shard (the unit of resuming)", min=1)
    max_lines: int | None = flag(None, "label only each file's first lines (whole shards; a later run with more "
                                       "labels the rest)", min=1, default_text="all")
    threads: int | None = reused(PredictionSettings, "threads")


def teacher_identity(prediction: PredictionSettings) -> str:
    """The teacher as its members' weights: ``sha256:...`` of each member's model.safetensors, in order."""
    folders = model_folders(model_paths(prediction.model_path, prediction.tasks))
    return ",".join("sha256:" + file_digest(os.path.join(folder, WEIGHTS)) for folder in folders)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, LabelFlags)
    add_flags(p, AsrNoise)
    add_flags(p, PredictionSettings, only=("model_path", "engine", "precision", "batch_size", "device"))
    raw = p.parse_args(argv)
    raw.model_path = raw.model_path or ["ensemble_en"]  # the teacher: by default the best English model
    args, prediction = p.settings(LabelFlags, raw), p.settings(PredictionSettings, raw)
    noise = p.settings(AsrNoise, raw)
    punctuator = load_punctuator(prediction, threads=args.threads)
    teacher = teacher_identity(prediction)
    for path in filter(None, args.train_set.split(",")):
        folder = label_file(punctuator, path, args.out_dir, teacher, args.top_k, args.shard_lines, args.max_lines,
                            log=lambda text: print(text, file=sys.stderr, flush=True), noise=noise)
        print(folder)
    return 0


if __name__ == "__main__":
    run_script(main)
