"""The training loop: preprocessed train/dev files in, a model folder out.

``train(options) -> dict`` (the best dev result). ``options`` is a ``TrainOptions``; ``train.py`` fills it
from flags and ``--config`` JSON. Writes to ``model_dir``: ``best/`` (the checkpoint with the highest dev
F1, see ``metrics.selection_f1``), ``last/`` (the newest, with ``trainer_state.json`` +
``optimizer.safetensors`` so that ``--resume`` continues a killed run), ``metrics.jsonl`` (one line per epoch).

``class_weight_power`` p > 0 weights each punctuation label's cross-entropy by (count of $KEEP / its
count) ** p (``label_weights``), so that rare marks (?) are not drowned by $KEEP.

Schedule, as in GECToR: the first ``cold_steps_count`` epochs train only the heads at ``cold_lr``; then the
encoder (or its top ``train_layers`` layers) trains too at ``lr`` with linear warm-up and decay. Each
optimizer update sums ``accumulation_size`` batches of ``batch_size`` windows. Early stop after
``patience`` epochs without a better dev F1. On CUDA the forward runs under bf16 (or fp16 + loss scaling).

Distributed: started by ``torchrun --nproc_per_node N train.py ...`` (``WORLD_SIZE`` > 1), each process
takes a contiguous 1/N of every batch, so ``batch_size`` stays the *global* batch and N processes follow
the same trajectory as one process (gradients are averaged over the global batch's words, not per process).
DistributedDataParallel over gloo on CPU, nccl on GPU; only rank 0 evaluates, writes checkpoints and logs.

Audio (UniPunc): ``acoustic`` settings make an audio model (``init_model`` adds them to a trained text model,
e.g. models/default_en with ``train_layers 0``: only the acoustic parts, the bootstrapper and the heads
train). Instances with audio (see ``reader``) are read and, with a frozen extractor, their features
extracted once before the first epoch (to ``audio_cache`` on disk, or kept in memory); batches mix samples
with and without audio. ``metrics.jsonl`` records ``train_samples_per_s`` and ``audio_extracted``.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import time
from dataclasses import asdict, dataclass, fields

import torch
import torch.distributed as dist
from safetensors.torch import load_file, save_file
from tqdm import tqdm

from .audio_data import AudioLines
from .bootstrapper import text_fractions
from .encoding import DEFAULT_ENCODER, TextEncoder, WindowedBatcher
from .io import atomic_write
from .metrics import labels_from_words, score, selection_f1
from .model import Seq2Labels
from .predictor import Punctuator
from .reader import DatasetReader, EncodedData, Instance
from .tags import CASE_UNKNOWN, apply_case
from .vocabulary import Vocabulary


@dataclass
class TrainOptions:
    train_set: str = ""
    dev_set: str = ""
    model_dir: str = ""
    transformer_model: str = DEFAULT_ENCODER
    encoder_config: dict | None = None  # a random encoder of this config instead of pretrained weights (tests)
    special_tokens_fix: int = 0
    max_len: int = 128
    pieces_per_token: int = 5
    window_overlap: int | None = None
    tn_prob: float = 0.0
    targets: bool = False
    batch_size: int = 32
    accumulation_size: int = 1
    n_epoch: int = 5
    cold_steps_count: int = 0
    cold_lr: float = 1e-3
    lr: float = 5e-5
    warmup: float = 0.06
    weight_decay: float = 0.01
    dropout: float = 0.1
    label_smoothing: float = 0.0
    class_weight_power: float = 0.0
    train_layers: int | None = None
    freeze_embeddings: bool = False
    store_dtype: str = "float32"
    patience: int = 3
    updates_per_epoch: int = 0
    min_count: int = 1
    seed: int = 1
    resume: bool = False
    skip_bad: bool = False
    device: str | None = None
    progress: bool = True
    acoustic: dict | None = None  # UniPunc settings (acoustic.DEFAULTS): an audio model
    init_model: str = ""  # start from this trained model folder (its vocabulary, encoder and heads)
    audio_cache: str = ""  # folder of cached acoustic features ("": in memory)

    @classmethod
    def field_names(cls) -> set[str]:
        return {f.name for f in fields(cls)}


MAX_CLASS_WEIGHT = 10.0  # a mark seen a handful of times must not dominate the loss


def label_weights(data: EncodedData, n_labels: int, power: float) -> torch.Tensor:
    """Cross-entropy weights of the punctuation labels: (count of $KEEP / count of the label) ** power,
    at most MAX_CLASS_WEIGHT, counted over the training windows that hold an edit. On the default model's
    training text with power 0.5: comma (6.6% of words) 3.6, period (6.5%) 3.6, question mark (0.47%) 10,
    and every rarer label the cap, 10."""
    counts = torch.zeros(n_labels)
    for group, keep_only in zip(data.groups, data.all_keep):
        if not keep_only:
            for i in group:
                counts += torch.bincount(torch.tensor([t[0] for t in data.labels[i]], dtype=torch.long),
                                         minlength=n_labels).float()
    keep = counts[0].clamp(min=1)  # $KEEP is always label 0 (Vocabulary.from_tags)
    return (keep / counts.clamp(min=1)).pow(power).clamp(min=1.0, max=MAX_CLASS_WEIGHT)


def _written(instance: Instance, tags) -> list[str]:
    return [t.prepend + apply_case(w, t.case) + t.append for w, t in zip(instance.words, tags)]


def evaluate_instances(punctuator: Punctuator, instances: list[Instance], use_audio: bool = True) -> dict:
    """Dev metrics: predict tags for the source words (with their audio, if any) and score them against the
    gold tags."""
    audio = [i.audio for i in instances] if use_audio and any(i.audio for i in instances) else None
    return score_tags(instances, punctuator.predict_tags([i.words for i in instances], audio))


def score_tags(instances: list[Instance], predicted: list[list]) -> dict:
    ref, pred = [], []
    for instance, tags in zip(instances, predicted):
        cased = not any(t.case == CASE_UNKNOWN for t in instance.tags)  # case is scored where it is known
        ref.extend(labels_from_words(_written(instance, instance.tags), cased))
        pred.extend(labels_from_words(_written(instance, tags), cased))
    return score(ref, pred)


class Trainer:
    def __init__(self, options: TrainOptions):
        self.o = options
        self.world, self.rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
        device = options.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self.world > 1:
            if device.startswith("cuda"):
                device = f"cuda:{os.environ.get('LOCAL_RANK', '0')}"
                torch.cuda.set_device(device)
            if not dist.is_initialized():
                dist.init_process_group("nccl" if device.startswith("cuda") else "gloo")
        self.device = torch.device(device)
        self.is_main = self.rank == 0
        random.seed(options.seed)
        torch.manual_seed(options.seed)  # the same initial weights in every process
        reader = DatasetReader(options.tn_prob, options.targets, options.skip_bad)
        self.train_instances = reader.read(options.train_set)
        self.dev_instances = DatasetReader(skip_bad=options.skip_bad).read(options.dev_set)
        self.last_dir = os.path.join(options.model_dir, "last")
        self.state = {"epoch": 0, "best_f1": -1.0, "bad_epochs": 0, "step": 0}
        if options.resume and os.path.exists(os.path.join(self.last_dir, "config.json")):
            self.model = Seq2Labels.load(self.last_dir)
            with open(os.path.join(self.last_dir, "trainer_state.json"), encoding="utf-8") as f:
                self.state = json.load(f)
        elif options.init_model:
            self.model = Seq2Labels.load(options.init_model)
            if options.acoustic and self.model.acoustic is None:
                self.model.add_acoustic(options.acoustic)
        else:
            vocab = Vocabulary.from_tags((i.tags for i in self.train_instances), options.min_count)
            config = {k: getattr(options, k) for k in ("max_len", "pieces_per_token", "window_overlap", "dropout",
                                                          "label_smoothing", "store_dtype")}
            if options.acoustic:
                config["acoustic"] = options.acoustic
            self.model = Seq2Labels.create(options.transformer_model, vocab, options.special_tokens_fix,
                                           options.encoder_config, **config)
        self.model.to(self.device)
        if options.train_layers is not None:
            self.model.freeze_encoder(False, options.train_layers, options.freeze_embeddings)
            before = self.model.stored_keys if options.init_model else set()
            trained = {k for k, p in self.model.named_parameters() if p.requires_grad}
            # Started from a trained model: what it stored (its fine-tuned encoder) must be stored again.
            self.model.stored_keys = None if before is None else before | trained
            if options.special_tokens_fix:
                self.model.stored_keys.add("encoder.embeddings.word_embeddings.weight")
        text_encoder = TextEncoder(self.model.tokenizer, options.max_len, options.pieces_per_token, options.window_overlap)
        self.data = reader.encode(self.train_instances, text_encoder, self.model.vocab)
        if options.class_weight_power:
            weights = label_weights(self.data, self.model.vocab.size("labels"), options.class_weight_power)
            self.model.class_weights = {"labels": weights.to(self.device)}
        self.audio = self.fractions = None
        if self.model.acoustic is not None:  # line i of the encoded data: instance i, then the restored copies
            lines = self.train_instances + ([i.restored() for i in self.train_instances] if options.targets else [])
            self.audio = AudioLines(self.model.acoustic, [i.audio for i in lines], [i.origin for i in lines],
                                    options.audio_cache or None, options.skip_bad)
            self.fractions = [text_fractions(i.words) for i in lines]
            self.audio.prepare(range(len(lines)))  # bad audio fails here, before any training
        self.pad_id = self.model.tokenizer.pad_token_id or 0
        params = [p for p in self.model.parameters()]
        self.optimizer = torch.optim.AdamW(params, lr=options.lr, weight_decay=options.weight_decay)
        if options.resume and os.path.exists(os.path.join(self.last_dir, "optimizer.safetensors")):
            self._load_optimizer(os.path.join(self.last_dir, "optimizer.safetensors"))
        use_cuda = self.device.type == "cuda"
        self.amp_dtype = (torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16) if use_cuda else None
        self.scaler = torch.amp.GradScaler("cuda") if self.amp_dtype == torch.float16 else None
        self.ddp = None
        torch.manual_seed(options.seed * 100 + self.rank)  # dropout differs between processes

    # ---- the loop ---------------------------------------------------------------------------------

    def batches_per_epoch(self) -> int:
        o = self.o
        if o.updates_per_epoch:
            return o.updates_per_epoch * o.accumulation_size
        return max(1, -(-len(self.data.windows) // o.batch_size))

    def lr_at(self, epoch: int, step: int) -> float:
        o = self.o
        if epoch < o.cold_steps_count:
            return o.cold_lr
        total = max(1, (o.n_epoch - o.cold_steps_count) * self.batches_per_epoch() // o.accumulation_size)
        warm = max(1, int(o.warmup * total))
        return o.lr * min(step / warm, max(0.0, (total - step) / max(1, total - warm)))

    def train(self) -> dict:
        o = self.o
        best = None
        for epoch in range(self.state["epoch"], o.n_epoch):
            cold = epoch < o.cold_steps_count
            self.model.freeze_encoder(cold, o.train_layers, o.freeze_embeddings)
            if self.world > 1:  # wrapped anew: DDP fixes its set of trained parameters when built
                # A batch share with no audio leaves the down-sampler without a gradient.
                self.ddp = torch.nn.parallel.DistributedDataParallel(
                    self.model, find_unused_parameters=self.model.acoustic is not None)
            rng = random.Random(o.seed * 1000 + epoch)  # per-epoch seed: a resumed run sees the same data
            chosen = self.data.sample(rng)
            batches = [chosen[i: i + o.batch_size] for i in range(0, len(chosen), o.batch_size)]
            batches = [b for b in batches[: self.batches_per_epoch()] if len(b) >= self.world]
            started, loss_sum, words = time.time(), 0.0, 0
            extracted = self.audio.computed if self.audio else 0
            self.model.train()
            bar = tqdm(batches, desc=f"epoch {epoch + 1}/{o.n_epoch}{' (cold)' if cold else ''}",
                       disable=not (o.progress and self.is_main), leave=False)
            for k, batch in enumerate(bar):
                last_of_update = (k + 1) % o.accumulation_size == 0 or k + 1 == len(batches)
                loss = self.step(batch, o.accumulation_size, sync=last_of_update)
                loss_sum += loss
                words += sum(len(self.data.windows[i].word_starts) for i in batch)
                if last_of_update:
                    self.update(epoch, cold)
                bar.set_postfix(loss=f"{loss_sum / (k + 1):.4f}")
            result = self.evaluate() if self.is_main else {}
            f1 = self._from_main(selection_f1(result) if self.is_main else 0.0)
            improved = f1 > self.state["best_f1"]
            self.state.update(epoch=epoch + 1, bad_epochs=0 if improved else self.state["bad_epochs"] + 1)
            if improved:
                self.state["best_f1"] = f1
                best = result
            if self.is_main:  # the other processes only train
                if improved:
                    self.model.save(os.path.join(o.model_dir, "best"))
                self._save_last()
                seconds = time.time() - started
                record = {"epoch": epoch + 1, "cold": cold, "train_loss": loss_sum / max(1, len(batches)),
                          "selection_f1": f1, "best": improved, "seconds": seconds,
                          "train_words_per_s": words / max(1e-9, seconds),
                          "train_samples_per_s": sum(map(len, batches)) / max(1e-9, seconds),
                          "audio_extracted": (self.audio.computed - extracted) if self.audio else 0, "dev": result}
                with open(os.path.join(o.model_dir, "metrics.jsonl"), "a", encoding="utf-8") as log:
                    log.write(json.dumps(record) + "\n")
                print(f"epoch {epoch + 1}: loss {record['train_loss']:.4f}  dev punct F1 "
                      f"{result['punct']['overall']['f1']:.1f}  selection F1 {f1:.2f}{'  (best)' if improved else ''}",
                      flush=True)
            if self.state["bad_epochs"] >= o.patience:
                if self.is_main:
                    print(f"early stop: {o.patience} epochs without a better dev F1", flush=True)
                break
        if self.world > 1:
            dist.barrier()  # the others wait for rank 0's last checkpoint before the run ends
        return best or {}

    def step(self, batch: list[int], accumulation: int, sync: bool = True) -> float:
        """Forward + backward of this process's share of ``batch``; returns the (share of the) loss."""
        share = batch[self.rank * len(batch) // self.world: (self.rank + 1) * len(batch) // self.world]
        batcher = WindowedBatcher(self.data.windows, len(share), pad_id=self.pad_id, labels=self.data.labels, sort=False)
        tensors = batcher.collate(share)
        if self.audio is not None:
            tensors.update(self.audio.batch(self.data.windows, share, self.fractions))
        tensors = {k: v.to(self.device, non_blocking=True) for k, v in tensors.items()}
        autocast = torch.autocast("cuda", dtype=self.amp_dtype) if self.amp_dtype else contextlib.nullcontext()
        no_sync = self.ddp.no_sync() if self.ddp is not None and not sync else contextlib.nullcontext()
        with no_sync:
            with autocast:
                out = (self.ddp or self.model)(**tensors)
            counts = out["loss_counts"].detach()
            if self.world > 1:  # each head's mean over the global batch's words; DDP then averages over processes
                dist.all_reduce(counts)
            loss = (out["loss_sums"] / counts.clamp(min=1)).sum() * self.world / accumulation
            (self.scaler.scale(loss) if self.scaler else loss).backward()
        return loss.item() * accumulation

    def _from_main(self, value: float) -> float:
        """Rank 0's value in every process (the dev F1 that decides checkpoints and early stopping)."""
        if self.world == 1:
            return value
        tensor = torch.tensor([value], dtype=torch.float64, device=self.device)
        dist.broadcast(tensor, 0)
        return float(tensor.item())

    def update(self, epoch: int, cold: bool) -> None:
        """One optimizer update from the accumulated gradients, at the schedule's learning rate."""
        if not cold:
            self.state["step"] += 1
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr_at(epoch, self.state["step"])
        if self.scaler:
            self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        if self.scaler:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def evaluate(self) -> dict:
        self.model.eval()
        punctuator = Punctuator([self.model], 0.0, 0.0, batch_size=self.o.batch_size * 2, device=str(self.device),
                                audio_cache=self.o.audio_cache or None, skip_bad_audio=self.o.skip_bad)
        return evaluate_instances(punctuator, self.dev_instances)

    # ---- checkpoints ------------------------------------------------------------------------------

    def _save_last(self) -> None:
        self.model.save(self.last_dir, store_dtype="float32")  # full precision to resume from
        state = self.optimizer.state_dict()
        tensors = {f"{i}.{k}": v.contiguous() for i, s in state["state"].items() for k, v in s.items()
                   if isinstance(v, torch.Tensor)}
        tmp = os.path.join(self.last_dir, ".optimizer.safetensors.tmp")
        save_file(tensors, tmp)
        os.replace(tmp, os.path.join(self.last_dir, "optimizer.safetensors"))
        with atomic_write(os.path.join(self.last_dir, "trainer_state.json")) as out:
            json.dump(dict(self.state, options=asdict(self.o), param_groups=state["param_groups"]), out, indent=2)

    def _load_optimizer(self, path: str) -> None:
        tensors = load_file(path)
        state: dict = {}
        for key, value in tensors.items():
            index, name = key.split(".", 1)
            state.setdefault(int(index), {})[name] = value.to(self.device) if name != "step" else value
        with open(os.path.join(self.last_dir, "trainer_state.json"), encoding="utf-8") as f:
            groups = json.load(f)["param_groups"]
        self.optimizer.load_state_dict({"state": state, "param_groups": groups})


def train(options: TrainOptions) -> dict:
    os.makedirs(options.model_dir, exist_ok=True)
    try:
        return Trainer(options).train()
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
