"""Single-task teachers for a switching model (seed 001), distilled as in Born-Again Multi-Task Networks
(Clark et al., 2019): the multi-task student learns each task from the gold labels *and* from the soft
decisions of a model trained on that task alone (here the cascade's own single-task models).

In: ``Teachers.load("disf=DIR,punc=DIR", student)``, trained taggers without switching tokens on the
student's encoder and tokenizer. Out: ``loss_sum(batch, out)`` -> (summed loss, word count) of a
batch (a ``batch.Batch`` with targets, and the student's output on it), which the trainer weighs against
the gold punctuation loss (``term_weights``):

- a window with ``disf`` on (``punc`` off) learns the disf teacher's P($DELETE) for each word it owns whose
  deletion the gold data knows (binary cross-entropy: only "deleted or not" is that task's decision);
- a window with ``punc`` on (``disf`` off) learns the punc teacher's whole punctuation distribution (labels
  matched by name; mass on a label the student lacks, or has ruled out, is dropped and the rest renormalised)
  for each owned word with a known punctuation target;
- a window with both off learns nothing from a teacher (a no-conversion set has no teacher);
- with ``marks_with_disf``, a window with ``disf`` on also learns the punc teacher's marks for each word whose
  gold target is NOT_DELETED, as a distribution over the labels other than $DELETE (the mark the word takes if it
  stays). ``punc`` is off there, so decoding adds no mark in that mode; the joint mode (both on, never
  trained) then reads a head that punctuates under ``disf`` as the punctuation model does. The punc teacher
  reads that window *fluent*: without the words the gold data deletes, the text it was trained on (words of
  an overlap the window does not own have no gold deletion and stay).

The teacher reads the same window without the student's switch slots (they sit right after the special
prefix), so both see the same subwords at the same positions otherwise (the fluent reading aside).
Invariant: a teacher never gets a gradient and never changes; with ``weight`` 0 the trainer's loss is
exactly the gold loss.
"""
from __future__ import annotations

import torch

from gector_punct.model.batch import Batch
from gector_punct.model.tagger import Seq2Labels
from gector_punct.text.tags import DELETE
from gector_punct.training.soft_labels import soft_cross_entropy
from gector_punct.text.tasks import TASKS
from gector_punct.model.vocabulary import IGNORE, NOT_DELETED, PUNCT_HEAD


