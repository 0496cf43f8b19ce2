"""Window views at prediction: what several windows say of one word, averaged (``PredictionSettings.
window_views``; the windows and their weights are planned by ``model.windows``).

In: a batch's head outputs (windows x words x ... per head, ``in_contexts``: the case head per mark context)
and each window's ``Window.weights``. ``ViewSums`` adds each window's predictions of the words it holds,
times their weights, and ``means()`` gives per head the words predicted and their weighted means; ``place``
writes one model's rows into the ensemble's tables (its labels' columns there). Imports no torch.
"""
from __future__ import annotations

import numpy as np

from gector_punct.model.vocabulary import CASE_HEAD
from gector_punct.model.windows import Window
from gector_punct.text.tags import MARK_CONTEXTS


class ViewSums:
    """The weighted sums of the probabilities that several windows give each of ``n_words`` words (per head,
    in one model's own labels; the case head per mark context), and each word's weights summed."""

    def __init__(self, n_words: int):
        self.sums: dict[str, np.ndarray] = {}
        self.totals = np.zeros(n_words, dtype=np.float32)

    def add(self, result: dict[str, np.ndarray], row: int, base: int, window: Window) -> None:
        """Window ``window``'s predictions (row ``row`` of a batch's ``result``, ``in_contexts``) of the words
        it holds, rows ``base`` on, each times its weight (none for a word without pieces)."""
        n = len(window.owned)
        weights = np.array(window.weights, dtype=np.float32) * np.array(window.owned, dtype=np.float32)
        self.totals[base: base + n] += weights
        for head, values in result.items():
            if head not in self.sums:
                self.sums[head] = np.zeros((len(self.totals), *values.shape[2:]), dtype=np.float32)
            self.sums[head][base: base + n] += weights.reshape(-1, *(1,) * (values.ndim - 2)) * values[row, :n]

    def means(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per head, the words some window predicted and their weighted means."""
        words = np.flatnonzero(self.totals)
        share = self.totals[words]
        return {head: (words, sums[words] / share.reshape(-1, *(1,) * (sums.ndim - 1)))
                for head, sums in self.sums.items()}


def in_contexts(values: np.ndarray, head) -> np.ndarray:
    """A head's output for a batch (windows x words x ...); the case head's of a model without case context
    (one distribution for every mark context) copied to every context."""
    if head is CASE_HEAD and values.ndim == 3:
        return np.broadcast_to(values[:, :, None, :], (*values.shape[:2], len(MARK_CONTEXTS), values.shape[-1]))
    return values


def place(table: np.ndarray, cols: np.ndarray, targets: np.ndarray, values: np.ndarray) -> None:
    """``values`` (rows x [contexts x] a model's labels) written into ``table`` at rows ``targets``, columns
    ``cols`` (the ensemble's column of each of the model's labels)."""
    if values.ndim == 3:
        table[targets[:, None, None], np.arange(values.shape[1])[None, :, None], cols[None, None, :]] = values
    else:
        table[targets[:, None], cols] = values
