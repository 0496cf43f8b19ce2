"""Predictor: raw lines in, restored lines out. ``Punctuator.load(path).predict(["so i went ..."])``.

``Punctuator(models, ...)`` takes one or more ``Seq2Labels`` (several = an ensemble: per-word probabilities
are averaged by label name, so models with different encoders and vocabularies combine).
``predict(lines) -> lines``: one output line per input line; an empty or whitespace-only line comes back
as it is; any length works (long lines are windowed, see ``encoding``). The words themselves never change
except in case, or vanish when the ``disf`` task is on and the model tags them ``$DELETE``.

Tasks (``tasks``, see ``gector_punct.tasks``; default ``punc``): a model with switching tokens is told
which are on; whatever the model, a task that is off changes nothing (``punc`` off: the input's marks and
case stay; ``disf`` off: no word is deleted), and ``disf`` needs a model that has ``$DELETE``.
``predict_tags(list of word lists) -> list of Tag lists`` is the same without writing text.

Decoding (``DecodeConfig``, as in GECToR): ``decode`` defaults to the first model's own settings. What the
input already carries is treated by ``existing`` (``keep``: its marks and case are given; ``strip``: removed
and restored afresh), and no word gets an edit it cannot take (a second mark, a URL's case ...; see
``existing``). ``iteration_count`` > 1 tags again the lines that the previous pass changed.

Audio (UniPunc models): ``predict(lines, audio)`` / ``predict_tags(word_lines, audio)`` take one audio per
line (an ``AudioSpec``, a ``path`` or ``path:offset:frames`` string, or None); a line without audio, and
every line given to a text-only model, is predicted from its words alone. ``audio_cache`` keeps extracted
features on disk; ``skip_bad_audio`` predicts a line whose audio is missing or unreadable without it
(else ``AudioError``).

``quantize=True`` (CPU only) runs the encoders' linear layers in dynamic int8 (weights int8, activations
quantised per batch); ``utils/benchmark.py --quantize`` and ``utils/model_report.py --quantize`` measure
what it gains in speed and costs in F1 (README).
"""
from __future__ import annotations

import os
import warnings
from dataclasses import replace

import torch

from .audio import AudioSpec, parse_spec
from .audio_data import AudioLines
from .bootstrapper import text_fractions
from .case_forms import CaseForms
from .config import DecodeConfig, is_ensemble, model_folders, read_ensemble
from .encoding import TextEncoder, WindowedBatcher
from .model import Batch, Seq2Labels
from .runtime import autocast, pick_device
from .existing import MODES, QUOTE_PAIRS, constrain_line, prepare, prepare_spaced, strip_word
from .tags import (CAPITAL, DELETE, KEEP, MARK_CONTEXTS, START_CONTEXT, Tag, capitalise_sentence_starts, ends_sentence,
                   mark_context, split_edges, written_forms)
from .units import join_units, narrow_marks, split_units, starts_lower, unit_spacing
from .tasks import DEFAULT_TASKS, parse_tasks, switch_states
from .vocabulary import CASE_HEAD, DETECT_HEAD, HEADS, PUNCT_HEAD

INVERTED_QUESTION = "¿"
PAUSE_MARKS = set(",;:")
MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
DEFAULT_MODEL = os.path.join(MODELS, "default_en")
SWITCHING_MODEL = os.path.join(MODELS, "switch_en")  # with switching tokens: disfluency deletion too
MULTILINGUAL_MODEL = os.path.join(MODELS, "multilingual")  # zh, fr, de, es, it and en
# Per head in HEADS order: (all words of all lines) x labels; the case head's x contexts x labels (one
# distribution per mark context of the word before, ``tags.MARK_CONTEXTS``; the same for each context when
# the model has no ``case_context``).
Probabilities = tuple[torch.Tensor, ...]


def shipped_model(tasks: frozenset[str]) -> str:
    """The shipped model folder that can do ``tasks`` (what ``predict.py`` runs without --model_path):
    the switching model when ``disf`` is asked, else the default English model."""
    return SWITCHING_MODEL if "disf" in tasks else DEFAULT_MODEL


