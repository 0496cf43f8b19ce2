"""DatasetReader: preprocessed files -> instances -> encoder windows with label indices.

``DatasetReader.read(path) -> list[Instance]`` parses the GECToR format (``word SEPL|||SEPR tag`` tokens,
one line per text; errors name the file and line). ``DatasetReader.encode(instances, text_encoder, vocab)
-> EncodedData`` tokenises everything once: the instances it encoded (the given ones, then their restored
copies), the windows (see ``encoding``; ``window.line`` indexes those instances) and per window, per word,
one label index per head (``vocabulary.HEADS``). ``EncodedData.sample(rng)`` draws one epoch's windows:

* an instance with a task on whose tags are all ``$KEEP`` is kept with probability ``tn_prob`` (GECToR's
  meaning: a sentence with nothing to correct); a no-conversion instance (no task on) is always kept when
  it teaches something (``off_tasks="unchanged"``), and an instance that teaches nothing is never drawn;
* with ``targets=True`` the reader also makes, from each instance, its already-restored *target* with all
  tags ``$KEEP`` (case unknown where the corpus has none), also kept with probability ``tn_prob``: this is
  how the model learns to leave restored text alone.

Tasks (switching tokens, seed 001): every instance carries the set of tasks its tags were made for
(``tasks``): the ``read(path, tasks)`` argument, else the file's ``X.tasks`` sidecar (one line, e.g.
``disf``; written by ``preprocess_data.py --tasks``), else ``punc``. ``encode`` gives each window the switch
states of its instance for the model's ``switches``. ``off_tasks`` says what a window teaches about a task
that is off: ``untaught`` (default) nothing (with punc off only "not deleted"), ``unchanged`` what its
target says, i.e. that the off task changes nothing (seed 001's reading of a switch: with punc off no mark
or case change, taught by the disfluency and no-conversion sets alike).

Audio (UniPunc): a tagged file ``X`` with a file ``X.audio`` beside it (written by ``preprocess_data.py -a``;
line i: the audio of line i, or empty) gives each instance its ``audio``; so does a ``.jsonl`` file of
UniPunc-style records ``{"audio": path | "path:offset:frames" | null, "tgt_text": "..."}``, read directly
(the source is ``make_source(tgt_text)``). ``origin`` (``file:line``) names the line in audio errors.

ASR-like noise (``with_asr_noise(instances, AsrNoise)``, training lines only): the instances, then the noised
copies of a share of them (``asr_noise.noised_copy``: words swapped, dropped and inserted as a recogniser
does, tags made again from the noised target), each copy's ``origin`` ending `` (noised)``; a copy keeps
its line's tasks and audio (the same speech, misheard).
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Iterator

from gector_punct.audio.waves import AudioSpec, read_audio_list, read_jsonl
from gector_punct.dataset.asr_noise import AsrNoise, noised_copy
from gector_punct.model.windows import TextEncoder, Window
from gector_punct.text.files import InputError, read_lines
from gector_punct.text.tags import (CASE_UNKNOWN, KEEP, START_CONTEXT, Tag, looks_cased, make_source,
                                    mark_context, parse_tagged, tags_from_pair, written_forms)
from gector_punct.text.alignment import AlignmentError
from gector_punct.text.tasks import DEFAULT_TASKS, parse_tasks, switch_states
from gector_punct.text.units import split_units
from gector_punct.model.vocabulary import IGNORE, NOT_DELETED, Vocabulary, WordLabels

OFF_TASKS = ("untaught", "unchanged")  # what a window teaches about a task that is off (word_labels)


@dataclass
class Instance:
    words: list[str]
    tags: list[Tag]
    audio: AudioSpec | None = None
    origin: str = ""
    tasks: frozenset[str] = DEFAULT_TASKS

    @property
    def all_keep(self) -> bool:
        return not any(t.is_edit for t in self.tags)

    def restored(self) -> Instance:
        """The target text as an instance of its own, every tag ``$KEEP``: the words as the one writer
        (``tags.written_forms``) writes them, so what a deleted word carried has moved (``Uh, so`` -> ``So``)
        and a Chinese line takes full-width marks, as the model's own output would."""
        words, tags = [], []
        for form, tag in zip(written_forms(self.words, self.tags), self.tags):
            if form is not None:
                words.append(form)
                tags.append(Tag(case=CASE_UNKNOWN if tag.case == CASE_UNKNOWN else KEEP))
        return Instance(words, tags, self.audio, self.origin, self.tasks)  # the same speech, written out


