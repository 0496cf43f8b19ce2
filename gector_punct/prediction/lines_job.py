"""Lines on their way through ``Punctuator.predict``: ``LinesJob(lines, existing, audio, scored)`` holds each
line's words as the tagger reads them and their spacing, which lines still take a tagging pass, what the
steps of the pass in progress made, and writes the lines back (``written``: text; ``restored``: with each
word's confidence, for a ``scored`` job). Importing it imports no torch.
"""
from __future__ import annotations

import numpy as np

from gector_punct.model.windows import Window
from gector_punct.prediction.confidence import Calibration
from gector_punct.prediction.decoding import Probabilities
from gector_punct.prediction.restored import RestoredLine, restored_line
from gector_punct.text.existing import prepare_spaced
from gector_punct.text.numbers.spans import line_number_spans, merged, merged_words
from gector_punct.text.tags import Tag, written_forms
from gector_punct.text.typography import typeset
from gector_punct.text.units import join_units


class LinesJob:
    """Lines on their way through ``Punctuator.predict``: each line's words (``existing.prepare_spaced``
    under ``existing``, one mode for all or each line's: ``given_marks.line_modes``)
    and spacing, its audio (None: none), which lines still take a pass (``todo``: at first those with
    words), what the steps of the pass in progress made (``windows``, ``probabilities``), and the lines
    written back. An empty or whitespace-only line is never tagged and comes back as it was; a line whose
    every word is deleted (``disf``) comes back empty, as a stream writes it."""

    def __init__(self, lines: list[str], existing: str | list[str], audio: list | None = None, scored: bool = False,
                 typography: str = "plain", numbers: str = "words"):
        modes = [existing] * len(lines) if isinstance(existing, str) else existing  # or each line's own
        prepared = [prepare_spaced(line, mode) for line, mode in zip(lines, modes)]
        self.scored, self.typography, self.numbers = scored, typography, numbers
        self.features: dict[int, np.ndarray] = {}  # scored: per line tagged, its kept units' confidence features
        self.lines, self.audio = list(lines), audio
        self.words = [words for words, _ in prepared]
        self.spacings = [spacing for _, spacing in prepared]
        self.todo = [i for i, words in enumerate(self.words) if words]
        self.tagged = set(self.todo)
        self.passes = 0  # tagging passes applied
        self.windows: list[list[Window]] | None = None
        self.probabilities: Probabilities | None = None

    def todo_words(self) -> list[list[str]]:
        return [self.words[i] for i in self.todo]

    def todo_audio(self) -> list | None:
        return [self.audio[i] for i in self.todo] if self.audio else None

    def apply(self, tags: list[list[Tag]], features: list[np.ndarray] | None = None) -> None:
        """The ``todo`` lines' tags applied (and their units' confidence features kept, when ``scored``);
        ``todo`` becomes the lines they changed (looked at again)."""
        changed = []
        for n, (i, line_tags) in enumerate(zip(self.todo, tags)):
            forms = written_forms(self.words[i], line_tags)
            kept = [k for k, form in enumerate(forms) if form is not None]
            if features is not None:
                self.features[i] = features[n][kept]
            if forms != self.words[i]:
                self.words[i], self.spacings[i] = [forms[k] for k in kept], [self.spacings[i][k] for k in kept]
                changed.append(i)
        self.todo, self.windows, self.probabilities = changed, None, None
        self.passes += 1

    def restored(self, calibration: Calibration, threshold: float) -> list[RestoredLine]:
        """The lines as ``written`` writes them, each with its words' confidence (a ``scored`` job's)."""
        tagged = sorted(self.features)
        confidence = calibration.confidence(np.concatenate([self.features[i] for i in tagged])) if tagged else []
        per_line, start = {}, 0
        for i in tagged:
            per_line[i] = confidence[start: start + len(self.words[i])].tolist()
            start += len(self.words[i])
        out = []
        for i in range(len(self.lines)):
            if i not in per_line:
                out.append(RestoredLine(self.written_line(i)))
                continue
            units, spacing, spans = self.written_units(i)
            # a number is as sure as its least sure word
            out.append(restored_line(units, spacing, merged(per_line[i], spans, lambda run, _: min(run)), threshold))
        return out

    def written(self) -> list[str]:
        return [self.written_line(i) for i in range(len(self.lines))]

    def written_line(self, i: int) -> str:
        """Line ``i`` as written out: its words joined, empty when all of them went, untouched when untagged."""
        if self.words[i]:
            units, spacing, _ = self.written_units(i)
            return join_units(units, spacing)
        return "" if i in self.tagged else self.lines[i]

    def written_units(self, i: int) -> tuple[list[str], list[bool], list]:
        """Line ``i``'s units as they are written out, the spaces before them, and the number spans merged
        into them (``numbers.spans``: a line of words set apart by spaces; then ``typography.typeset``:
        French marks spaced). An untagged line's units as they were."""
        units, spacing = self.words[i], self.spacings[i]
        if i not in self.tagged:
            return units, spacing, []
        spans = line_number_spans(units, self.numbers) if all(spacing[1:]) else []
        if spans:
            units, spacing = merged_words(units, spans), merged(spacing, spans, lambda run, _: run[0])
        return typeset(units, self.typography), spacing, spans