class Punctuator:
    """Restores lines with one or more trained taggers. ``Punctuator.load()`` takes the shipped model;
    ``predict(lines) -> lines``, ``restore_words(words) -> words``, ``predict_tags(word lines) -> tags``;
    settings: ``decode`` (DecodeConfig), ``existing`` (keep | strip), ``iteration_count``, ``batch_size``,
    ``max_len``, ``tasks``, ``device``, ``quantize``, ``audio_cache``, ``skip_bad_audio``, ``case_forms``
    (how words are written when not lower-case; ``load`` takes the first folder's ``case_forms.tsv.gz``),
    ``whole_lines`` (each line given to ``predict`` is a whole utterance: ``close_utterance``)."""

    def __init__(self, models: list[Seq2Labels], decode: DecodeConfig | None = None, iteration_count: int = 1,
                 batch_size: int = 32, max_len: int | None = None, tasks: frozenset[str] | str = DEFAULT_TASKS,
                 device: str | None = None, quantize: bool = False, audio_cache: str | None = None,
                 skip_bad_audio: bool = False, existing: str = "keep", case_forms: CaseForms | None = None,
                 whole_lines: bool = False):
        if existing not in MODES:
            raise ValueError(f"unknown existing-text mode {existing!r} (one of {', '.join(MODES)})")
        self.models, self.existing, self.case_forms, self.whole_lines = models, existing, case_forms, whole_lines
        self.decode_config = decode or models[0].config.decode
        self.audio_cache, self.skip_bad_audio = audio_cache, skip_bad_audio
        self.iteration_count, self.batch_size = iteration_count, batch_size
        self.tasks = parse_tasks(tasks) if isinstance(tasks, str) else frozenset(tasks)  # "disf,punc" or a set
        if "disf" in self.tasks and not any("disf" in m.tasks for m in models):
            raise ValueError("the disf task needs a model that deletes words ($DELETE); this one was trained "
                             "without disfluency data (models/switch_en has it)")
        self.device = pick_device(device)
        if quantize and self.device.type != "cpu":
            raise ValueError("int8 quantisation runs on the CPU only (use --device cpu)")
        self.encoders = []
        for model in models:
            model.to(self.device).eval()
            if quantize:
                quantize_encoder(model)
            self.encoders.append(model.text_encoder(max_len))
        # The ensemble's label spaces, per head: the union of the models' labels, by name.
        self.names = {h.name: _union(m.vocab.tokens(h.namespace) for m in models) for h in HEADS}
        # The punctuation labels that open a question with ¿ (``pair_questions``).
        self.opening = [j for j, name in enumerate(self.names[PUNCT_HEAD.name])
                        if INVERTED_QUESTION in Tag.parse(name).prepend]
        # The punctuation labels by the sentence mark their appended marks end with (``close_utterance``).
        appended = [narrow_marks(Tag.parse(name).append) for name in self.names[PUNCT_HEAD.name]]
        self.end_marks = {m: [j for j, a in enumerate(appended) if [c for c in a if c in ".?!"][-1:] == [m]]
                          for m in ".?!"}

    @classmethod
    def load(cls, paths: str | list[str] = DEFAULT_MODEL, vocab_path: str | None = None, **options) -> Punctuator:
        """Model folder(s) (default: the shipped English model) -> a predictor; ``options`` as for the
        constructor. An ensemble folder (``config.EnsembleConfig``) stands for its members; when it comes
        first, its decoding defaults are the predictor's. Encoders load without transformers where they
        can (``bert``)."""
        paths = [paths] if isinstance(paths, str) else list(paths)
        folders = model_folders(paths)
        light = not options.get("quantize")  # dynamic int8 swaps transformers' own Linear layers
        options.setdefault("case_forms", CaseForms.load(folders[0]))
        if is_ensemble(paths[0]) and options.get("decode") is None:
            options["decode"] = read_ensemble(paths[0]).decode
        return cls([Seq2Labels.load(p, vocab_path, light=light) for p in folders], **options)

    def predict(self, lines: list[str], audio: list[AudioSpec | str | None] | None = None) -> list[str]:
        if isinstance(lines, str):
            raise TypeError("predict takes a list of lines (for one text: predict([text])[0])")
        prepared = [prepare_spaced(line, self.existing) for line in lines]
        word_lines, spacings = [words for words, _ in prepared], [spacing for _, spacing in prepared]
        results = list(lines)
        todo = [i for i, words in enumerate(word_lines) if words]
        for _ in range(self.iteration_count):
            if not todo:
                break
            tags = self.predict_tags([word_lines[i] for i in todo], [audio[i] for i in todo] if audio else None,
                                     self.whole_lines)
            changed = []
            for i, line_tags in zip(todo, tags):
                forms = written_forms(word_lines[i], line_tags)
                if forms != word_lines[i]:
                    kept = [k for k, form in enumerate(forms) if form is not None]
                    word_lines[i], spacings[i] = [forms[k] for k in kept], [spacings[i][k] for k in kept]
                    changed.append(i)
            todo = changed  # only lines that changed are looked at again
        for i, words in enumerate(word_lines):
            if words:
                results[i] = join_units(words, spacings[i])
        return results

    def restore_words(self, words: list[str]) -> list[str | None]:
        """One stream of words (a transcript's, a subtitle file's) restored word for word: each word's
        written form, or None where it vanishes (a marks-only token under ``strip``, a ``$DELETE``)."""
        prepared = [strip_word(w) for w in words] if self.existing == "strip" else prepare(words, "keep")
        kept = [i for i, w in enumerate(prepared) if w]
        out: list[str | None] = [None] * len(words)
        if kept:
            line = [prepared[i] for i in kept]
            (tags,) = self.predict_tags([line])
            for i, form in zip(kept, written_forms(line, tags)):
                out[i] = form
        return out

    def predict_tags(self, word_lines: list[list[str]], audio: list[AudioSpec | str | None] | None = None,
                     whole: bool = False, deletions: list[list[bool]] | None = None) -> list[list[Tag]]:
        return self.decode(word_lines, self.probabilities(word_lines, audio), whole=whole, deletions=deletions)

    @torch.inference_mode()
    def probabilities(self, word_lines: list[list[str]], audio: list[AudioSpec | str | None] | None = None
                      ) -> Probabilities:
        """The ensemble's probabilities of every word of every line, per head in ``HEADS`` order, columns in
        ``self.names`` order; the lines' words one after the other (word ``j`` of line ``i`` is row
        ``sum(len(l) for l in lines[:i]) + j``)."""
        offsets = [0]
        for words in word_lines:
            offsets.append(offsets[-1] + len(words))
        total = None
        for model, encoder in zip(self.models, self.encoders):
            probs = self._model_probabilities(model, encoder, word_lines, offsets, audio)
            total = probs if total is None else tuple(a + b for a, b in zip(total, probs))
        return tuple(x / len(self.models) for x in total)

    def _model_probabilities(self, model: Seq2Labels, encoder: TextEncoder, word_lines: list[list[str]],
                             offsets: list[int], audio=None) -> Probabilities:
        columns = [torch.tensor([self.names[h.name].index(t) for t in model.vocab.tokens(h.namespace)]) for h in HEADS]
        contexts = len(MARK_CONTEXTS)
        out = tuple(torch.zeros((offsets[-1],) + ((contexts,) if h is CASE_HEAD else ()) + (len(self.names[h.name]),))
                    for h in HEADS)
        # A word no window owns (a character inside a longer piece) keeps these: no edit, certainly.
        for head, table, no_edit in zip(HEADS, out, (KEEP, KEEP, "CORRECT")):
            table[..., self.names[head.name].index(no_edit)] = 1.0
        windows = encoder.encode_lines(word_lines, switch_states(self.tasks, model.config.switches))
        sound = fractions = None
        if model.acoustic is not None:  # each model its own features: the ensemble's extractors may differ
            specs = [parse_spec(a) if isinstance(a, str) else a for a in (audio or [None] * len(word_lines))]
            sound = AudioLines(model.acoustic, specs, cache_dir=self.audio_cache, skip_bad=self.skip_bad_audio)
            fractions = [text_fractions(words) for words in word_lines]
        for indices, batch in WindowedBatcher(windows, self.batch_size, pad_id=model.pad_id):
            width = batch["word_starts"].shape[1]
            if sound is not None:
                batch.update(sound.batch(windows, indices, fractions))
            batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
            with autocast(self.device):
                result = model(Batch.of(batch))
            rows, targets = [], []  # each owned word: its row in the batch output -> its row in `out`
            for row, index in enumerate(indices):
                w = windows[index]
                base = offsets[w.line] + w.start
                for j, owned in enumerate(w.owned):
                    if owned:
                        rows.append(row * width + j)
                        targets.append(base + j)
            rows_t, targets_t = torch.tensor(rows), torch.tensor(targets)
            for head, table, cols in zip(HEADS, out, columns):  # columns: the ensemble's label order
                values = result[head.probs_key].float().cpu().flatten(0, 1)[rows_t]
                if table.dim() == 3:
                    values = values if values.dim() == 3 else values.unsqueeze(1).expand(-1, contexts, -1)
                    table[targets_t[:, None, None], torch.arange(contexts)[None, :, None], cols[None, None, :]] = values
                else:
                    table[targets_t.unsqueeze(1), cols] = values
        return out

    def decode(self, word_lines: list[list[str]], probabilities: Probabilities,
               decode: DecodeConfig | None = None, whole: bool = False,
               deletions: list[list[bool]] | None = None) -> list[list[Tag]]:
        """Tags of each line from ``probabilities()``, under ``decode`` (default: this predictor's).
        Deletion first (with ``disf``: ``_deletions``), then the punctuation of the words that stay; then each
        word's case from the distribution of the context its predecessor gives once punctuated. A word after
        a sentence end the tagger added always starts upper-case.
        ``whole``: each line is a whole utterance (``close_utterance``). ``deletions`` (per line, per word):
        which words go, given (an oracle's, for analysis) instead of decided, whatever the tasks."""
        d = decode or self.decode_config
        labels, case, detect = (p.clone() for p in probabilities)
        punct_names, case_names = self.names[PUNCT_HEAD.name], self.names[CASE_HEAD.name]
        deleted = (self._deletions(labels, d.deletion_threshold) if deletions is None
                   else torch.tensor([gone for line in deletions for gone in line], dtype=torch.bool))
        labels[:, punct_names.index(KEEP)] += d.additional_confidence
        case[..., case_names.index(KEEP)] += d.case_bias
        self._mask_tasks_off(labels, case)
        if deleted is not None:  # decided above; otherwise the likeliest other label
            labels[:, punct_names.index(DELETE)] = torch.where(deleted, 2.0, -1.0)
        label_p, label_i = (x.tolist() for x in labels.max(-1))
        case_p, case_i = (x.tolist() for x in case.max(-1))  # per word, per context of the word before
        error_p = detect[:, self.names[DETECT_HEAD.name].index("INCORRECT")].tolist()
        opening_p = (probabilities[0][:, self.opening].sum(-1) if self.opening else torch.zeros(len(labels))).tolist()
        threshold = d.min_error_probability
        forced = deleted.tolist() if deletions is not None else None  # given deletions hold on every line
        made: dict[tuple[str, str], Tag] = {}  # one Tag object per distinct edit: its parts parsed once
        tags, start = [], 0
        for words in word_lines:
            end = start + len(words)
            if not words or max(error_p[start:end]) < threshold:  # GECToR: a line with no likely error stays
                line = [Tag(deletes=True) if forced and forced[k] else Tag() for k in range(start, end)]
            else:
                line, context = [], START_CONTEXT
                for k, word in zip(range(start, end), words):
                    c = case_i[k][context] if case_p[k][context] >= threshold else None
                    key = (punct_names[label_i[k]] if label_p[k] >= threshold else KEEP,
                           KEEP if c is None else case_names[c])
                    if key not in made:
                        made[key] = Tag.from_labels(*key)
                    line.append(made[key])
                    if not made[key].deletes:  # a deleted word passes on the context it was given
                        context = mark_context(made[key].apply(word))
                line = pair_questions(constrain_line(words, line), opening_p[start:end], d.question_opening)
            if whole and words and "punc" in self.tasks:
                line = close_utterance(words, line, self._end_mark(probabilities[0][end - 1]))
            line = capitalise_sentence_starts(words, line)
            use_forms = self.case_forms and words and "punc" in self.tasks  # case is punc's part: off, no change
            tags.append(self.case_forms.apply(words, line) if use_forms else line)
            start = end
        return tags

    def _end_mark(self, label_p: torch.Tensor) -> str:
        """The likeliest sentence mark (. ? !) of a word from its punctuation probabilities: each mark's
        probability is the sum over the labels whose appended marks end with it."""
        return max(self.end_marks, key=lambda mark: float(label_p[self.end_marks[mark]].sum()))

    def _deletions(self, labels: torch.Tensor, threshold: float) -> torch.Tensor | None:
        """Per word, whether ``disf`` deletes it: P($DELETE) above ``threshold``. A kept word's disfluency
        target says only "not deleted" (any label but $DELETE), so the model's calibrated decision is $DELETE
        against all the rest together, not against $KEEP or the likeliest mark alone. None without ``disf``."""
        names = self.names[PUNCT_HEAD.name]
        if "disf" not in self.tasks or DELETE not in names:
            return None
        return labels[:, names.index(DELETE)] > threshold

    def _mask_tasks_off(self, labels: torch.Tensor, case: torch.Tensor) -> None:
        """Rule out, in place, every decision of a task that is off: ``$DELETE`` without ``disf``; any mark and
        any case change without ``punc``."""
        punct_names, case_names = self.names[PUNCT_HEAD.name], self.names[CASE_HEAD.name]
        for j, name in enumerate(punct_names):
            off = "disf" if name == DELETE else None if name == KEEP else "punc"
            if off is not None and off not in self.tasks:
                labels[:, j] = -1.0
        if "punc" not in self.tasks:
            case[..., [j for j, name in enumerate(case_names) if name != KEEP]] = -1.0