@dataclass
class EncodedData:
    instances: list[Instance]
    windows: list[Window]
    labels: list[list[WordLabels]]  # per window, per word
    groups: list[list[int]]  # window indices of each instance
    at_tn_prob: list[bool]  # per instance: drawn with probability tn_prob (a task on, nothing to change)
    tn_prob: float

    def sample(self, rng: random.Random) -> list[int]:
        chosen = []
        for group, at_tn_prob in zip(self.groups, self.at_tn_prob):
            if not at_tn_prob or rng.random() < self.tn_prob:
                chosen.extend(group)
        rng.shuffle(chosen)
        return chosen


class DatasetReader:
    def __init__(self, tn_prob: float = 0.0, targets: bool = False, skip_bad: bool = False,
                 off_tasks: str = "untaught"):
        if off_tasks not in OFF_TASKS:
            raise ValueError(f"off_tasks {off_tasks!r}: one of {', '.join(OFF_TASKS)}")
        self.tn_prob, self.targets, self.skip_bad, self.off_tasks = tn_prob, targets, skip_bad, off_tasks
        self.skipped = 0

    def read(self, path: str, tasks: frozenset[str] | None = None) -> list[Instance]:
        """A tagged (or UniPunc .jsonl) file -> instances, each with ``tasks`` (default: see the module)."""
        tasks = read_tasks(path) if tasks is None else tasks
        instances = self.read_jsonl(path) if path.endswith(".jsonl") else self._read_tagged(path)
        for instance in instances:
            instance.tasks = tasks
        return instances

    def read_each(self, paths: str) -> dict[str, list[Instance]]:
        """Comma-separated files -> {path: its instances}, each file with its own tasks, read once however
        often it is named (a caller that weights a file by naming it twice repeats it itself)."""
        return {path: self.read(path) for path in paths.split(",")}

    @staticmethod
    def with_asr_noise(instances: list[Instance], noise: AsrNoise) -> list[Instance]:
        """The instances, then the ASR-like noised copies of those in the noise's share (``asr_noise``: the
        same copies wherever the same lines are noised with the same settings); with the noise off (share
        0) the same list."""
        if not noise.on:
            return instances
        return instances + [c for c in (noised_copy(i, noise) for i in instances) if c is not None]

    def tagged_instances(self, path: str) -> Iterator[tuple[int, Instance]]:
        """``(line number, instance)`` of each non-empty line of a tagged file, read one line at a time (no
        tasks, no audio: ``read`` adds them); a bad line is an ``InputError`` naming it, or skipped with
        ``skip_bad``."""
        for number, line in read_lines(path):
            if not line.strip():
                continue
            try:
                words, tags = parse_tagged(line)
            except ValueError as err:
                if self.skip_bad:
                    self.skipped += 1
                    continue
                raise InputError(f"{path}:{number}: {err}") from None
            yield number, Instance(words, tags, origin=f"{path}:{number}")

    def _read_tagged(self, path: str) -> list[Instance]:
        numbered = list(self.tagged_instances(path))
        numbers, instances = [n for n, _ in numbered], [i for _, i in numbered]
        if not instances:
            raise InputError(f"{path}: no instances (empty file?)")
        if os.path.exists(path + ".audio"):  # one audio line per text line, the empty ones included
            specs = read_audio_list(path + ".audio", sum(1 for _ in read_lines(path)), path)
            for instance, number in zip(instances, numbers):
                instance.audio = specs[number - 1]
                instance.origin = f"{path}.audio:{number}"
        return instances

    def read_jsonl(self, path: str) -> list[Instance]:
        records = read_jsonl(path)
        cased = looks_cased([text for _, text, _ in records])
        instances = []
        for audio, text, number in records:
            words = split_units(make_source(text))
            try:
                if not words:
                    raise AlignmentError("no words")
                tags = tags_from_pair(words, text, cased)
            except AlignmentError as err:
                if self.skip_bad:
                    self.skipped += 1
                    continue
                raise InputError(f"{path}:{number}: {err}") from None
            instances.append(Instance(words, tags, audio, f"{path}:{number}"))
        if not instances:
            raise InputError(f"{path}: no instances")
        return instances

    def encode(self, instances: list[Instance], text_encoder: TextEncoder, vocab: Vocabulary,
               switches: tuple[str, ...] = ()) -> EncodedData:
        if self.targets:
            instances = instances + [i.restored() for i in instances]
        windows, labels, groups = [], [], []
        for offset in range(0, len(instances), 1024):  # bounded tokenizer calls
            chunk = instances[offset: offset + 1024]
            for k, pieces in enumerate(text_encoder.word_pieces([i.words for i in chunk])):
                encoded_tags = word_labels(vocab, chunk[k].words, chunk[k].tags, chunk[k].tasks, self.off_tasks)
                group = []
                if all(label == IGNORE for word in encoded_tags for label in word.heads):  # teaches nothing
                    groups.append(group)
                    continue
                for window in text_encoder.windows_for(offset + k, pieces, switch_states(chunk[k].tasks, switches)):
                    group.append(len(windows))
                    windows.append(window)
                    labels.append(encoded_tags[window.start: window.end])
                groups.append(group)
        at_tn_prob = [i.all_keep and bool(i.tasks) for i in instances]
        return EncodedData(instances, windows, labels, groups, at_tn_prob, self.tn_prob)


