"""Per-line audio -> acoustic tensors of encoder-window batches, for training and prediction alike.

``AudioLines(assistant, specs, origins=None, cache_dir=None, skip_bad=False)``: the audio of each text line
(an ``AudioSpec`` or None). ``prepare(lines)`` reads the audio of those lines and, when the model's
extractor is frozen, runs it once per audio (features kept in memory as float16, or on disk under
``cache_dir`` so that a second epoch or a second run reads them back instead). With a fine-tuned extractor
it only checks the files; their waves are read again for every batch (the extractor runs in ``forward``). A missing, unreadable or empty file raises
``AudioError`` naming its origin (``list:line``); with ``skip_bad`` the line is treated as audio-free and
counted in ``skipped``.
``batch(windows, indices, fractions) -> dict`` gives a batch of encoder windows its acoustic inputs:
``acoustic`` (B, T, D) (features, or waves when the extractor is fine-tuned), ``acoustic_lengths`` (B,),
``has_audio`` (B,) and ``text_positions`` (B, subwords): where each subword's word ends in its line, as a
fraction (``bootstrapper.text_fractions``). Every window of a long line gets the line's whole audio.
"""
from __future__ import annotations

import torch

from gector_punct.audio.acoustic import AcousticAssistant
from gector_punct.audio.waves import AudioError, AudioSpec, FeatureCache, bad_audio, check_audio, load_audio
from gector_punct.model.windows import Window


class AudioLines:
    def __init__(self, assistant: AcousticAssistant, specs: list[AudioSpec | None], origins: list[str] | None = None,
                 cache_dir: str | None = None, skip_bad: bool = False, batch_size: int = 8):
        self.assistant, self.specs, self.skip_bad, self.batch_size = assistant, list(specs), skip_bad, batch_size
        self.origins = origins or [str(s) for s in specs]
        self.cache = FeatureCache(cache_dir) if cache_dir and assistant.frozen else None
        self.memory: dict[int, torch.Tensor] = {}  # line -> features (or wave), when there is no disk cache
        self.on_disk: set[int] = set()
        self.checked: set[int] = set()  # fine-tuned extractor: audio found readable
        self.skipped = 0
        self.computed = 0  # extractor runs (a cache hit is none)

    def has(self, line: int) -> bool:
        return self.specs[line] is not None

    def _fail(self, line: int, err: AudioError) -> None:
        bad_audio(self.origins[line], err, self.skip_bad)
        self.specs[line] = None
        self.skipped += 1

    def prepare(self, lines) -> None:
        """Make the inputs of these lines ready (read, extract, cache); bad audio fails or is skipped here."""
        todo = []
        for line in sorted(set(lines)):
            if self.specs[line] is None or line in self.memory or line in self.on_disk or line in self.checked:
                continue
            if self.cache is not None:
                try:
                    if self.cache.get(self.specs[line], self.assistant.extractor.extractor_id) is not None:
                        self.on_disk.add(line)
                        continue
                except AudioError as err:
                    self._fail(line, err)
                    continue
            todo.append(line)
        if not self.assistant.frozen:  # fine-tuned extractor: waves are read per batch, only checked here
            for line in todo:
                try:
                    check_audio(self.specs[line])
                    self.checked.add(line)
                except AudioError as err:
                    self._fail(line, err)
            return
        for start in range(0, len(todo), self.batch_size):
            chunk, waves = [], []
            for line in todo[start: start + self.batch_size]:
                try:
                    waves.append(load_audio(self.specs[line]))
                    chunk.append(line)
                except AudioError as err:
                    self._fail(line, err)
            if not chunk:
                continue
            for line, feats in zip(chunk, self.assistant.extract(waves)):
                self.computed += 1
                if self.cache is not None:
                    self.cache.put(self.specs[line], self.assistant.extractor.extractor_id, feats)
                    self.on_disk.add(line)
                else:
                    self.memory[line] = feats.to(torch.float16)

    def inputs(self, line: int) -> torch.Tensor:
        if line in self.checked:
            return torch.from_numpy(load_audio(self.specs[line]))
        if line in self.memory:
            return self.memory[line].float()
        self.prepare([line])
        if line in self.memory:
            return self.memory[line].float()
        if self.specs[line] is None:  # skipped as bad just now
            raise KeyError(line)
        return self.cache.get(self.specs[line], self.assistant.extractor.extractor_id)

    def batch(self, windows: list[Window], indices: list[int], fractions: list[list[float]]) -> dict[str, torch.Tensor]:
        chosen = [windows[i] for i in indices]
        self.prepare([w.line for w in chosen if self.has(w.line)])
        n_tok = max(len(w.input_ids) for w in chosen)
        positions = torch.zeros(len(chosen), n_tok)
        for row, w in enumerate(chosen):
            fr = fractions[w.line]
            before = fr[w.start - 1] if w.start > 0 else 0.0
            positions[row, : w.word_starts[0] if w.word_starts else len(w.input_ids)] = before  # prefix tokens
            for j, start in enumerate(w.word_starts):
                end = w.word_starts[j + 1] if j + 1 < len(w.word_starts) else len(w.input_ids)
                positions[row, start:end] = fr[w.start + j]  # the last word's value runs on over the suffix
        has = torch.tensor([self.has(w.line) for w in chosen], dtype=torch.bool)
        out = {"text_positions": positions, "has_audio": has}
        if not bool(has.any()):
            return out
        rows = [self.inputs(w.line) if self.has(w.line) else None for w in chosen]
        width = max(len(r) for r in rows if r is not None)
        dims = next(r for r in rows if r is not None).shape[1:]
        acoustic = torch.zeros(len(chosen), width, *dims)
        lengths = torch.ones(len(chosen), dtype=torch.long)
        for row, r in enumerate(rows):
            if r is not None:
                acoustic[row, : len(r)] = r
                lengths[row] = len(r)
        out.update(acoustic=acoustic, acoustic_lengths=lengths)
        return out
