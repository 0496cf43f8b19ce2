"""Predictor: raw lines in, restored lines out. ``Punctuator.load(path).predict(["so i went ..."])``.

``Punctuator(models, ...)`` takes one or more taggers (several = an ensemble: per-word probabilities are
averaged by label name, so models with different encoders and vocabularies combine): ``Seq2Labels``, run
by the torch engine, or ``engines.onnx_runtime.OnnxTagger``, run by ONNX Runtime; ``Punctuator.load``
loads model folders for the engine asked (``engine``: ``onnx``, the default, or ``torch``;
``engines.choice``). Importing this module, and predicting on the onnx engine, imports no torch.
``predict(lines) -> lines``: one output line per input line; an empty or whitespace-only line comes back
as it is; any length works (long lines are windowed, see ``model.windows``; with ``window_views`` > 1 each
word of a long line is predicted in about that many windows and their probabilities averaged). The words
themselves never change except in case, or vanish when the ``disf`` task is on and the model tags them ``$DELETE``.

Tasks (``tasks``, see ``gector_punct.text.tasks``; default ``punc``): a model with switching tokens is told
which are on; whatever the model, a task that is off changes nothing (``punc`` off: the input's marks and
case stay; ``disf`` off: no word is deleted), and ``disf`` needs a model that has ``$DELETE``.
``predict_tags(list of word lists) -> list of Tag lists`` is the same without writing text.
``restore_words(words) -> words`` restores one stream of words word for word (subtitles); every path writes
with ``tags.written_forms`` over a line's units (``units.split_units``), as ``predict`` does.

Decoding (``DecodeConfig``, as in GECToR; the policy is ``decoding``'s): ``decode`` defaults to the first
model's own settings. ``probabilities`` gives each head's per-word probabilities by head name, and
``decode`` turns them into tags. What the input already carries is treated by ``existing`` (``keep``: its marks and case are given; ``strip``: removed
and restored afresh; ``weigh``, the default: per line, whichever of the two the model's agreement with the
marks says, ``given_marks``), and no word gets an edit it cannot take (a second mark, a URL's case ...; see
``existing``). ``iteration_count`` > 1 tags again the lines that the previous pass changed.

Audio (UniPunc models): ``predict(lines, audio)`` / ``predict_tags(word_lines, audio)`` take one audio per
line (an ``AudioSpec``, a ``path`` or ``path:offset:frames`` string, or None); a line without audio, and
every line given to a text-only model, is predicted from its words alone. ``audio_cache`` keeps extracted
features on disk; ``skip_bad_audio`` predicts a line whose audio is missing or unreadable without it
(else ``AudioError``).

Precision: the onnx engine runs each model in its folder's ``engine_precision`` (``ENGINE_PRECISIONS`` of
``model.config``; ``precision`` overrides it). ``quantize=True`` (torch engine, CPU only) runs the encoders' linear layers in
torch's dynamic int8; ``utils/bench/benchmark.py --quantize`` and ``utils/report/model_report.py --quantize`` measure
what it gains in speed and costs in F1.
"""
from __future__ import annotations

import copy
import os
import math
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace

import numpy as np

from gector_punct.audio.waves import AudioSpec
from gector_punct.engines.choice import cpu_device, load_taggers, runner_for, tagger_engine
from gector_punct.text.case_forms import CaseForms
from gector_punct.model.config import DecodeConfig, ModelFolderError, is_ensemble, model_folders, read_ensemble
from gector_punct.model.windows import DEFAULT_WEIGHTING, Window, WindowedBatcher
from gector_punct.prediction.confidence import Calibration, read_calibration, unit_features
from gector_punct.prediction.decoding import Probabilities, decode_lines, mean_probabilities, no_edit_probabilities
from gector_punct.prediction.given_marks import line_modes, stream_mode
from gector_punct.prediction.lines_job import LinesJob
from gector_punct.prediction.restored import RestoredLine
from gector_punct.prediction.window_views import ViewSums, in_contexts, place
from gector_punct.prediction.settings import DEFAULTS
from gector_punct.prediction.shipped import missing_model_hint, model_paths
from gector_punct.text.existing import MODES, read_case, read_words
from gector_punct.text.numbers.spans import checked as checked_numbers
from gector_punct.text.tags import MARK_CONTEXTS, Tag, written_forms
from gector_punct.text.typography import checked, typeset
from gector_punct.text.tasks import parse_tasks, switch_states
from gector_punct.model.vocabulary import HEADS