class Teachers:
    def __init__(self, by_task: dict[str, Seq2Labels], student: Seq2Labels, weight: float, anneal: bool,
                 marks_with_disf: bool = False):
        switches = student.config.switches
        unknown = sorted(set(by_task) - set(switches))
        if not switches or unknown:
            raise ValueError(f"teachers for tasks {unknown or sorted(by_task)} need a student with those switches "
                             f"(it has {list(switches) or 'none'})")
        for task, teacher in by_task.items():
            if teacher.config.switches or (teacher.config.transformer_model, teacher.config.special_tokens_fix) != (
                    student.config.transformer_model, student.config.special_tokens_fix):
                raise ValueError(f"the {task} teacher must read windows as the student does, without switches: same "
                                 f"encoder and special_tokens_fix ({teacher.config.transformer_model!r})")
            teacher.eval().requires_grad_(False)
        if "disf" in by_task and DELETE not in by_task["disf"].vocab.tokens(PUNCT_HEAD.namespace):
            raise ValueError("the disf teacher has no $DELETE label: it was not trained to delete")
        if "disf" in by_task and DELETE not in student.vocab.tokens(PUNCT_HEAD.namespace):
            raise ValueError("a disf teacher needs a student with the $DELETE label (disfluency data gives it one)")
        self.by_task, self.weight, self.anneal, self.marks_with_disf = by_task, weight, anneal, marks_with_disf
        self.slots = (student.switch_offset, len(switches))
        self.column = {t: switches.index(t) for t in switches}
        self.label_map = {t: _label_map(m, student) for t, m in by_task.items()}
        self.delete = {t: m.vocab.index(PUNCT_HEAD.namespace, DELETE) for t, m in by_task.items()}
        self.student_delete = student.vocab.index(PUNCT_HEAD.namespace, DELETE)  # IGNORE: the student has none
        self.suffix = len(student.text_encoder().suffix) if marks_with_disf else 0

    @classmethod
    def load(cls, spec: str, student: Seq2Labels, weight: float = 0.5, anneal: bool = False,
             marks_with_disf: bool = False, device: str | torch.device = "cpu") -> Teachers:
        """``spec``: comma-separated ``task=model_dir`` pairs, e.g. ``disf=runs/disf_only/best,punc=...``."""
        by_task = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            task, sep, path = part.partition("=")
            if not sep or task not in TASKS:
                raise ValueError(f"--teachers takes task=model_dir pairs ({', '.join(TASKS)}), got {part!r}")
            by_task[task] = Seq2Labels.load(path, device=device)
        return cls(by_task, student, weight, anneal, marks_with_disf)

    def term_weights(self, n_heads: int, punct_index: int, progress: float) -> torch.Tensor:
        """Weights of the trainer's loss terms (the heads' mean losses, then the distillation's mean): the
        punctuation head's gold term gives up the share ``w`` that the teachers take; with ``anneal``, ``w``
        falls linearly from ``weight`` to 0 over training."""
        w = self.weight * (1.0 - min(1.0, max(0.0, progress)) if self.anneal else 1.0)
        weights = torch.ones(n_heads + 1)
        weights[punct_index], weights[-1] = 1.0 - w, w
        return weights

    def loss_sum(self, batch: Batch, out: dict) -> tuple[torch.Tensor, torch.Tensor]:
        logits = out[PUNCT_HEAD.logits_key]
        target = batch.targets[PUNCT_HEAD.target_key].masked_fill(~batch.word_mask, IGNORE)
        total, count = logits.new_zeros(()), logits.new_zeros(())
        for task, teacher in self.by_task.items():
            words = self._taught_words(task, target, batch.switches)
            if not words.any():
                continue
            rows = words.any(1).nonzero().squeeze(1)
            dropped = None
            if task == "punc" and self.marks_with_disf:  # read fluent: the gold deletions left out
                dropped = (target[rows] == self.student_delete) if self.student_delete != IGNORE else None
            with torch.no_grad():
                probs = self._teacher_probs(teacher, batch, rows, dropped)
            if task == "disf":
                log_probs = logits[rows].log_softmax(-1)
                kept = _without(log_probs, self.student_delete).logsumexp(-1)  # log P(not deleted)
                loss = _binary_cross_entropy(probs[..., self.delete[task]], log_probs[..., self.student_delete], kept)
            else:  # the marks given that the word stays: $DELETE out of the student's distribution
                part = _without(logits[rows], self.student_delete)
                loss = _soft_label_loss(part.log_softmax(-1), probs, self.label_map[task])
            total = total + loss[words[rows]].sum()
            count = count + words.sum()
        return total, count

    def _taught_words(self, task: str, target: torch.Tensor, switches: torch.Tensor) -> torch.Tensor:
        """Which words (windows x words) a task's teacher teaches: the disf teacher, every word with a known
        deletion target in a window with ``disf`` on; the punc teacher, every word with a known punctuation
        target in a window with ``punc`` on and ``disf`` off, and with ``marks_with_disf`` also every word
        that stays in a window with ``disf`` on (its marks, so that under ``disf`` the head punctuates as
        the punctuation model does: what the joint mode, never trained, needs)."""
        on = {t: switches[:, k] == 1 for t, k in self.column.items()}
        disf_on = on.get("disf", torch.zeros_like(switches[:, 0], dtype=torch.bool))
        if task == "disf":
            return (target != IGNORE) & disf_on[:, None]
        words = (target >= 0) & (on["punc"] & ~disf_on)[:, None]
        if self.marks_with_disf:
            words |= (target == NOT_DELETED) & disf_on[:, None]
        return words

    def _teacher_probs(self, teacher: Seq2Labels, batch: Batch, rows: torch.Tensor,
                       dropped: torch.Tensor | None = None) -> torch.Tensor:
        """The teacher's punctuation probabilities for the windows ``rows``, read without the switch slots
        and, where ``dropped`` (rows x words) is True, without those words; a dropped word's row is 0."""
        at, n = self.slots
        if dropped is not None and dropped.any():
            fluent, places = self._fluent_windows(batch, rows, dropped, teacher.pad_id)
            probs = teacher(fluent)[PUNCT_HEAD.probs_key].float()
            out = probs.new_zeros(dropped.shape + probs.shape[-1:])
            r, k = fluent.word_mask.nonzero(as_tuple=True)
            out[r, places[r, k]] = probs[r, k]
            return out
        ids, mask = batch.input_ids[rows], batch.attention_mask[rows]
        ids = torch.cat([ids[:, :at], ids[:, at + n:]], dim=1)
        mask = torch.cat([mask[:, :at], mask[:, at + n:]], dim=1)
        starts = (batch.word_starts[rows] - n).clamp(min=0)
        out = teacher(Batch(ids, mask, starts, batch.word_mask[rows]))
        return out[PUNCT_HEAD.probs_key].float()

    def _fluent_windows(self, batch: Batch, rows: torch.Tensor, dropped: torch.Tensor, pad_id: int
                        ) -> tuple[Batch, torch.Tensor]:
        """The windows ``rows`` rebuilt without their switch slots and the ``dropped`` words' subwords, as
        collate gives them, and for each of their words its position in the student's window."""
        at, n = self.slots
        ids_all, lengths = batch.input_ids[rows].tolist(), batch.attention_mask[rows].sum(1).tolist()
        word_counts, starts_all = batch.word_mask[rows].sum(1).tolist(), batch.word_starts[rows].tolist()
        seqs, starts, places = [], [], []
        for ids, length, count, begin, gone in zip(ids_all, lengths, word_counts, starts_all, dropped.tolist()):
            ends = begin[1:count] + [length - self.suffix]
            seq, kept = ids[:at], [j for j in range(count) if not gone[j]]
            starts.append([])
            for j in kept:
                starts[-1].append(len(seq))
                seq.extend(ids[begin[j]:ends[j]])
            seqs.append(seq + ids[length - self.suffix:length])
            places.append(kept)
        width, words = max(map(len, seqs)), max(max(map(len, places)), 1)
        fluent = Batch(torch.full((len(seqs), width), pad_id, dtype=torch.long),
                       torch.zeros(len(seqs), width, dtype=torch.long),
                       torch.zeros(len(seqs), words, dtype=torch.long), torch.zeros(len(seqs), words, dtype=torch.bool))
        place = torch.zeros(len(seqs), words, dtype=torch.long)
        for r, (seq, s, p) in enumerate(zip(seqs, starts, places)):
            fluent.input_ids[r, :len(seq)] = torch.tensor(seq)
            fluent.attention_mask[r, :len(seq)] = 1
            fluent.word_starts[r, :len(s)] = torch.tensor(s, dtype=torch.long)
            fluent.word_mask[r, :len(s)] = True
            place[r, :len(p)] = torch.tensor(p, dtype=torch.long)
        device = batch.input_ids.device
        return fluent.to(device), place.to(device)


