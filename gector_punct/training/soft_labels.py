"""A teacher's soft labels, written once over a training file and learnt by a student (``train.py
--soft_labels``): distillation from a model too slow to run inside the training loop (``models/ensemble_en``
into ``default_en``).

Labelling (``label_file``; ``utils/data/label_teacher.py``): a tagged training file in, a folder out. The teacher
(a ``Punctuator``: any model or ensemble, on either engine) reads each instance's words as the student reads
them in training (``DatasetReader``'s instances: no line rules, no decoding), and per word this is kept, in
the teacher's label names:

- the punctuation head's ``k`` likeliest labels and their probabilities (renormalised over the ``k``);
- the case head's ``k`` likeliest at the word's gold mark context (the context the student's case head is
  given in training, ``reader.given_contexts``), and that context;
- the detection head's P(INCORRECT).

Shards of ``shard_lines`` instances are written atomically as ``shard-NNNNN.npz`` (plain arrays, read
without unpickling); a shard on disk is never redone, so a killed run resumes where it stopped.
``manifest.json`` names the file (name, size, sha256: labels of another file are refused), the teacher,
``k``, the shard size and each head's label names. With ASR-like noise on (``asr_noise.AsrNoise``) each
shard holds the labels of its lines' noised copies alone (the lines themselves are labelled once, by a run
without noise, into a folder of their own: a student given both folders finds both), and the manifest
records the noise settings and the confusion table's sha256 (a folder labelled with other noise is refused;
without noise the manifest has no such entry).

Learning (``SoftLabels``): ``SoftLabels.load(folders, instances, vocab)`` finds each training instance's
labels by ``line_key`` (its words and given contexts, hashed: a share of the labelled file, or a reshuffled
copy, finds them; a line never labelled trains on its gold labels alone) and moves them onto the student's
label indices (a label the student lacks is dropped). ``loss_sums(windows, out, batch)`` -> per head, the
summed soft cross-entropy at ``temperature`` (times T², as in Hinton et al., 2015) over the words the
windows own that have labels, and their count: three more terms, which the trainer weighs against the
gold ones (``term_weights``: the gold terms take ``1 - weight``, these ``weight``).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import time
from itertools import islice

import numpy as np

from gector_punct.dataset.asr_noise import AsrNoise
from gector_punct.dataset.reader import DatasetReader, Instance, given_contexts
from gector_punct.model.vocabulary import CASE_HEAD, D_TAGS, DETECT_HEAD, HEADS, PUNCT_HEAD, Vocabulary
from gector_punct.model.windows import Window
from gector_punct.text.files import InputError, atomic_write, read_json_object

FORMAT = "gector-punct-soft-labels/1"
MANIFEST = "manifest.json"
ARRAYS = ("line_keys", "word_offsets", "punct_index", "punct_prob", "case_index", "case_prob", "case_context",
          "incorrect")


def file_identity(path: str) -> dict:
    """What names a training file for its labels: its name, size and sha256."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"name": os.path.basename(path), "bytes": os.path.getsize(path), "sha256": digest.hexdigest()}


