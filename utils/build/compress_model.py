#!/usr/bin/env python
"""Store a fine-tuned model compactly: each changed encoder matrix as a low-rank delta (truncated SVD)
over the pip-installed pretrained encoder, in float16 (or int8 factors: --lowrank_bits 8); heads and
vectors as they are (gector_punct/model/storage.py).

    python utils/build/compress_model.py --model_path work/model/best --output models/default_en --dev_set dev.tagged

Tries the ranks in --ranks from small to large; each candidate is saved, loaded back exactly as it will
ship, and scored on --dev_set. The first whose dev F1 (the training selection F1) is within --max_drop of
the full model's is kept. Prints every candidate's size and F1.
"""
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass

from gector_punct.scoring.evaluation import evaluate_dev_sets
from gector_punct.scoring.metrics import selection_f1
from gector_punct.model.tagger import Seq2Labels
from gector_punct.dataset.reader import DatasetReader
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.script import run_script


def folder_size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


@dataclass(kw_only=True)
class CompressFlags(Settings):
    model_path: str = flag(help="the fully stored fine-tuned model folder")
    output: str = flag(help="where to write the compact model folder")
    dev_set: str = flag(help="preprocessed dev file to check the compact model on (several, comma-separated: the mean "
                             "of their F1s, as train.py)")
    ranks: list[int] = flag([16, 32, 48, 64, 96], "ranks to try, smallest first", min=1)
    lowrank_bits: int = flag(16, "bits per stored factor value: 16 (float16) or 8 (int8 with one scale per rank: half "
                                 "the bytes, so about twice the rank in the same size)", choices=(16, 8))
    max_drop: float = flag(0.5, "largest dev F1 loss allowed, in points", min=0)
    max_mb: float = flag(10.0, "largest folder allowed, in MiB", above=0)
    base_tokenizer: bool = flag(False, "leave the tokenizer out: the model loads its base encoder's (for a large "
                                       "tokenizer such as multilingual-e5-small's 17 MB); off: store it in the folder")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, CompressFlags)
    args = p.settings(CompressFlags, p.parse_args(argv))

    instances = DatasetReader().read_each(args.dev_set)
    full = Seq2Labels.load(args.model_path)
    full_result = evaluate_dev_sets(full, instances, batch_size=64)
    full_f1 = selection_f1(full_result)
    print(f"full model: dev F1 {full_f1:.2f} (punct {full_result['punct']['overall']['f1']:.2f}), "
          f"{folder_size(args.model_path) / 2**20:.1f} MiB")
    work = tempfile.mkdtemp(prefix="compress.")
    try:
        for rank in sorted(args.ranks):
            candidate = os.path.join(work, f"rank{rank}")
            full.save(candidate, store_dtype="float16", lowrank=rank, base_tokenizer=args.base_tokenizer,
                      lowrank_bits=args.lowrank_bits)
            result = evaluate_dev_sets(Seq2Labels.load(candidate), instances, batch_size=64)
            f1, size = selection_f1(result), folder_size(candidate) / 2**20
            print(f"rank {rank}: dev F1 {f1:.2f} (punct {result['punct']['overall']['f1']:.2f}, "
                  f"drop {full_f1 - f1:.2f}), {size:.1f} MiB", flush=True)
            if full_f1 - f1 <= args.max_drop and size <= args.max_mb:
                if os.path.exists(args.output):
                    shutil.rmtree(args.output)
                shutil.move(candidate, args.output)
                print(f"kept rank {rank} -> {args.output}")
                return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("error: no rank kept the dev F1 within the allowed drop and size", file=sys.stderr)
    return 1


if __name__ == "__main__":
    run_script(main)