class Punctuator:
    """Restores lines with one or more trained taggers. ``Punctuator.load()`` takes the shipped model on the
    onnx engine (``load``'s ``engine``, ``precision``, ``threads``; ``engine`` says which runs the first model);
    ``predict(lines) -> lines``, ``restore_words(words) -> words``, ``predict_tags(word lines) -> tags``;
    settings: ``decode`` (DecodeConfig), ``existing`` (keep | strip), ``iteration_count``, ``batch_size``,
    ``max_len``, ``tasks``, ``device`` (the onnx engine's: the CPU), ``quantize`` (torch engine), ``audio_cache``,
    ``skip_bad_audio``, ``case_forms``
    (how words are written when not lower-case; ``load`` takes the first folder's ``case_forms.tsv.gz``),
    ``typography`` (how the written lines space their marks: ``typography.typeset``), ``numbers`` (how they
    write spoken numbers: ``numbers.spans.NUMBERS``; digits need nemo_text_processing), ``rules`` (the line
    rules decoding runs; None: ``line_rules.LINE_RULES``), ``window_views`` (in how many windows each word of
    a long line is predicted, their predictions averaged, weighted as ``view_weighting`` says:
    ``windows.view_weights``; None: the first model's own, ``ModelConfig.window_views``),
    ``fragments``: how a line given to ``predict`` is read. By default a line is a whole utterance, as
    recognisers emit them (``line_rules.close_utterance``: its first word starts upper-case, its last word
    ends a sentence with the mark the model likes best); with ``fragments=True`` lines are pieces of a
    stream cut anywhere, and nothing is forced at their edges (the reading of the dev sets' lines)."""

    def __init__(self, models: list, decode: DecodeConfig | None = None,
                 iteration_count: int = DEFAULTS.iteration_count, batch_size: int = DEFAULTS.batch_size,
                 max_len: int | None = None, tasks: frozenset[str] | str = DEFAULTS.tasks, device: str | None = None,
                 quantize: bool = False, audio_cache: str | None = None, skip_bad_audio: bool = False,
                 existing: str = DEFAULTS.existing, case_forms: CaseForms | None = None,
                 fragments: bool = DEFAULTS.fragments, calibration: Calibration | None = None,
                 review_share: float = DEFAULTS.review_share, typography: str = DEFAULTS.typography,
                 numbers: str = DEFAULTS.numbers, rules: tuple | None = None,
                 window_views: int | None = DEFAULTS.window_views, view_weighting: str = DEFAULT_WEIGHTING):
        self.models, self.case_forms = models, case_forms
        self.typography, self.rules = checked(typography), rules  # rules: decode_lines' (None: LINE_RULES)
        self.numbers = checked_numbers(numbers)  # its lines' language unknown: an English one without nemo stays
        self.calibration, self.review_share = calibration or Calibration.uncalibrated(), review_share
        self._set_reading(tasks, existing, fragments)
        self.decode_config = decode or models[0].config.decode
        self.audio_cache, self.skip_bad_audio = audio_cache, skip_bad_audio
        self.iteration_count, self.batch_size = iteration_count, batch_size
        if all(tagger_engine(model) == "onnx" for model in models):
            self.device = cpu_device(device)
        else:
            from gector_punct.encoders.runtime import pick_device  # (torch)

            self.device = pick_device(device)
        self.runners = [runner_for(model, self.device, quantize) for model in models]
        self.window_views = models[0].config.window_views if window_views is None else window_views
        self.encoders = [model.text_encoder(max_len, self.window_views, view_weighting) for model in models]
        # The ensemble's label spaces, per head: the union of the models' labels, by name.
        self.names = {h.name: _union(m.vocab.tokens(h.namespace) for m in models) for h in HEADS}
        # Per model, per head: the ensemble's column of each of its labels.
        self.columns = [{h.name: np.array([self.names[h.name].index(t) for t in m.vocab.tokens(h.namespace)])
                         for h in HEADS} for m in models]

    @property
    def engine(self) -> str:
        """The engine that runs the first model (``engines.choice.ENGINES``)."""
        return tagger_engine(self.models[0])

    def _set_reading(self, tasks: frozenset[str] | str, existing: str, fragments: bool) -> None:
        """How lines are read (``tasks``, ``existing``, ``fragments``), each value checked (ValueError)."""
        if existing not in MODES:
            raise ValueError(f"unknown existing-text mode {existing!r} (one of {', '.join(MODES)})")
        tasks = parse_tasks(tasks) if isinstance(tasks, str) else frozenset(tasks)  # "disf,punc" or a set
        if "disf" in tasks and not any("disf" in m.tasks for m in self.models):
            raise ValueError("the disf task needs a model that deletes words ($DELETE); this one was trained "
                             "without disfluency data (models/switch_en has it)")
        self.tasks, self.existing, self.fragments = tasks, existing, fragments

    def reading(self, tasks: frozenset[str] | str, existing: str, fragments: bool,
                numbers: str | None = None) -> Punctuator:
        """This predictor reading lines with other ``tasks``, ``existing`` and ``fragments`` and writing their
        numbers as ``numbers`` says (None: as it does; checked as the constructor checks them): a shallow copy
        sharing the models, encoders and every other setting, so it restores exactly as a predictor loaded
        with those settings would."""
        view = copy.copy(self)
        view._set_reading(tasks, existing, fragments)
        view.numbers = self.numbers if numbers is None else checked_numbers(numbers)
        return view

    @classmethod
    def load(cls, paths: str | list[str] | None = None, vocab_path: str | None = None,
             engine: str = DEFAULTS.engine, precision: str | None = None, threads: int | None = None,
             **options) -> Punctuator:
        """Model folder(s) or shipped model name(s) (``"switch_en"``, from any folder) -> a predictor on
        ``engine`` (``onnx`` or ``torch``; ``precision``: the onnx engine's, over each folder's own;
        ``threads``: the engine's intra-op threads); none: the shipped model that can do ``options["tasks"]``
        (``shipped.shipped_model``: ``ensemble_en``, or ``switch_en`` for ``disf``). ``options`` as for the
        constructor. An ensemble folder (``config.EnsembleConfig``) stands for its members; when it comes
        first, its decoding defaults (and its ``engine_precision``, unless ``precision`` is given, and its
        ``window_views``, where it has one and none is given) are the predictor's. The torch engine loads
        encoders without transformers where it can (``plain_torch``: BERT, MPNet)."""
        tasks = options.get("tasks", DEFAULTS.tasks)
        paths = model_paths(paths, parse_tasks(tasks) if isinstance(tasks, str) else tasks)
        missing = next((path for path in paths if not os.path.exists(path)), None)
        if missing is not None:
            raise ModelFolderError(missing_model_hint(missing))
        folders = model_folders(paths)
        light = not options.get("quantize")  # dynamic int8 swaps transformers' own Linear layers
        options.setdefault("case_forms", CaseForms.load(folders[0]))
        if options.get("calibration") is None:  # a calibration given (a fit's fallback) is not read
            options["calibration"] = read_calibration(paths[0])
        if is_ensemble(paths[0]):
            ensemble = read_ensemble(paths[0])
            options["decode"] = options.get("decode") or ensemble.decode
            precision = precision or ensemble.engine_precision
            if options.get("window_views") is None:
                options["window_views"] = ensemble.window_views
        return cls(load_taggers(folders, vocab_path, engine, precision, threads, light), **options)

    def predict(self, lines: list[str], audio: list[AudioSpec | str | None] | None = None) -> list[str]:
        """The lines restored (module docstring): ``predict_in_parts`` run to its end."""
        return run_to_end(self.predict_in_parts(lines, math.inf, audio=audio, caller="predict"))

    def predict_scored(self, lines: list[str], audio: list[AudioSpec | str | None] | None = None) -> list[RestoredLine]:
        """``predict(lines, audio)`` with each written word's confidence (``restored.RestoredLine``): the same
        text."""
        return run_to_end(self.predict_in_parts(lines, math.inf, scored=True, audio=audio, caller="predict_scored"))

    def predict_in_parts(self, lines: list[str], part_words: float, scored: bool = False,
                         audio: list[AudioSpec | str | None] | None = None,
                         caller: str = "predict_in_parts") -> Generator[None, None, list]:
        """The one pass driver: ``predict(lines, audio)`` (``scored``: ``predict_scored``) as a generator that
        pauses after each part of the model's work of about ``part_words`` words (``probabilities_in_parts``:
        the same lines come out; ``math.inf``: no pause); it returns the restored lines. Up to
        ``iteration_count`` passes, each over the lines the previous one changed (``pass_steps``' steps, the
        encoder's in parts). The service's turns between requests, inside a long line too."""
        job = self.start(lines, audio, scored=scored, caller=caller)
        tokenise, encode, decode = self.pass_steps()
        for _ in range(self.iteration_count):
            if not job.todo:
                break
            tokenise(job)
            yield from encode(job, part_words)
            decode(job)
        return job.restored(self.calibration, self.review_threshold) if scored else job.written()

    @property
    def review_threshold(self) -> float:
        """The confidence below which a word is flagged for review (``review_share`` of the dev words)."""
        return self.calibration.review_threshold(self.review_share)

    def start(self, lines: list[str], audio: list[AudioSpec | str | None] | None = None,
              scored: bool = False, caller: str = "predict") -> LinesJob:
        """``predict``'s lines (and their audio), read as ``existing`` says, each line to do that has words;
        ``scored``: the job keeps what its words' confidence needs (``LinesJob.restored``); ``caller``: the
        method the user called, which a TypeError for lines that are not a list of str names."""
        if isinstance(lines, str):
            raise TypeError(f"{caller} takes a list of lines (for one text: {caller}([text])[0])")
        lines = list(lines)  # any iterable of lines, a generator included, read once
        wrong = next((i for i, line in enumerate(lines) if not isinstance(line, str)), None)
        if wrong is not None:
            raise TypeError(f"{caller} takes lines of text: line {wrong} is {type(lines[wrong]).__name__}, not str")
        return LinesJob(lines, line_modes(self, lines), audio, scored, self.typography, self.numbers)

    def pass_steps(self) -> tuple[Callable[[LinesJob], None], ...]:
        """One tagging pass over a job's lines to do, as steps run in this order: ``predict_in_parts`` runs
        them one after the other, ``pipeline.predict_chunks`` each in a thread of its own on consecutive chunks.
        The encoder's step is a generator that pauses after each part of its work (``run_to_end`` runs it
        whole)."""
        return self.tokenise_step, self.encode_step, self.decode_step

    def tokenise_step(self, job: LinesJob) -> None:
        """The windows of the lines to do (``encode``)."""
        job.windows = self.encode(job.todo_words())

    def encode_step(self, job: LinesJob, part_words: float = math.inf) -> Generator[None, None, None]:
        """Their probabilities (``probabilities_in_parts``: the encoder and the heads), pausing after each part of
        about ``part_words`` words."""
        job.probabilities = yield from self.probabilities_in_parts(job.todo_words(), job.todo_audio(), job.windows,
                                                                   part_words)

    def decode_step(self, job: LinesJob) -> None:
        """Their tags (``decode``), each line read as ``fragments`` says, applied to the words. A pass after the
        first reads marks the tagger wrote, not a writer's: no line of it is taken as written
        (``DecodeConfig.written``), or ``iteration_count`` would add nothing."""
        decode = self.decode_config if not job.passes else replace(self.decode_config, written=math.inf)
        tags = self.decode(job.todo_words(), job.probabilities, decode, whole=not self.fragments)
        job.apply(tags, unit_features(job.todo_words(), job.probabilities, self.names, tags) if job.scored else None)

    def restore_words(self, words: list[str]) -> list[str | None]:
        """One stream of words (a transcript's, a subtitle file's) restored word for word: each word's
        written form, or None where it vanishes (a marks-only token under ``strip``, a ``$DELETE``). Read as
        ``predict`` reads a line: a whole utterance, its last sentence closed, unless ``fragments``."""
        units = self.read_units(words)
        line = self.tagger_line([unit for word in units for unit in word])
        forms = written_forms(line, self.predict_tags([line], whole=not self.fragments)[0]) if line else []
        return words_written(units, typeset(forms, self.typography))

    def read_units(self, words: list[str]) -> list[list[str]]:
        """Each word's units (``units.split_units``: a Chinese word's characters) as ``existing`` reads them
        (``existing.read_words``: under ``strip`` without their marks and case, a unit of marks only left out;
        under ``weigh`` as ``given_marks.stream_mode`` decides for these words)."""
        return read_words(words, stream_mode(self, words))

    def tagger_line(self, units: list[str]) -> list[str]:
        """A line's units (``read_units``) as the tagger reads them: under ``existing="keep"`` a line whose
        case says nothing is lower-cased first (``existing.read_case``)."""
        return read_case(units, self.existing)

    def predict_tags(self, word_lines: list[list[str]], audio: list[AudioSpec | str | None] | None = None,
                     whole: bool = False, deletions: list[list[bool]] | None = None,
                     given: list[list[Tag]] | None = None, opens: bool = False) -> list[list[Tag]]:
        """Each line's tags (``decode`` of ``probabilities``); ``given``: per line, its first words' tags."""
        return self.decode(word_lines, self.probabilities(word_lines, audio), whole=whole, deletions=deletions,
                           given=given, opens=opens)

    def predict_tags_scored(self, word_lines: list[list[str]], whole: bool = False,
                            given: list[list[Tag]] | None = None,
                            opens: bool = False) -> tuple[list[list[Tag]], list[np.ndarray]]:
        """``predict_tags`` (no audio), and per line its units' confidence features (``confidence``)."""
        probabilities = self.probabilities(word_lines)
        tags = self.decode(word_lines, probabilities, whole=whole, given=given, opens=opens)
        return tags, unit_features(word_lines, probabilities, self.names, tags)

    def encode(self, word_lines: list[list[str]]) -> list[list[Window]]:
        """The lines' windows (``windows.Window``), one list per model: the tokeniser's part of
        ``probabilities``, which a pipeline (``pipeline.predict_chunks``) runs ahead of the encoder."""
        return [encoder.encode_lines(word_lines, switch_states(self.tasks, model.config.switches))
                for model, encoder in zip(self.models, self.encoders)]

    def probabilities(self, word_lines: list[list[str]],
                      audio: list[AudioSpec | str | None] | None = None) -> Probabilities:
        """The ensemble's probabilities of every word of every line, by head name (``decoding.Probabilities``):
        the mean of its models', columns in ``self.names`` order; the lines' words one after the other
        (word ``j`` of line ``i`` is row ``sum(len(l) for l in lines[:i]) + j``): ``probabilities_in_parts``
        run whole."""
        return run_to_end(self.probabilities_in_parts(word_lines, audio))

    def probabilities_in_parts(self, word_lines: list[list[str]], audio=None, windows=None,
                               part_words: float = math.inf) -> Generator[None, None, Probabilities]:
        """``probabilities``, pausing after each part of about ``part_words`` words of model work (whole
        batches, batched as ever: the same probabilities); it returns them."""
        offsets = [0]
        for words in word_lines:
            offsets.append(offsets[-1] + len(words))
        windows = windows or self.encode(word_lines)
        members = []
        for k, model_windows in enumerate(windows):
            # A word no window owns (a character inside a longer piece) keeps these: no edit, certainly.
            members.append(no_edit_probabilities(self.names, offsets[-1], len(MARK_CONTEXTS)))
            done = 0
            for filled in self._filled_batches(k, model_windows, word_lines, offsets, audio, members[-1]):
                done += filled
                if done >= part_words:
                    yield
                    done = 0
        return members[0] if len(members) == 1 else mean_probabilities(members)  # one model: no copy of its tables

    def _filled_batches(self, k: int, windows: list[Window], word_lines: list[list[str]], offsets: list[int], audio,
                        out: Probabilities) -> Iterator[int]:
        """Model ``k``'s windows run batch by batch into ``out``; after each batch, the words it filled. A word
        its owner alone predicts takes that window's probabilities; a word several windows predict
        (``Window.weights``: ``window_views`` > 1) takes their weighted mean, written after the last batch."""
        model, columns = self.models[k], self.columns[k]
        feed = self.runners[k].feed(windows, word_lines, audio, self.audio_cache, self.skip_bad_audio)
        batch_size = min(self.batch_size, self.runners[k].max_batch or self.batch_size)
        views = ViewSums(len(out[HEADS[0].name])) if any(w.weights for w in windows) else None
        for indices, batch in WindowedBatcher(windows, batch_size, pad_id=model.pad_id).arrays():
            fed = feed(indices, batch)
            result = {head.name: in_contexts(fed[head.name], head) for head in HEADS}
            rows, targets = [], []  # each word its owner alone predicts: its (window, place) -> its row in `out`
            viewed = 0
            for row, index in enumerate(indices):
                w = windows[index]
                base = offsets[w.line] + w.start
                if w.weights:
                    views.add(result, row, base, w)
                    viewed += len(w.owned)
                    continue
                for j, owned in enumerate(w.owned):
                    if owned:
                        rows.append((row, j))
                        targets.append(base + j)
            if rows:
                at, targets_a = tuple(np.array(rows, dtype=np.int64).T), np.array(targets, dtype=np.int64)
                for head in HEADS:  # columns: the ensemble's label order
                    place(out[head.name], columns[head.name], targets_a, result[head.name][at])
            yield len(rows) + viewed
        if views is not None:
            for head, (words, means) in views.means().items():
                place(out[head], columns[head], words, means)

    def decode(self, word_lines: list[list[str]], probabilities: Probabilities,
               decode: DecodeConfig | None = None, whole: bool = False,
               deletions: list[list[bool]] | None = None, given: list[list[Tag]] | None = None,
               opens: bool = False) -> list[list[Tag]]:
        """Tags of each line from ``probabilities()``, under ``decode`` (default: this predictor's), by the
        policy of ``decoding.decode_lines`` (deletion, punctuation, then case in the context of the word
        before; a word after a sentence end the tagger added starts upper-case) with this predictor's tasks
        and case forms. ``whole``: each line is a whole utterance (``line_rules.close_utterance``); ``opens``:
        each line begins one (``line_rules.open_utterance``).
        ``deletions`` (per line, per word): which words go, given (an oracle's, for analysis) instead of
        decided, whatever the tasks. ``given`` (per line): the tags of its first words, decided earlier."""
        return decode_lines(word_lines, probabilities, self.names, self.tasks, decode or self.decode_config,
                            self.case_forms, whole, deletions, given, opens, self.rules)


def run_to_end(parts: Generator):
    """What a generator that pauses (``predict_in_parts``, ``probabilities_in_parts``) returns, run without
    pausing."""
    while True:
        try:
            next(parts)
        except StopIteration as done:
            return done.value


def _union(lists) -> list[str]:
    names: list[str] = []
    for tokens in lists:
        names.extend(t for t in tokens if t not in names)
    return names


def words_written(units: list[list[str]], forms: list[str | None]) -> list[str | None]:
    """Per word, its units' written forms joined as a line joins them (no space inside a word), or None
    where all of them vanish; ``forms``: ``tags.written_forms`` of all the words' units, one after the
    other."""
    out, start = [], 0
    for word in units:
        kept = [form for form in forms[start: start + len(word)] if form is not None]
        out.append("".join(kept) if kept else None)
        start += len(word)
    return out
