"""Predictor: raw lines in, restored lines out. ``Punctuator.load(path).predict(["so i went ..."])``.

``Punctuator(models, ...)`` takes one or more ``Seq2Labels`` (several = an ensemble: per-word probabilities
are averaged by label name, so models with different encoders and vocabularies combine).
``predict(lines) -> lines``: one output line per input line; an empty or whitespace-only line comes back
as it is; any length works (long lines are windowed, see ``encoding``). The words themselves never change
except in case, or vanish when ``allow_delete`` is set and the model tags them ``$DELETE``.
``predict_tags(list of word lists) -> list of Tag lists`` is the same without writing text.

Decoding, as in GECToR: ``additional_confidence`` is added to the ``$KEEP`` probability of the punctuation
head and ``case_confidence`` (by default the same value) to that of the case head;
a line whose highest detection probability (INCORRECT) is below ``min_error_probability`` is left alone, and
so is any single edit whose probability is below it. A word that already carries marks at an edge gets no
further marks there (so punctuated input is not punctuated twice).

Audio (UniPunc models): ``predict(lines, audio)`` / ``predict_tags(word_lines, audio)`` take one audio per
line (an ``AudioSpec``, a ``path`` or ``path:offset:frames`` string, or None); a line without audio, and
every line given to a text-only model, is predicted from its words alone. ``audio_cache`` keeps extracted
features on disk; ``skip_bad_audio`` predicts a line whose audio is missing or unreadable without it
(else ``AudioError``).

``quantize=True`` (CPU only) runs the encoders' linear layers in dynamic int8 (weights int8, activations
quantised per batch). On this project's 2-core CPU it was no faster (1.04x) and cost the default model
2-3 F1 points, so predict.py does not offer it; ``utils/benchmark.py --quantize`` and ``utils/model_report.py --quantize``
measure both figures.
"""
from __future__ import annotations

import contextlib
import warnings

import torch

from .audio import AudioSpec, parse_spec
from .audio_data import AudioLines
from .bootstrapper import text_fractions
from .encoding import TextEncoder, WindowedBatcher
from .model import Seq2Labels
from .tags import DELETE, KEEP, SENTENCE_END, Tag, apply_case, punct_label, split_edges