def line_key(words: list[str], contexts: list[int]) -> int:
    """What a line's labels depend on, hashed: its words and their given mark contexts. Labels are found by
    it, so any file holding a labelled line (a share of the labelled file, a reshuffle) finds them."""
    text = "\x1f".join(words) + "\x1e" + "".join(map(str, contexts))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def top_k(probs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` likeliest columns (likeliest first) and their probabilities, renormalised."""
    k = min(k, probs.shape[-1])
    index = np.argpartition(-probs, k - 1, axis=-1)[:, :k]
    chosen = np.take_along_axis(probs, index, -1)
    order = np.argsort(-chosen, axis=-1)
    index, chosen = np.take_along_axis(index, order, -1), np.take_along_axis(chosen, order, -1)
    return index.astype(np.uint16), (chosen / np.maximum(chosen.sum(-1, keepdims=True), 1e-9)).astype(np.float16)


def shard_arrays(punctuator, instances: list[Instance], k: int) -> dict[str, np.ndarray]:
    """The teacher's labels of these instances, as one shard's arrays."""
    probs = punctuator.probabilities([i.words for i in instances])
    line_contexts = [given_contexts(i.words, i.tags) for i in instances]
    contexts = np.array([c for line in line_contexts for c in line], dtype=np.int64)
    keys = [line_key(i.words, c) for i, c in zip(instances, line_contexts)]
    punct_index, punct_prob = top_k(probs[PUNCT_HEAD.name], k)
    case = probs[CASE_HEAD.name]
    case_index, case_prob = top_k(case[np.arange(len(case)), contexts], k)
    incorrect = probs[DETECT_HEAD.name][:, punctuator.names[DETECT_HEAD.name].index(D_TAGS[1])]
    offsets = np.cumsum([0] + [len(i.words) for i in instances])
    return {"line_keys": np.array(keys, dtype=np.uint64),
            "word_offsets": offsets.astype(np.int64),
            "punct_index": punct_index, "punct_prob": punct_prob, "case_index": case_index, "case_prob": case_prob,
            "case_context": contexts.astype(np.uint8), "incorrect": incorrect.astype(np.float16)}


def label_file(punctuator, path: str, out_dir: str, teacher: str, k: int = 6, shard_lines: int = 2000,
               max_lines: int | None = None, log=print, noise: AsrNoise | None = None) -> str:
    """Write (or complete) the teacher's labels of a tagged file into ``out_dir/<name>.soft``: of its first
    ``max_lines`` lines (rounded up to whole shards; None: all), or with ``noise`` on, of their ASR-like noised
    copies alone (as ``DatasetReader.with_asr_noise`` makes them for the trainer); returns the folder."""
    folder = os.path.join(out_dir, os.path.basename(path) + ".soft")
    os.makedirs(folder, exist_ok=True)
    manifest = {"format": FORMAT, "file": file_identity(path), "teacher": teacher, "k": k,
                "shard_lines": shard_lines, "names": {h.name: punctuator.names[h.name] for h in HEADS}}
    if noise is not None and noise.on:  # without noise the manifest is the one written before noise existed
        manifest["asr_noise"] = noise.record()
    written = os.path.join(folder, MANIFEST)
    if os.path.exists(written):
        old = read_json_object(written)
        if old != manifest:
            changed = sorted(key for key in manifest if old.get(key) != manifest[key])
            raise InputError(f"{written}: labels of another run ({', '.join(changed)} differ); "
                             f"give another --out_dir or remove {folder}")
    else:
        with atomic_write(written) as out:
            json.dump(manifest, out, indent=1)
    reader = DatasetReader()
    lines = sum(1 for _ in reader.tagged_instances(path))  # a first pass checks every line, keeping none
    if not lines:
        raise InputError(f"{path}: no instances (empty file?)")
    shards = -(-min(lines, max_lines or lines) // shard_lines)
    stream = (instance for _, instance in reader.tagged_instances(path))  # one shard in memory at a time
    started, labelled = time.perf_counter(), 0
    for s in range(shards):
        part = list(islice(stream, shard_lines))
        name = os.path.join(folder, f"shard-{s:05d}.npz")
        if os.path.exists(name):
            continue  # finished by an earlier run
        if noise is not None and noise.on:
            part = reader.with_asr_noise(part, noise)[len(part):]
        arrays = shard_arrays(punctuator, part, k)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        with atomic_write(name, "wb") as out:
            out.write(buffer.getvalue())
        labelled += int(arrays["word_offsets"][-1])
        rate = labelled / (time.perf_counter() - started)
        log(f"{os.path.basename(path)}: shard {s + 1}/{shards}, {rate:,.0f} words/s")
    return folder


class SoftLabels:
    """The stored labels of a run's training instances, on the student's label indices; see the module."""

    def __init__(self, rows: np.ndarray, arrays: dict[str, np.ndarray], detect_columns: list[int], weight: float,
                 temperature: float):
        self.rows = rows  # per instance: its first word's row in the arrays, -1 without labels
        self.arrays, self.weight, self.temperature = arrays, weight, temperature
        self.detect_columns = detect_columns  # the student's CORRECT and INCORRECT

    @classmethod
    def load(cls, folders: str, instances: list[Instance], vocab: Vocabulary, weight: float = 0.5,
             temperature: float = 1.0) -> SoftLabels:
        """``folders``: comma-separated ``label_file`` folders; ``instances``: the run's training instances,
        each finding its labels by ``line_key``."""
        found: dict[int, tuple[int, int]] = {}  # line key -> (shard part, its line there)
        parts: list[dict[str, np.ndarray]] = []
        for folder in filter(None, folders.split(",")):
            manifest = read_json_object(os.path.join(folder, MANIFEST))
            if manifest.get("format") != FORMAT:
                raise InputError(f"{folder}/{MANIFEST}: not soft labels (format {FORMAT!r} expected)")
            for shard in sorted(f for f in os.listdir(folder) if f.startswith("shard-") and f.endswith(".npz")):
                with np.load(os.path.join(folder, shard), allow_pickle=False) as data:
                    part = {key: data[key] for key in ARRAYS}
                for head, key in ((PUNCT_HEAD, "punct_index"), (CASE_HEAD, "case_index")):
                    part[key] = student_index(part[key], manifest["names"][head.name], vocab, head.namespace)
                for n, key in enumerate(part["line_keys"].tolist()):
                    found[key] = (len(parts), n)
                parts.append(part)
        detect_columns = [vocab.index(DETECT_HEAD.namespace, name) for name in D_TAGS]
        return cls(*stack(parts, found, instances), detect_columns, weight, temperature)

    def term_weights(self, n_heads: int):
        """The trainer's term weights: the gold heads' terms, then these (``loss_sums``'s, one per head)."""
        import torch

        return torch.tensor([1.0 - self.weight] * n_heads + [self.weight] * len(HEADS))

    def loss_sums(self, windows: list[Window], out: dict, batch):
        """Per head (``HEADS`` order), the summed soft cross-entropy over the owned, labelled words of these
        ``windows`` (a batch's, in its order) and their count: two tensors of ``len(HEADS)``."""
        import torch

        device = batch.word_mask.device
        rows = self.word_rows(windows, batch.word_mask.shape[1])
        take, a = np.maximum(rows, 0), self.arrays

        def tensor(values: np.ndarray, dtype) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(values)).to(device=device, dtype=dtype)
        labelled = tensor(rows >= 0, torch.bool)
        in_context = labelled & (tensor(a["case_context"][take], torch.long) == batch.prev_mark)
        incorrect = tensor(a["incorrect"][take], torch.float32)
        detect_index = torch.tensor(self.detect_columns, device=device).expand(*incorrect.shape, 2)
        heads = ((PUNCT_HEAD, tensor(a["punct_index"][take], torch.long), tensor(a["punct_prob"][take], torch.float32),
                  labelled),
                 (CASE_HEAD, tensor(a["case_index"][take], torch.long), tensor(a["case_prob"][take], torch.float32),
                  in_context),
                 (DETECT_HEAD, detect_index, torch.stack([1 - incorrect, incorrect], -1), labelled))
        sums, counts = [], []
        for head, index, prob, mask in heads:
            loss = soft_cross_entropy(out[head.logits_key].float(), index, prob, self.temperature)
            sums.append(loss[mask].sum())
            counts.append(mask.sum().to(loss.dtype))
        return torch.stack(sums), torch.stack(counts)

    def word_rows(self, windows: list[Window], width: int) -> np.ndarray:
        """(windows x width) each owned word's row in the arrays; -1 where it has none (or is padding)."""
        rows = np.full((len(windows), width), -1, dtype=np.int64)
        for r, w in enumerate(windows):
            first = self.rows[w.line] if w.line < len(self.rows) else -1  # a restored copy has none
            if first >= 0:
                owned = np.flatnonzero(w.owned)
                rows[r, owned] = first + w.start + owned
        return rows


def soft_cross_entropy(logits, index, prob, temperature: float):
    """Per word, -T² sum_j q_j log p(index_j): p the student's softmax at temperature T, q the teacher's top
    labels (``prob``, 0 where dropped) at the same temperature, renormalised; a label the student rules out
    (logit -inf) is left out of q."""
    import torch

    log_p = (logits / temperature).log_softmax(-1).gather(-1, index)
    q = prob.clamp(min=0) ** (1.0 / temperature)
    q = torch.where(torch.isinf(log_p), torch.zeros_like(q), q)
    q = q / q.sum(-1, keepdim=True).clamp(min=1e-9)
    return -(q * log_p.clamp(min=-1e4)).sum(-1) * temperature ** 2


def student_index(index: np.ndarray, names: list[str], vocab: Vocabulary, namespace: str) -> np.ndarray:
    """Teacher label indices -> the student's (-1 where the student lacks the label)."""
    table = np.array([vocab.index(namespace, name) for name in names], dtype=np.int64)  # IGNORE: absent
    return np.where(table < 0, -1, table)[index.astype(np.int64)].astype(np.int16)


def stack(parts: list[dict[str, np.ndarray]], found: dict[int, tuple[int, int]],
          instances: list[Instance]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The labels of ``instances`` in one set of arrays (instance order) and each one's first row (-1: none)."""
    rows, chosen, at = np.full(len(instances), -1, dtype=np.int64), [], 0
    for n, instance in enumerate(instances):
        place = found.get(line_key(instance.words, given_contexts(instance.words, instance.tags)))
        if place is None:
            continue
        offsets = parts[place[0]]["word_offsets"]
        first, count = int(offsets[place[1]]), len(instance.words)
        chosen.append((place[0], first, count))
        rows[n], at = at, at + count
    keys = [key for key in ARRAYS if key not in ("line_keys", "word_offsets")]
    arrays = {key: np.concatenate([parts[p][key][first: first + count] for p, first, count in chosen])
              if chosen else np.zeros((0,)) for key in keys}
    for key in ("punct_prob", "case_prob"):  # a label the student lacks carries no mass
        index = key.replace("prob", "index")
        if chosen:
            arrays[key] = np.where(arrays[index] < 0, 0, arrays[key]).astype(np.float16)
            arrays[index] = np.maximum(arrays[index], 0)
    return rows, arrays
