"""The training loop: preprocessed train/dev files in, a model folder out.

``train(options) -> dict`` (the best dev result). ``options`` is a ``TrainOptions`` (``options``); ``train.py``
fills it from flags and ``--config`` JSON. Writes to ``model_dir``: ``best/`` (the checkpoint with the highest dev
F1, see ``metrics.selection_f1``, decoded with ``DecodeConfig.neutral()``), ``last/`` (the newest, with
``trainer_state.json`` + ``optimizer.safetensors`` so that ``--resume`` continues a killed run),
``metrics.jsonl`` (one line per epoch).

Model settings (the ``ModelConfig`` fields) given in the options make a new model's config; left out
(None), they take ``ModelConfig``'s defaults. With ``init_model`` the trained model's settings stay unless
given: adjustable ones (windows, dropout, label smoothing, storage precision) are applied, an acoustic part
is added to a text model, and any other that differs is refused (``fine_tuning.adjust``).
``class_weight_power`` p > 0 weights each punctuation label's cross-entropy by (count of $KEEP / its
count) ** p, at most ``MAX_CLASS_WEIGHT``, so that rare marks (?) are not drowned by $KEEP.

Schedule, as in GECToR: the first ``cold_steps_count`` epochs train only the heads at ``cold_lr``; then the
encoder (or its top ``train_layers`` layers) trains too at ``lr`` with linear warm-up and decay. Each
optimizer update sums ``accumulation_size`` batches of ``batch_size`` windows. AdamW decays by
``weight_decay`` the weight matrices and embedding tables, not the LayerNorm weights nor the biases (with
``decay_norms``: every parameter; ``parameter_groups``). Early stop after ``patience`` epochs without a
better dev F1. On CUDA the forward runs under autocast (``runtime``).

Distributed: started by ``torchrun --nproc_per_node N train.py ...`` (``WORLD_SIZE`` > 1), each process
takes a contiguous 1/N of every batch, so ``batch_size`` stays the *global* batch and N processes follow
the same trajectory as one process (gradients are averaged over the global batch's words, not per process).
DistributedDataParallel over gloo on CPU, nccl on GPU; only rank 0 evaluates, writes checkpoints and logs.

Switching tokens (seed 001): ``train_set`` / ``dev_set`` may name several files (comma-separated), each with
its tasks (``reader``); a training file named n times is drawn n times as often; ``switches`` gives the
model one token per task. An ``init_model`` gains the labels the data has and it lacks (``$DELETE``).
``teachers`` adds single-task models' soft labels to the punctuation loss (``distillation.Teachers``);
``soft_labels``, a stored teacher's soft labels to every head's (``soft_labels.SoftLabels``). ``asr_noise_share``
adds ASR-like noised copies of a share of the training lines (``DatasetReader.with_asr_noise``).

Audio (UniPunc): instances with audio (see ``reader``) are read and, with a frozen extractor, their features
extracted once before the first epoch (to ``audio_cache`` on disk, or kept in memory); batches mix samples
with and without audio. ``metrics.jsonl`` records ``train_samples_per_s`` and ``audio_extracted``.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import time
from dataclasses import asdict

import torch
import torch.distributed as dist
from tqdm import tqdm

from gector_punct.model.audio_windows import AudioLines
from gector_punct.model.batch import Batch
from gector_punct.audio.bootstrapper import text_fractions
from gector_punct.training.checkpoint import load_optimizer, save_checkpoint
from gector_punct.training.distillation import Teachers
from gector_punct.training.soft_labels import SoftLabels
from gector_punct.model.windows import collate
from gector_punct.scoring.evaluation import evaluate_dev_sets
from gector_punct.text.files import atomic_write, recover_dir
from gector_punct.scoring.metrics import selection_f1
from gector_punct.model.tagger import Seq2Labels
from gector_punct.training.options import TrainOptions
from gector_punct.dataset.reader import DatasetReader, EncodedData, Instance
from gector_punct.training.fine_tuning import freeze_encoder, starting_model, train_only_top_layers
from gector_punct.encoders.runtime import autocast, grad_scaler, pick_device
from gector_punct.text.tags import DELETE, KEEP
from gector_punct.model.vocabulary import HEADS, PUNCT_HEAD, Vocabulary

MAX_CLASS_WEIGHT = 10.0  # a mark seen a handful of times must not dominate the loss


def label_weights(data: EncodedData, vocab: Vocabulary, power: float) -> torch.Tensor:
    """Cross-entropy weights of the punctuation labels: (count of $KEEP / count of the label) ** power,
    between 1 and MAX_CLASS_WEIGHT, counted over the training windows that hold an edit. Marks are counted
    where the punc task is on; with it off only ``$DELETE`` is (what such a window teaches about marks,
    ``off_tasks``, leaves the marks' weights alone)."""
    n_labels = vocab.size(PUNCT_HEAD.namespace)
    delete = vocab.index(PUNCT_HEAD.namespace, DELETE)
    counts = torch.zeros(n_labels)
    for instance, group in zip(data.instances, data.groups):
        if instance.all_keep:
            continue
        marks = "punc" in instance.tasks
        for i in group:
            known = [t.punct for t in data.labels[i] if t.punct >= 0 and (marks or t.punct == delete)]
            counts += torch.bincount(torch.tensor(known, dtype=torch.long), minlength=n_labels).float()
    keep = counts[vocab.index(PUNCT_HEAD.namespace, KEEP)].clamp(min=1)
    return (keep / counts.clamp(min=1)).pow(power).clamp(min=1.0, max=MAX_CLASS_WEIGHT)


def parameter_groups(model: torch.nn.Module, weight_decay: float, decay_norms: bool) -> list[dict]:
    """AdamW's parameter groups: with ``decay_norms`` one, every parameter decayed by ``weight_decay``;
    without, the LayerNorm weights and every bias (scales and shifts, which decay only pulls towards an
    arbitrary 0) in a second group with no decay. Shared parameters (tied tables) are listed once."""
    norms = {id(p) for m in model.modules() if isinstance(m, torch.nn.LayerNorm) for p in m.parameters(recurse=False)}
    decayed, kept = [], []
    for name, param in model.named_parameters():
        exempt = not decay_norms and (id(param) in norms or name.endswith("bias"))
        (kept if exempt else decayed).append(param)
    groups = [{"params": decayed, "weight_decay": weight_decay}]
    return groups + [{"params": kept, "weight_decay": 0.0}] if kept else groups


def start_processes(device_name: str | None) -> tuple[int, int, torch.device]:
    """(processes, this one's rank, its device); under torchrun (``WORLD_SIZE`` > 1) the process group too
    (nccl on GPUs, gloo on CPUs), one GPU per process."""
    world, rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
    device = pick_device(device_name)
    if world > 1:
        if device.type == "cuda":
            device = torch.device(f"cuda:{os.environ.get('LOCAL_RANK', '0')}")
            torch.cuda.set_device(device)
        if not dist.is_initialized():
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return world, rank, device


def read_data(options: TrainOptions) -> tuple[DatasetReader, list[Instance], dict[str, list[Instance]]]:
    """The training reader, the training instances (a file named n times is drawn n times as often; then
    the ASR-like noised copies the options ask for) and the dev sets by path (never noised)."""
    reader = DatasetReader(options.tn_prob, options.targets, options.skip_bad, options.off_tasks)
    files = reader.read_each(options.train_set)
    train_instances = [i for path in options.train_set.split(",") for i in files[path]]
    train_instances = reader.with_asr_noise(train_instances, options.asr_noise())
    return reader, train_instances, DatasetReader(skip_bad=options.skip_bad).read_each(options.dev_set)


def resumed_state(options: TrainOptions, last_dir: str, is_main: bool) -> dict | None:
    """The last checkpoint's trainer state when ``resume`` finds one, else None. A kill while a checkpoint
    was being swapped in is undone first (``files.recover_dir``); metrics.jsonl loses the records of epochs
    after the checkpoint (an epoch killed after its record was written is trained and recorded again). A
    checkpoint trained with the other ``decay_norms`` raises ValueError (its optimizer state has other
    parameter groups)."""
    for folder in (last_dir, os.path.join(options.model_dir, "best")):
        recover_dir(folder)
    if not (options.resume and os.path.exists(os.path.join(last_dir, "config.json"))):
        return None
    with open(os.path.join(last_dir, "trainer_state.json"), encoding="utf-8") as f:
        state = json.load(f)
    decayed = state.get("options", {}).get("decay_norms", True)  # checkpoints from before the option: True
    if decayed != options.decay_norms:
        flag = "--decay_norms" if decayed else "--no-decay_norms"
        raise ValueError(f"{last_dir} was trained with {flag}: resume it with {flag}")
    log = os.path.join(options.model_dir, "metrics.jsonl")
    if is_main and os.path.exists(log):
        with open(log, encoding="utf-8") as f:
            kept = [line for line in f if line.strip() and json.loads(line)["epoch"] <= state["epoch"]]
        with atomic_write(log) as out:
            out.writelines(kept)
    return state


def prepare_audio(model: Seq2Labels, data: EncodedData,
                  options: TrainOptions) -> tuple[AudioLines | None, list[list[float]] | None]:
    """Audio models: each encoded instance's audio, checked (and features extracted) before training, and
    the words' positions in their lines (``bootstrapper.text_fractions``)."""
    if model.acoustic is None:
        return None, None
    lines = data.instances
    audio = AudioLines(model.acoustic, [i.audio for i in lines], [i.origin for i in lines],
                       options.audio_cache or None, options.skip_bad)
    audio.prepare(range(len(lines)))  # bad audio fails here, before any training
    return audio, [text_fractions(i.words) for i in lines]


def optimizer_for(model: Seq2Labels, options: TrainOptions, resume_from: str | None,
                  device: torch.device) -> torch.optim.Optimizer:
    """AdamW over ``parameter_groups``, its state restored from the checkpoint ``resume_from`` when it has one."""
    optimizer = torch.optim.AdamW(parameter_groups(model, options.weight_decay, options.decay_norms), lr=options.lr)
    if resume_from and os.path.exists(os.path.join(resume_from, "optimizer.safetensors")):
        load_optimizer(optimizer, resume_from, device)
    return optimizer


class Trainer:
    """One training run, set up step by step by the functions above: processes, data, state, model, audio,
    teachers, optimizer; then ``train``."""

    def __init__(self, options: TrainOptions):
        self.options = o = options
        self.world, self.rank, self.device = start_processes(o.device)
        self.is_main = self.rank == 0
        random.seed(o.seed)
        torch.manual_seed(o.seed)  # the same initial weights in every process
        self.reader, self.train_instances, self.dev_sets = read_data(o)
        self.last_dir = os.path.join(o.model_dir, "last")
        resumed = resumed_state(o, self.last_dir, self.is_main)
        resume_from = self.last_dir if resumed else None
        self.state = resumed or {"epoch": 0, "best_f1": -1.0, "bad_epochs": 0, "step": 0}
        self.model = starting_model(o, self.train_instances, resume_from, self.is_main).to(self.device)
        train_only_top_layers(self.model, o, started_from=bool(o.init_model or resumed))
        self.data = self.reader.encode(self.train_instances, self.model.text_encoder(), self.model.vocab,
                                       self.model.config.switches)
        if o.class_weight_power:
            weights = label_weights(self.data, self.model.vocab, o.class_weight_power)
            self.model.class_weights = {PUNCT_HEAD.name: weights.to(self.device)}
        self.audio, self.fractions = prepare_audio(self.model, self.data, o)
        self.teachers = Teachers.load(o.teachers, self.model, o.distill_weight, o.distill_anneal,
                                      o.teacher_marks_with_disf, self.device) if o.teachers else None
        self.soft = self.stored_teacher()
        self.optimizer = optimizer_for(self.model, o, resume_from, self.device)
        self.scaler = grad_scaler(self.device)
        self.ddp = None

    def stored_teacher(self) -> SoftLabels | None:
        """The ``soft_labels`` of the training instances, or None; how many lines have them is printed."""
        o = self.options
        if not o.soft_labels:
            return None
        if o.teachers:
            raise ValueError("--soft_labels and --teachers: one teacher at a time")
        soft = SoftLabels.load(o.soft_labels, self.train_instances, self.model.vocab, o.distill_weight,
                               o.distill_temperature)
        if self.is_main:
            print(f"soft labels: {int((soft.rows >= 0).sum()):,} of {len(self.train_instances):,} training lines",
                  flush=True)
        return soft

    # ---- the loop ---------------------------------------------------------------------------------

    def batches_per_epoch(self) -> int:
        o = self.options
        if o.updates_per_epoch:
            return o.updates_per_epoch * o.accumulation_size
        return max(1, -(-len(self.data.windows) // o.batch_size))

    def total_updates(self) -> int:
        o = self.options
        return max(1, (o.n_epoch - o.cold_steps_count) * self.batches_per_epoch() // o.accumulation_size)

    def lr_at(self, epoch: int, step: int) -> float:
        o = self.options
        if epoch < o.cold_steps_count:
            return o.cold_lr
        total = self.total_updates()
        warm = max(1, int(o.warmup * total))
        return o.lr * min(step / warm, max(0.0, (total - step) / max(1, total - warm)))

    def train(self) -> dict:
        best = None
        for epoch in range(self.state["epoch"], self.options.n_epoch):
            stats = self.train_epoch(epoch)
            result = self.evaluate() if self.is_main else {}
            f1 = self._from_main(selection_f1(result) if self.is_main else 0.0)
            improved = f1 > self.state["best_f1"]
            self.state.update(epoch=epoch + 1, bad_epochs=0 if improved else self.state["bad_epochs"] + 1)
            if improved:
                self.state["best_f1"] = f1
                best = result
            if self.is_main:  # the other processes only train
                self._end_epoch(epoch, result, f1, improved, stats)
            if self.state["bad_epochs"] >= self.options.patience:
                if self.is_main:
                    print(f"early stop: {self.options.patience} epochs without a better dev F1", flush=True)
                break
        if self.world > 1:
            dist.barrier()  # the others wait for rank 0's last checkpoint before the run ends
        return best or {}

    def train_epoch(self, epoch: int) -> dict:
        """One pass over this epoch's sample of the training windows; returns its loss and throughput."""
        o = self.options
        cold = epoch < o.cold_steps_count
        freeze_encoder(self.model, cold, o.train_layers, o.freeze_embeddings)
        if self.world > 1:  # wrapped anew: DDP fixes its set of trained parameters when built
            # A batch share with no audio leaves the down-sampler without a gradient.
            self.ddp = torch.nn.parallel.DistributedDataParallel(
                self.model, find_unused_parameters=self.model.acoustic is not None)
        # Per-epoch seeds: a run resumed at an epoch boundary draws the same data and dropout as one never stopped.
        chosen = self.data.sample(random.Random(o.seed * 1000 + epoch))
        torch.manual_seed((o.seed * 100 + self.rank) * 1000 + epoch)  # dropout differs between processes
        batches = [chosen[i: i + o.batch_size] for i in range(0, len(chosen), o.batch_size)]
        batches = [b for b in batches[: self.batches_per_epoch()] if len(b) >= self.world]
        started, loss_sum, words = time.time(), 0.0, 0
        extracted = self.audio.computed if self.audio else 0
        self.model.train()
        bar = tqdm(batches, desc=f"epoch {epoch + 1}/{o.n_epoch}{' (cold)' if cold else ''}",
                   disable=not (o.progress and self.is_main), leave=False)
        for k, batch in enumerate(bar):
            last_of_update = (k + 1) % o.accumulation_size == 0 or k + 1 == len(batches)
            loss_sum += self.step(batch, o.accumulation_size, sync=last_of_update)
            words += sum(len(self.data.windows[i].word_starts) for i in batch)
            if last_of_update:
                self.update(epoch, cold)
            bar.set_postfix(loss=f"{loss_sum / (k + 1):.4f}")
        seconds = time.time() - started
        return {"cold": cold, "train_loss": loss_sum / max(1, len(batches)), "seconds": seconds,
                "train_words_per_s": words / max(1e-9, seconds),
                "train_samples_per_s": sum(map(len, batches)) / max(1e-9, seconds),
                "audio_extracted": (self.audio.computed - extracted) if self.audio else 0}

    def _end_epoch(self, epoch: int, result: dict, f1: float, improved: bool, stats: dict) -> None:
        """Rank 0: checkpoints, the metrics.jsonl record and the console line of a finished epoch."""
        if improved:
            self.model.save(os.path.join(self.options.model_dir, "best"))
        record = {"epoch": epoch + 1, **stats, "selection_f1": f1, "best": improved, "dev": result}
        with open(os.path.join(self.options.model_dir, "metrics.jsonl"), "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        # last: the epoch is done only once this folder is in place
        save_checkpoint(self.last_dir, self.model, self.optimizer, dict(self.state, options=asdict(self.options)))
        print(f"epoch {epoch + 1}: loss {record['train_loss']:.4f}  dev punct F1 "
              f"{result['punct']['overall']['f1']:.1f}  selection F1 {f1:.2f}{'  (best)' if improved else ''}", flush=True)

    def step(self, batch: list[int], accumulation: int, sync: bool = True) -> float:
        """Forward + backward of this process's share of ``batch``; returns the (share of the) loss."""
        share = batch[self.rank * len(batch) // self.world: (self.rank + 1) * len(batch) // self.world]
        tensors = collate([self.data.windows[i] for i in share], self.model.pad_id, [self.data.labels[i] for i in share])
        if self.audio is not None:
            tensors.update(self.audio.batch(self.data.windows, share, self.fractions))
        inputs = Batch.of(tensors).to(self.device)
        no_sync = self.ddp.no_sync() if self.ddp is not None and not sync else contextlib.nullcontext()
        with no_sync:
            with autocast(self.device):
                out = (self.ddp or self.model)(inputs)
            sums, counts = out["loss_sums"], out["loss_counts"].detach()
            if self.teachers is not None:  # one more term: the teachers' soft labels
                extra_sum, extra_count = self.teachers.loss_sum(inputs, out)
                sums, counts = torch.cat([sums, extra_sum[None]]), torch.cat([counts, extra_count[None].to(counts)])
            if self.soft is not None:  # one more term per head: the stored teacher's
                extra_sums, extra_counts = self.soft.loss_sums([self.data.windows[i] for i in share], out, inputs)
                sums, counts = torch.cat([sums, extra_sums]), torch.cat([counts, extra_counts.detach().to(counts)])
            if self.world > 1:  # each term's mean over the global batch's words; DDP then averages over processes
                dist.all_reduce(counts)
            terms = sums / counts.clamp(min=1)
            if self.teachers is not None:
                progress = self.state["step"] / self.total_updates()
                terms = terms * self.teachers.term_weights(len(HEADS), HEADS.index(PUNCT_HEAD), progress).to(terms)
            if self.soft is not None:
                terms = terms * self.soft.term_weights(len(HEADS)).to(terms)
            loss = terms.sum() * self.world / accumulation
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
        return evaluate_dev_sets(self.model, self.dev_sets, batch_size=self.options.batch_size * 2, device=str(self.device),
                                 audio_cache=self.options.audio_cache or None, skip_bad_audio=self.options.skip_bad)


def train(options: TrainOptions) -> dict:
    os.makedirs(options.model_dir, exist_ok=True)
    try:
        return Trainer(options).train()
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