def word_labels(vocab: Vocabulary, words: list[str], tags: list[Tag], tasks: frozenset[str] = DEFAULT_TASKS,
                off_tasks: str = "untaught") -> list[WordLabels]:
    """Per word, its ``WordLabels``: its label index per head, and the mark context it gives the next word
    (``tags.mark_context`` of the word as written; a deleted word passes on the context it was given):
    what ``windows.collate`` takes as ``labels``. Without the punc task only deletion is taught: a kept
    word's punctuation target is ``NOT_DELETED`` (not ``$DELETE``, mark unknown), its case and detection unknown,
    so that a model never learns "one task on means the other is off" (the joint mode stays untrained);
    with neither task (a no-conversion set) nothing is taught: decoding keeps such a line as it is, and a
    switching model's ``$DELETE`` is not even in its distribution while ``disf`` is off (``Seq2Labels``).
    Without the disf task a word tagged ``$DELETE`` (a disfluency kept in a punctuation set's source,
    ``preprocess_data.py --kept_disfluencies``) teaches nothing (all heads unknown: not even "kept", which would
    teach that punc on means disfluencies stay); the words around it are taught their marks as the fluent
    target has them. ``off_tasks="unchanged"``: with punc off a kept word is taught its whole tag (the input's
    marks and case, unchanged), so "no mark" is learnt as what punc off means, on every set with punc off."""
    labels = []
    for w, t, context in zip(words, tags, next_contexts(words, tags)):
        label = WordLabels(*vocab.encode_tag(t), next_context=context)
        if "punc" not in tasks and (t.deletes or off_tasks == "untaught"):
            kept = NOT_DELETED if "disf" in tasks else IGNORE  # with neither task on there is nothing to teach
            label = label._replace(punct=label.punct if t.deletes else kept, case=IGNORE, detect=IGNORE)
        elif t.deletes and "disf" not in tasks:
            label = label._replace(punct=IGNORE, case=IGNORE, detect=IGNORE)
        labels.append(label)
    return labels


def next_contexts(words: list[str], tags: list[Tag]) -> list[int]:
    """Per word, the mark context it gives the word after it (``tags.mark_context`` of the word as written;
    a deleted word passes on the context it was given)."""
    contexts, context = [], START_CONTEXT
    for w, t in zip(words, tags):
        if not t.deletes:
            context = mark_context(t.apply(w))
        contexts.append(context)
    return contexts


def given_contexts(words: list[str], tags: list[Tag]) -> list[int]:
    """Per word, the mark context of the word before it (``start`` for the first): what the case head is
    given in training (``windows.collate_arrays``' ``prev_mark``)."""
    return [START_CONTEXT, *next_contexts(words, tags)[:-1]] if words else []


def read_tasks(path: str) -> frozenset[str]:
    """The tasks of a data file: its ``X.tasks`` sidecar, else ``punc``."""
    sidecar = path + ".tasks"
    if not os.path.exists(sidecar):
        return DEFAULT_TASKS
    text = " ".join(line for _, line in read_lines(sidecar)).strip()
    try:
        return parse_tasks(text)
    except ValueError as err:
        raise InputError(f"{sidecar}:1: {err}") from None