def close_utterance(words: list[str], tags: list[Tag], mark: str) -> list[Tag]:
    """A whole utterance's tags: its first word starts upper-case and its last word ends a sentence, with
    ``mark`` where it has only a pause mark or none (``year,`` -> ``year.``), inside the closing quotes it
    adds (``us"`` -> ``us."``); a last word with marks of its own in the input is left as it is."""
    out = list(tags)
    first = next((k for k, t in enumerate(tags) if not t.deletes), None)
    last = next((k for k in reversed(range(len(tags))) if not tags[k].deletes), None)
    if first is None:
        return out
    if starts_lower(out[first].apply(words[first])):
        out[first] = replace(out[first], case=CAPITAL)
    tag = out[last]
    written = split_edges(tag.apply(words[last]))[2]  # an acronym's last period counts: U.S. ends a sentence
    marks = narrow_marks(tag.append)
    before_quotes = marks.rstrip("".join(QUOTE_PAIRS.values()))
    if not split_edges(words[last])[2] and not ends_sentence(written) and set(before_quotes) <= PAUSE_MARKS:
        out[last] = replace(tag, append=mark + marks[len(before_quotes):])
    return out


def pair_questions(tags: list[Tag], opening_p: list[float], threshold: float) -> list[Tag]:
    """Spanish writes a question between ``¿`` and ``?``: a sentence the tags close with ``?`` and open with
    no ``¿`` gets one before its word likeliest to take it, if that is at least ``threshold`` probable or
    the line already opens a question (a line with one ``¿`` is Spanish: all its questions open); a ``¿``
    in a sentence that the tags end otherwise is dropped. A sentence still open at the line's end (a line
    cut mid-sentence) is left as it is."""
    out, spans, start = list(tags), [], 0
    for k, tag in enumerate(tags):
        if not tag.deletes and ends_sentence(tag.append):
            spans.append(([j for j in range(start, k + 1) if not tags[j].deletes], "?" in tag.append))
            start = k + 1
    questions = [span for span, asks in spans if asks]
    spanish = any(INVERTED_QUESTION in tags[j].prepend or opening_p[j] >= threshold for span in questions for j in span)
    for span, asks in spans:
        opened = [j for j in span if INVERTED_QUESTION in out[j].prepend]
        if asks and not opened:
            best = max(span, key=lambda j: opening_p[j])
            if spanish and opening_p[best] > 0:
                out[best] = _with_prepend(out[best], INVERTED_QUESTION + out[best].prepend)
        elif opened and not asks:
            for j in opened:
                out[j] = _with_prepend(out[j], out[j].prepend.replace(INVERTED_QUESTION, ""))
    return out


def _with_prepend(tag: Tag, prepend: str) -> Tag:
    return replace(tag, prepend=prepend)


def quantize_encoder(model: Seq2Labels) -> None:
    """Swap the encoder's ``nn.Linear`` layers for dynamic-int8 ones, in place (the heads stay float)."""
    with warnings.catch_warnings():  # torch marks its quantised tensor types as deprecated (torchao replaces them)
        warnings.simplefilter("ignore")
        model.encoder = torch.ao.quantization.quantize_dynamic(model.encoder, {torch.nn.Linear}, dtype=torch.qint8)


def _union(lists) -> list[str]:
    names: list[str] = []
    for tokens in lists:
        names.extend(t for t in tokens if t not in names)
    return names


def split_sentences(line: str) -> list[str]:
    """Cut a restored line after every word whose trailing marks end a sentence."""
    sentences, current, spacing = [], [], []
    for word, space in zip(split_units(line), unit_spacing(line)):
        current.append(word)
        spacing.append(space)
        if ends_sentence(split_edges(word)[2]):
            sentences.append(join_units(current, spacing))
            current, spacing = [], []
    if current:
        sentences.append(join_units(current, spacing))
    return sentences
