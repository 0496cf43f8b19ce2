#!/usr/bin/env python
"""Measure training throughput: subword tokens/s of the training loop's step (collate, forward, loss,
backward, clipping, optimizer update) against the bare encoder forward + backward pass over exactly the
same batches, already collated (the floor: what the encoder alone costs).

    python utils/bench/benchmark_training.py                         # MiniLM-L6, the examples as training data
    python utils/bench/benchmark_training.py --train_set train.tagged --batches 30 --batch_size 32 --max_len 128

Data comes pre-tokenised (``DatasetReader.encode`` runs once before the loop, as in train.py), so the loop's
only data work per step is collating a batch of windows; that cost is printed on its own.
"""
import os
import random
import resource
import tempfile
import time
from dataclasses import dataclass

import torch

from gector_punct.dataset.preprocess import preprocess_files
from gector_punct.encoders.runtime import autocast
from gector_punct.model.windows import collate
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.text.tags import make_source
from gector_punct.training.fine_tuning import freeze_encoder
from gector_punct.training.trainer import Trainer, TrainOptions
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def example_tagged(directory: str) -> str:
    """The repository's example targets, as lower-case sources + tags, three times over."""
    with open(os.path.join(ROOT, "examples", "train.tgt"), encoding="utf-8") as f:
        targets = [line.strip() for line in f if line.strip()] * 3
    src, tgt = os.path.join(directory, "bench.src"), os.path.join(directory, "bench.tgt")
    with open(src, "w", encoding="utf-8") as f:
        f.writelines(make_source(t) + "\n" for t in targets)
    with open(tgt, "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in targets)
    lines, _ = preprocess_files(src, tgt)
    path = os.path.join(directory, "bench.tagged")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)
    return path


def timed_run(run, warm: list, timed: list, device: torch.device) -> float:
    """Seconds that ``run`` takes over the ``timed`` batches, after the ``warm`` ones."""
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    for batch in warm:
        run(batch)
    sync()
    started = time.perf_counter()
    for batch in timed:
        run(batch)
    sync()
    return time.perf_counter() - started


def loop_seconds(trainer: Trainer, warm: list, timed: list) -> float:
    """The training loop's step + update over those batches (all encoder layers trained)."""
    trainer.model.train()
    freeze_encoder(trainer.model, False)

    def run(batch):
        trainer.step(batch, 1)
        trainer.update(0, False)

    return timed_run(run, warm, timed, trainer.device)


def floor_seconds(trainer: Trainer, warm: list, timed: list) -> float:
    """The bare encoder's forward + backward over the same batches, collated beforehand."""
    encoder, windows = trainer.model.encoder, trainer.data.windows
    collated = [{k: v.to(trainer.device) for k, v in collate([windows[i] for i in b], trainer.model.pad_id).items()}
                for b in warm + timed]

    def run(batch):
        with autocast(trainer.device):
            hidden = encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        hidden.float().square().mean().backward()
        encoder.zero_grad(set_to_none=True)

    return timed_run(run, collated[: len(warm)], collated[len(warm):], trainer.device)


def collation_seconds(trainer: Trainer, timed: list) -> float:
    """Per batch: what the step spends turning its windows and labels into tensors."""
    windows, labels = trainer.data.windows, trainer.data.labels
    started = time.perf_counter()
    for b in timed:
        collate([windows[i] for i in b], trainer.model.pad_id, [labels[i] for i in b])
    return (time.perf_counter() - started) / len(timed)


@dataclass(kw_only=True)
class BenchmarkTrainingFlags(Settings):
    train_set: str | None = flag(None, "preprocessed training file", default_text="the examples, tagged")
    transformer_model: str | None = reused(TrainOptions, "transformer_model")
    batch_size: int = reused(TrainOptions, "batch_size")
    max_len: int | None = reused(TrainOptions, "max_len")
    batches: int = flag(20, "timed batches per measurement", min=1)
    threads: int | None = flag(None, "torch CPU threads", min=1, default_text="torch's choice")
    device: str | None = reused(TrainOptions, "device")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, BenchmarkTrainingFlags)
    args = p.settings(BenchmarkTrainingFlags, p.parse_args(argv))
    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        train_set = args.train_set or example_tagged(tmp)
        trainer = Trainer(TrainOptions(train_set=train_set, dev_set=train_set, model_dir=tmp, n_epoch=1,
                                       transformer_model=args.transformer_model, batch_size=args.batch_size,
                                       max_len=args.max_len, progress=False, device=args.device))
    chosen = trainer.data.sample(random.Random(0))
    batches = [chosen[i: i + args.batch_size] for i in range(0, len(chosen), args.batch_size)]
    batches = [b for b in batches if len(b) == args.batch_size][: args.batches + 2]
    if len(batches) < 3:
        p.error("too little training data for the requested batch size")
    warm, timed = batches[:2], batches[2:]
    tokens = sum(len(trainer.data.windows[i].input_ids) for b in timed for i in b)
    loop, floor = loop_seconds(trainer, warm, timed), floor_seconds(trainer, warm, timed)
    collation = collation_seconds(trainer, timed)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    config = trainer.model.config
    print(f"device: {trainer.device}, torch threads: {torch.get_num_threads()}, encoder: {config.transformer_model}")
    print(f"{len(timed)} batches of {args.batch_size} windows (max_len {config.max_len}), {tokens} subword tokens, "
          f"{len(trainer.data.windows)} training windows")
    print(f"training loop: {tokens / loop:,.0f} tokens/s ({loop:.1f} s)")
    print(f"collation: {1000 * collation:.2f} ms per batch ({100 * collation * len(timed) / loop:.1f}% of the loop)")
    print(f"bare encoder forward+backward: {tokens / floor:,.0f} tokens/s ({floor:.1f} s)")
    print(f"ratio loop / floor: {floor / loop:.2f}")
    print(f"peak RSS: {rss_mb:,.0f} MB")
    return 0


if __name__ == "__main__":
    run_script(main)