class Punctuator:
    def __init__(self, models: list[Seq2Labels], min_error_probability: float | None = None,
                 additional_confidence: float | None = None, iteration_count: int = 1, batch_size: int = 32,
                 max_len: int | None = None, allow_delete: bool = False, device: str | None = None,
                 quantize: bool = False, audio_cache: str | None = None, skip_bad_audio: bool = False,
                 case_confidence: float | None = None):
        self.models = models
        self.audio_cache, self.skip_bad_audio = audio_cache, skip_bad_audio
        first = models[0].config
        self.min_error_probability = first.get("min_error_probability", 0.0) if min_error_probability is None else min_error_probability
        self.additional_confidence = first.get("additional_confidence", 0.0) if additional_confidence is None else additional_confidence
        # The case head has its own bias: its best trade-off (recall of capitals) differs from the marks'.
        self.case_confidence = first.get("case_confidence", self.additional_confidence) if case_confidence is None else case_confidence
        self.iteration_count, self.batch_size, self.allow_delete = iteration_count, batch_size, allow_delete
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        if quantize and self.device.type != "cpu":
            raise ValueError("int8 quantisation runs on the CPU only (use --device cpu)")
        self.encoders = []
        for model in models:
            model.to(self.device).eval()
            if quantize:
                quantize_encoder(model)
            self.encoders.append(TextEncoder(model.tokenizer, max_len or model.config.get("max_len", 256),
                                             model.config.get("pieces_per_token", 5), model.config.get("window_overlap")))
        # The ensemble's label spaces: the union of the models' labels, by name.
        self.label_names = _union(m.vocab.tokens("labels") for m in models)
        self.case_names = _union(m.vocab.tokens("case_tags") for m in models)

    @classmethod
    def load(cls, paths: str | list[str], vocab_path: str | None = None, **options) -> "Punctuator":
        paths = [paths] if isinstance(paths, str) else list(paths)
        return cls([Seq2Labels.load(p, vocab_path) for p in paths], **options)

    def predict(self, lines: list[str], audio: list[AudioSpec | str | None] | None = None) -> list[str]:
        word_lines = [line.split() for line in lines]
        results = list(lines)
        todo = [i for i, words in enumerate(word_lines) if words]
        for _ in range(self.iteration_count):
            if not todo:
                break
            tags = self.predict_tags([word_lines[i] for i in todo], [audio[i] for i in todo] if audio else None)
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

    def predict_tags(self, word_lines: list[list[str]], audio: list[AudioSpec | str | None] | None = None) -> list[list[Tag]]:
        return self.decode(word_lines, self.probabilities(word_lines, audio))

    @torch.inference_mode()
    def probabilities(self, word_lines: list[list[str]], audio: list[AudioSpec | str | None] | None = None
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The ensemble's (labels, case, detection) probabilities of every word of every line, the lines'
        words one after the other (word ``j`` of line ``i`` is row ``sum(len(l) for l in lines[:i]) + j``)."""
        offsets = [0]
        for words in word_lines:
            offsets.append(offsets[-1] + len(words))
        total = None
        for model, encoder in zip(self.models, self.encoders):
            probs = self._model_probabilities(model, encoder, word_lines, offsets, audio)
            total = probs if total is None else tuple(a + b for a, b in zip(total, probs))
        return tuple(x / len(self.models) for x in total)

    def _model_probabilities(self, model: Seq2Labels, encoder: TextEncoder, word_lines: list[list[str]],
                             offsets: list[int], audio=None):
        label_map = torch.tensor([self.label_names.index(t) for t in model.vocab.tokens("labels")])
        case_map = torch.tensor([self.case_names.index(t) for t in model.vocab.tokens("case_tags")])
        n = offsets[-1]
        out = (torch.zeros(n, len(self.label_names)), torch.zeros(n, len(self.case_names)), torch.zeros(n, 2))
        windows = encoder.encode_lines(word_lines)
        batcher = WindowedBatcher(windows, self.batch_size, pad_id=model.tokenizer.pad_token_id or 0)
        sound = fractions = None
        if model.acoustic is not None:  # each model its own features: the ensemble's extractors may differ
            specs = [parse_spec(a) if isinstance(a, str) else a for a in (audio or [None] * len(word_lines))]
            sound = AudioLines(model.acoustic, specs, cache_dir=self.audio_cache, skip_bad=self.skip_bad_audio)
            fractions = [text_fractions(words) for words in word_lines]
        for indices, batch in batcher:
            width = batch["word_starts"].shape[1]
            if sound is not None:
                batch.update(sound.batch(windows, indices, fractions))
            batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
            with self._autocast():
                result = model(**batch)
            rows, targets = [], []  # each owned word: its row in the batch output -> its row in `out`
            for row, index in enumerate(indices):
                w = windows[index]
                base = offsets[w.line] + w.start
                for j, owned in enumerate(w.owned):
                    if owned:
                        rows.append(row * width + j)
                        targets.append(base + j)
            rows_t, targets_t = torch.tensor(rows), torch.tensor(targets)
            flat = [result[k].float().cpu().flatten(0, 1)[rows_t] for k in ("probs_labels", "probs_case", "probs_d")]
            out[0][targets_t.unsqueeze(1), label_map] = flat[0]  # columns: the ensemble's label order
            out[1][targets_t.unsqueeze(1), case_map] = flat[1]
            out[2][targets_t] = flat[2]
        return out

    def _autocast(self):
        if self.device.type == "cuda":
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            return torch.autocast("cuda", dtype=dtype)
        return contextlib.nullcontext()

    def decode(self, word_lines: list[list[str]], probabilities: tuple[torch.Tensor, torch.Tensor, torch.Tensor]) -> list[list[Tag]]:
        """Tags of each line from ``probabilities()``, under this predictor's decoding settings."""
        labels, case, detect = (p.clone() for p in probabilities)
        labels[:, self.label_names.index(KEEP)] += self.additional_confidence
        case[:, self.case_names.index(KEEP)] += self.case_confidence
        if not self.allow_delete:
            for j, name in enumerate(self.label_names):
                if DELETE in name:
                    labels[:, j] = -1.0
        label_p, label_i = (x.tolist() for x in labels.max(-1))
        case_p, case_i = (x.tolist() for x in case.max(-1))
        error_p = detect[:, 1].tolist()
        threshold = self.min_error_probability
        tags, start = [], 0
        for words in word_lines:
            end = start + len(words)
            if not words or max(error_p[start:end]) < threshold:  # GECToR: a line with no likely error stays
                tags.append([Tag() for _ in words])
            else:
                tags.append([_respect_existing_marks(word, Tag(
                    self.label_names[label_i[k]] if label_p[k] >= threshold else KEEP,
                    self.case_names[case_i[k]] if case_p[k] >= threshold else KEEP)) for k, word in zip(range(start, end), words)])
            start = end
        return tags


def quantize_encoder(model: Seq2Labels) -> None:
    """Swap the encoder's ``nn.Linear`` layers for dynamic-int8 ones, in place (the heads stay float)."""
    with warnings.catch_warnings():  # torch marks its quantised tensor types as deprecated (torchao replaces them)
        warnings.simplefilter("ignore")
        model.encoder = torch.ao.quantization.quantize_dynamic(model.encoder, {torch.nn.Linear}, dtype=torch.qint8)


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
