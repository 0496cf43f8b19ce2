"""Predictor: raw lines in, restored lines out. ``Punctuator.load(path).predict(["so i went ..."])``.

``Punctuator(models, ...)`` takes one or more ``Seq2Labels`` (several = an ensemble: per-word probabilities
are averaged by label name, so models with different encoders and vocabularies combine).
``predict(lines) -> lines``: one output line per input line; an empty or whitespace-only line comes back
as it is; any length works (long lines are windowed, see ``encoding``). The words themselves never change
except in case, or vanish when ``allow_delete`` is set and the model tags them ``$DELETE``.
``predict_tags(list of word lists) -> list of Tag lists`` is the same without writing text.

Decoding, as in GECToR: ``additional_confidence`` is added to the ``$KEEP`` probability of both edit heads;
a line whose highest detection probability (INCORRECT) is below ``min_error_probability`` is left alone, and
so is any single edit whose probability is below it. A word that already carries marks at an edge gets no
further marks there (so punctuated input is not punctuated twice).
"""
from __future__ import annotations

import contextlib

import torch

from .encoding import TextEncoder, WindowedBatcher
from .model import Seq2Labels
from .tags import DELETE, KEEP, SENTENCE_END, Tag, apply_case, punct_label, split_edges


class Punctuator:
    def __init__(self, models: list[Seq2Labels], min_error_probability: float | None = None,
                 additional_confidence: float | None = None, iteration_count: int = 1, batch_size: int = 32,
                 max_len: int | None = None, allow_delete: bool = False, device: str | None = None):
        self.models = models
        first = models[0].config
        self.min_error_probability = first.get("min_error_probability", 0.0) if min_error_probability is None else min_error_probability
        self.additional_confidence = first.get("additional_confidence", 0.0) if additional_confidence is None else additional_confidence
        self.iteration_count, self.batch_size, self.allow_delete = iteration_count, batch_size, allow_delete
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.encoders = []
        for model in models:
            model.to(self.device).eval()
            self.encoders.append(TextEncoder(model.tokenizer, max_len or model.config.get("max_len", 256),
                                             model.config.get("pieces_per_token", 5), model.config.get("window_overlap")))
        # The ensemble's label spaces: the union of the models' labels, by name.
        self.label_names = _union(m.vocab.tokens("labels") for m in models)
        self.case_names = _union(m.vocab.tokens("case_tags") for m in models)

    @classmethod
    def load(cls, paths: str | list[str], vocab_path: str | None = None, **options) -> "Punctuator":
        paths = [paths] if isinstance(paths, str) else list(paths)
        return cls([Seq2Labels.load(p, vocab_path) for p in paths], **options)

    def predict(self, lines: list[str]) -> list[str]:
        word_lines = [line.split() for line in lines]
        results = list(lines)
        todo = [i for i, words in enumerate(word_lines) if words]
        for _ in range(self.iteration_count):
            if not todo:
                break
            tags = self.predict_tags([word_lines[i] for i in todo])
            changed = []
            for i, line_tags in zip(todo, tags):
                new_words = [t.prepend + apply_case(w, t.case) + t.append
                             for w, t in zip(word_lines[i], line_tags) if not t.deletes]
                if new_words != word_lines[i]:
                    word_lines[i] = new_words
                    changed.append(i)
            todo = changed  # only lines that changed are looked at again
        for i, words in enumerate(word_lines):
            if words:
                results[i] = " ".join(words)
        return results

    def predict_tags(self, word_lines: list[list[str]]) -> list[list[Tag]]:
        return [self.decode(words, probs) for words, probs in zip(word_lines, self.probabilities(word_lines))]

    @torch.inference_mode()
    def probabilities(self, word_lines: list[list[str]]) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """Per line: the ensemble's (labels, case, detection) probabilities per word."""
        sums: list = [None] * len(word_lines)
        for model, encoder in zip(self.models, self.encoders):
            probs = self._model_probabilities(model, encoder, word_lines)
            for i, p in enumerate(probs):
                sums[i] = p if sums[i] is None else tuple(a + b for a, b in zip(sums[i], p))
        n = len(self.models)
        return [tuple(x / n for x in s) for s in sums]

    def _model_probabilities(self, model: Seq2Labels, encoder: TextEncoder, word_lines: list[list[str]]):
        """Per line: (labels, case, detection) probabilities per word, in the ensemble's label spaces."""
        label_map = torch.tensor([self.label_names.index(t) for t in model.vocab.tokens("labels")])
        case_map = torch.tensor([self.case_names.index(t) for t in model.vocab.tokens("case_tags")])
        out = [(torch.zeros(len(w), len(self.label_names)), torch.zeros(len(w), len(self.case_names)),
                torch.zeros(len(w), 2)) for w in word_lines]
        windows = encoder.encode_lines(word_lines)
        batcher = WindowedBatcher(windows, self.batch_size, pad_id=model.tokenizer.pad_token_id or 0)
        for indices, batch in batcher:
            batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
            with self._autocast():
                result = model(**batch)
            probs = [result[k].float().cpu() for k in ("probs_labels", "probs_case", "probs_d")]
            for row, index in enumerate(indices):
                w = windows[index]
                owned = torch.tensor(w.owned)
                positions = torch.arange(w.start, w.end)[owned]
                n_words = w.end - w.start
                labels, case, detect = out[w.line]
                labels[positions.unsqueeze(1), label_map] = probs[0][row, :n_words][owned]
                case[positions.unsqueeze(1), case_map] = probs[1][row, :n_words][owned]
                detect[positions] = probs[2][row, :n_words][owned]
        return out

    def _autocast(self):
        if self.device.type == "cuda":
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            return torch.autocast("cuda", dtype=dtype)
        return contextlib.nullcontext()

    def decode(self, words: list[str], probabilities: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> list[Tag]:
        """Tags of one line from its probabilities, under this predictor's decoding settings."""
        labels, case, detect = probabilities
        keep_label, keep_case = self.label_names.index(KEEP), self.case_names.index(KEEP)
        labels, case = labels.clone(), case.clone()
        labels[:, keep_label] += self.additional_confidence
        case[:, keep_case] += self.additional_confidence
        if not self.allow_delete:
            for j, name in enumerate(self.label_names):
                if DELETE in name:
                    labels[:, j] = -1.0
        if detect.numel() == 0 or detect[:, 1].max().item() < self.min_error_probability:
            return [Tag() for _ in words]
        label_p, label_i = labels.max(-1)
        case_p, case_i = case.max(-1)
        tags = []
        for k, word in enumerate(words):
            punct = self.label_names[label_i[k]] if label_p[k] >= self.min_error_probability else KEEP
            case_op = self.case_names[case_i[k]] if case_p[k] >= self.min_error_probability else KEEP
            tags.append(_respect_existing_marks(word, Tag(punct, case_op)))
        return tags


def _respect_existing_marks(word: str, tag: Tag) -> Tag:
    if tag.deletes:
        return tag
    lead, _, trail = split_edges(word)
    prepend, append = ("" if lead else tag.prepend), ("" if trail else tag.append)
    if (prepend, append) == (tag.prepend, tag.append):
        return tag
    return Tag(punct_label(prepend, append), tag.case)


def _union(lists) -> list[str]:
    names: list[str] = []
    for tokens in lists:
        names.extend(t for t in tokens if t not in names)
    return names


def split_sentences(line: str) -> list[str]:
    """Cut a restored line after every word whose trailing marks end a sentence."""
    sentences, current = [], []
    for word in line.split():
        current.append(word)
        if any(ch in SENTENCE_END for ch in split_edges(word)[2]):
            sentences.append(" ".join(current))
            current = []
    if current:
        sentences.append(" ".join(current))
    return sentences