def _without(values: torch.Tensor, index: int) -> torch.Tensor:
    """``values`` with the last dimension's entry ``index`` set to -inf (none set where it is IGNORE)."""
    return values if index == IGNORE else values.index_fill(-1, torch.tensor([index], device=values.device),
                                                            float("-inf"))


def _label_map(teacher: Seq2Labels, student: Seq2Labels) -> torch.Tensor:
    """For each of the teacher's punctuation labels, the student's index of the same label (IGNORE: absent)."""
    namespace = PUNCT_HEAD.namespace
    index = [student.vocab.index(namespace, label) for label in teacher.vocab.tokens(namespace)]
    return torch.tensor(index, dtype=torch.long, device=next(student.parameters()).device)


def _soft_label_loss(log_probs: torch.Tensor, teacher_probs: torch.Tensor, label_map: torch.Tensor) -> torch.Tensor:
    """Per word, -sum_y q(y) log p(y): q the teacher's distribution moved onto the student's labels, without
    the labels the student lacks or rules out (log p = -inf), renormalised (``soft_labels.soft_cross_entropy``
    over all the teacher's labels, the ones the student lacks at probability 0)."""
    known = label_map != IGNORE
    index = label_map.clamp(min=0).expand(*log_probs.shape[:-1], -1)
    return soft_cross_entropy(log_probs, index, teacher_probs.masked_fill(~known, 0.0).to(log_probs.dtype), 1.0)


def _binary_cross_entropy(q: torch.Tensor, log_p: torch.Tensor, log_not_p: torch.Tensor) -> torch.Tensor:
    """Per word, the cross-entropy of "deleted or not": the teacher's P($DELETE) ``q`` against the student's
    log P($DELETE) and log P(not $DELETE)."""
    q = q.clamp(0.0, 1.0)
    return -(q * log_p + (1 - q) * log_not_p)
