"""Words -> subwords -> encoder windows -> tensors. Written once, shared by training and prediction.

* ``TextEncoder(tokenizer, max_len, pieces_per_token, window_overlap)`` (built from a model's config by
  ``Seq2Labels.text_encoder()``, so training and prediction window alike):
  ``encode_lines(list of word lists) -> list of Window``. Every word gets at least one subword (a word the
  tokenizer turns into nothing becomes ``[UNK]``) and at most ``pieces_per_token``; the tagger reads the
  first subword of each word, spelled as ``sentences.undotted`` gives it (a dotted acronym as one word). The one
  exception: a run of single continuous-script characters (Chinese) is tokenized whole, each subword read
  by the unit of its last character, and a character inside a longer subword has none: it reads the next
  one's, and no window owns it (no mark inside a subword).
  A line longer than one window is cut into windows that overlap by ``window_overlap`` subwords, and each
  other word is *owned* by exactly one window: the one where it has the most context on both sides.
  Only owners' predictions (and losses) count, so nothing is seen twice. Training always windows so.
  At prediction ``views`` > 1 (``PredictionSettings.window_views``) plans a long line's windows a stride of
  about ``budget / views`` subwords apart instead, so that each word away from the line's ends lies in about
  ``views`` windows at different places, every one of them predicts it, and the predictor averages them, each
  window's prediction weighted by ``Window.weights`` (``view_weights``). A line that fits in one window
  is windowed alike whatever ``views`` says.
  With ``n_switches`` (a model with switching tokens) that many placeholder slots follow the special
  prefix, at ``switch_offset``; ``encode_lines(lines, switches)`` records the states on every window.
* ``collate_arrays(windows, pad_id, labels)``: some windows -> one padded batch of numpy arrays (what the
  ONNX engine runs on); ``collate``: the same batch as torch tensors (training takes its own batches, the
  torch engine these). ``WindowedBatcher``: all windows -> length-sorted batches of them (prediction), as
  arrays (``arrays()``) or tensors (iterating).

Importing this module imports no torch: only ``collate`` (and iterating a ``WindowedBatcher``) does.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gector_punct.encoders.registry import resolve_encoder
from gector_punct.model.config import ModelConfig, check_window_views
from gector_punct.text.sentences import undotted
from gector_punct.text.tags import START_CONTEXT
from gector_punct.text.units import is_continuous
from gector_punct.model.vocabulary import HEADS, IGNORE, WordLabels

if TYPE_CHECKING:
    import torch

START_TOKEN = "$START"
def load_tokenizer(name_or_path: str, special_tokens_fix: int = 0):
    """A fast tokenizer that accepts pre-split words; ``special_tokens_fix`` adds ``$START``."""
    from transformers import AutoTokenizer

    from gector_punct.encoders.runtime import quiet_transformers

    quiet_transformers()
    path = resolve_encoder(name_or_path)
    tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True)
    if getattr(tokenizer, "add_prefix_space", None) is False:  # byte-level BPE (RoBERTa, GPT-2)
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True, add_prefix_space=True)
    if special_tokens_fix and START_TOKEN not in tokenizer.get_vocab():
        tokenizer.add_special_tokens({"additional_special_tokens": [START_TOKEN]})
    tokenizer.model_max_length = 1 << 30  # we window long lines ourselves; silence the length warning
    return tokenizer


def character_runs(words: list[str]) -> list[tuple[int, int]]:
    """Spans ``[a, b)`` of ``words`` to tokenize as one string each: runs of single continuous-script
    characters (``units.is_continuous``), every other word alone."""
    runs: list[list] = []  # [a, b, whether the span is a run of characters]
    for k, word in enumerate(words):
        bare = len(word) == 1 and is_continuous(word)
        if bare and runs and runs[-1][2]:
            runs[-1][1] = k + 1
        else:
            runs.append([k, k + 1, bare])
    return [(a, b) for a, b, _ in runs]


@dataclass
class Window:
    """One encoder input: words ``[start, end)`` of line ``line``; ``owned`` marks the words it predicts;
    ``weights`` (a long line windowed with ``views`` > 1; else empty, each word predicted by its owner alone):
    per word, the weight of this window's prediction in the mean of the windows that hold it."""

    line: int
    start: int
    end: int
    input_ids: list[int]
    word_starts: list[int]
    owned: list[bool]
    switches: tuple[int, ...] = ()  # the state of each switching token (``tasks.switch_states``)
    weights: tuple[int, ...] = ()


def plan_windows(piece_counts: list[int], budget: int, overlap: int) -> list[tuple[int, int]]:
    """Word spans ``[start, end)`` covering all words, each within ``budget`` subwords, overlapping.
    A word with no subwords (a character inside a longer piece) ends no span but the last."""
    n = len(piece_counts)
    cum = [0]
    for count in piece_counts:
        cum.append(cum[-1] + count)
    spans, start = [], 0
    while True:
        end = start + 1
        while end < n and cum[end + 1] - cum[start] <= budget:
            end += 1
        while end < n and end - 1 > start and piece_counts[end - 1] == 0:
            end -= 1  # a word without pieces reads the next word's: never the last of a window
        spans.append((start, end))
        if end >= n:
            return spans
        # Go back while the overlap stays within `overlap` subwords and the next window still reaches
        # past this one (through the first word after it that has pieces).
        reach = end
        while reach < n - 1 and piece_counts[reach] == 0:
            reach += 1
        next_start = end
        while (next_start - 1 > start and cum[end] - cum[next_start - 1] <= overlap
               and cum[reach + 1] - cum[next_start - 1] <= budget):
            next_start -= 1
        start = next_start


def thinner_sides(spans: list[tuple[int, int]], piece_counts: list[int], full: float
                  ) -> Iterator[tuple[int, int, float]]:
    """``(span, word, context)`` for each word of each span: the subwords on the word's thinner side inside
    the span, a side that is the line's own start or end counting as ``full``."""
    n = len(piece_counts)
    cum = [0]
    for count in piece_counts:
        cum.append(cum[-1] + count)
    for k, (start, end) in enumerate(spans):
        for i in range(start, end):
            left = full if start == 0 else cum[i] - cum[start]
            right = full if end == n else cum[end] - cum[i + 1]
            yield k, i, min(left, right)


def assign_owners(spans: list[tuple[int, int]], piece_counts: list[int]) -> list[int]:
    """For each word, the span where its smaller side of context (in subwords) is largest."""
    owner, best = [0] * len(piece_counts), [-1.0] * len(piece_counts)
    for k, i, score in thinner_sides(spans, piece_counts, float("inf")):
        if score > best[i]:
            owner[i], best[i] = k, score
    return owner


# A window's weight in a word's mean, from the word's thinner side of context there (subwords).
VIEW_WEIGHTINGS = {"context": lambda context: int(context) + 1, "uniform": lambda context: 1}
DEFAULT_WEIGHTING = "context"  # measured: docs/prediction.md, "Window views"


def view_weights(spans: list[tuple[int, int]], piece_counts: list[int], budget: int,
                 weighting: str = DEFAULT_WEIGHTING) -> list[tuple[int, ...]]:
    """Per span, per word, the weight of the span's prediction of it in the mean over the spans that hold it:
    ``context``, its thinner side of context in subwords plus one (a side at the line's start or end counts
    as a whole ``budget``); ``uniform``, 1."""
    weight = VIEW_WEIGHTINGS[weighting]
    weights: list[list[int]] = [[] for _ in spans]
    for k, _, context in thinner_sides(spans, piece_counts, budget):
        weights[k].append(weight(context))
    return [tuple(w) for w in weights]


def views_overlap(budget: int, overlap: int, views: int) -> int:
    """The overlap (subwords) of consecutive windows that puts each word in about ``views`` windows: a stride
    of about ``budget / views``; ``views`` 1: ``overlap``, as training windows."""
    return overlap if views == 1 else max(overlap, budget - -(-budget // views))


class TextEncoder:
    """Words -> windows (the module docstring); ``views`` and ``weighting``: how a long line is windowed at
    prediction (``views_overlap``, ``view_weights``; 1: owners only, as training windows)."""

    def __init__(self, tokenizer, max_len: int, pieces_per_token: int, window_overlap: int | None = None,
                 n_switches: int = 0, views: int = 1, weighting: str = DEFAULT_WEIGHTING):
        check_window_views(views, "window_views")
        if weighting not in VIEW_WEIGHTINGS:
            raise ValueError(f"view weighting {weighting!r}: one of {', '.join(VIEW_WEIGHTINGS)}")
        self.views, self.weighting = views, weighting
        self.tokenizer = tokenizer
        self.pieces_per_token = pieces_per_token
        # The special tokens around a text, read off the tokenizer itself (CLS/SEP, <s>/</s>, none ...).
        bare = tokenizer("a", add_special_tokens=False)["input_ids"]
        full = tokenizer("a")["input_ids"]
        cut = next(i for i in range(len(full)) if full[i: i + len(bare)] == bare)
        self.prefix, self.suffix = full[:cut], full[cut + len(bare):]
        start_id = tokenizer.convert_tokens_to_ids(START_TOKEN) if START_TOKEN in tokenizer.get_vocab() else None
        if start_id is not None:
            self.prefix = self.prefix + [start_id]
        # Switching tokens follow the prefix: placeholders whose embeddings the model supplies.
        self.switch_offset, self.n_switches = len(self.prefix), n_switches
        self.unk_id = tokenizer.unk_token_id if tokenizer.unk_token_id is not None else self.suffix[0]
        # SentencePiece writes a lone word-boundary piece before a character that does not merge with it
        # (every Chinese character of a line split into units): it says nothing, and the tagger reads a
        # word's first piece, so it is left out of words that have another piece.
        boundary = tokenizer.convert_tokens_to_ids("\u2581") if "\u2581" in tokenizer.get_vocab() else None
        self.boundary_id = boundary if boundary != self.unk_id else None
        self.prefix = self.prefix + [self.unk_id] * n_switches
        self.budget = max_len - len(self.prefix) - len(self.suffix)
        if self.budget < pieces_per_token:
            raise ValueError(f"max_len {max_len} leaves no room for a word of {pieces_per_token} subwords")
        self.overlap = self.budget // 8 if window_overlap is None else window_overlap

    @classmethod
    def of_model(cls, tokenizer, config: ModelConfig, max_len: int | None = None, views: int = 1,
                 weighting: str = DEFAULT_WEIGHTING) -> TextEncoder:
        """Words -> windows as a model of ``config`` reads them (``max_len`` overrides its window size;
        ``views``, ``weighting``: prediction's, the constructor's)."""
        return cls(tokenizer, max_len or config.max_len, config.pieces_per_token, config.window_overlap,
                   len(config.switches), views, weighting)

    def word_pieces(self, lines: list[list[str]]) -> list[list[list[int]]]:
        """Subword ids per word per line, one tokenizer call for the whole batch of lines.

        A run of bare continuous-script characters (``split_units`` makes each one a unit) is tokenized as
        one string, as the encoder was pretrained to read it (``北京`` one piece, not two characters), and
        each piece goes to the unit of its last character. A unit inside a longer piece gets no piece
        (``[]``): it shares the next unit's, and no mark can land inside a subword (``windows_for``)."""
        # A dotted acronym is read spelled as one word, as ``tags.make_source`` writes every training source
        # (``u.s.`` -> ``us``), so that its own periods do not read as a sentence end; the words keep their dots.
        lines = [[undotted(w) for w in words] for words in lines]
        present = [i for i, words in enumerate(lines) if words]
        result: list[list[list[int]]] = [[] for _ in lines]
        if not present:
            return result
        groups = [character_runs(lines[i]) for i in present]
        texts = [lines[i] if len(runs) == len(lines[i]) else ["".join(lines[i][a:b]) for a, b in runs]
                 for i, runs in zip(present, groups)]  # a line without runs goes to the tokenizer as it is
        encoded = self.tokenizer(texts, is_split_into_words=True, add_special_tokens=False,
                                 return_offsets_mapping=True)
        for row, (i, runs) in enumerate(zip(present, groups)):
            pieces: list[list[int]] = [[] for _ in lines[i]]
            for token_id, group, (_, end) in zip(encoded["input_ids"][row], encoded.word_ids(row),
                                                 encoded["offset_mapping"][row]):
                if group is None:
                    continue
                a, b = runs[group]
                if b - a > 1 and token_id == self.boundary_id:
                    continue  # a run's lone word-boundary piece says nothing about any character
                unit = a + max(end - 1, 0) if b - a > 1 else a
                if len(pieces[unit]) < self.pieces_per_token:
                    pieces[unit].append(token_id)
            if self.boundary_id is not None:
                pieces = [p[1:] if len(p) > 1 and p[0] == self.boundary_id else p for p in pieces]
            for _, b in runs:  # the last unit of a span always has a piece: the ones before it may share it
                if not pieces[b - 1]:
                    pieces[b - 1] = [self.unk_id]
            result[i] = pieces
        return result

    def windows_for(self, line: int, pieces: list[list[int]], switches: tuple[int, ...] = ()) -> list[Window]:
        """The windows of one line (``pieces``: its words' subword ids), each with the switch ``switches``."""
        if len(switches) != self.n_switches:
            raise ValueError(f"{len(switches)} switch states for {self.n_switches} switching tokens")
        counts = [len(p) for p in pieces]
        overlap = views_overlap(self.budget, self.overlap, self.views)
        spans = plan_windows(counts, self.budget, overlap) if pieces else []
        viewed = self.views > 1 and len(spans) > 1
        weights = view_weights(spans, counts, self.budget, self.weighting) if viewed else [()] * len(spans)
        owners = assign_owners(spans, counts) if len(spans) > 1 and not viewed else [0] * len(pieces)
        windows = []
        for k, (start, end) in enumerate(spans):
            ids, starts = list(self.prefix), []
            for word in pieces[start:end]:
                starts.append(len(ids))
                ids.extend(word)
            ids.extend(self.suffix)
            # No mark inside a piece: a word without pieces is nobody's.
            owned = [(viewed or owners[i] == k) and counts[i] > 0 for i in range(start, end)]
            windows.append(Window(line, start, end, ids, starts, owned, tuple(switches), weights[k]))
        return windows

    def encode_lines(self, lines: list[list[str]], switches: tuple[int, ...] = ()) -> list[Window]:
        windows = []
        for i, pieces in enumerate(self.word_pieces(lines)):
            windows.extend(self.windows_for(i, pieces, switches))
        return windows


class ReadsWindows:
    """What every tagger shows its predictor, whatever runs it (``Seq2Labels``, ``engines.onnx_runtime``'s
    ``OnnxTagger``): its tasks, padding id and windowing, from its ``config``, ``vocab`` and ``tokenizer``."""

    @property
    def tasks(self) -> frozenset[str]:
        """The tasks this tagger can be asked for: ``punc``, and ``disf`` when it has the ``$DELETE`` label."""
        return self.vocab.tasks

    @property
    def pad_id(self) -> int:
        return self.tokenizer.pad_token_id or 0

    def text_encoder(self, max_len: int | None = None, views: int = 1,
                     weighting: str = DEFAULT_WEIGHTING) -> TextEncoder:
        """Words -> windows as this model reads them (``max_len`` overrides the model's window size; ``views``,
        ``weighting``: ``TextEncoder``'s, prediction's alone)."""
        return TextEncoder.of_model(self.tokenizer, self.config, max_len, views, weighting)


def collate_arrays(windows: list[Window], pad_id: int = 0, labels: list[list[WordLabels]] | None = None
                   ) -> dict[str, np.ndarray]:
    """Padded arrays of these windows: ``input_ids``, ``attention_mask``, ``word_starts`` (int64),
    ``word_mask`` (bool; padded words are False) and, with ``labels`` (per window, per word: its
    ``vocabulary.WordLabels``), each head's ``target_key`` array, IGNORE where the window does not own the
    word, and ``prev_mark``: the mark context of each word's predecessor in the window (``start`` for the
    window's first word). Windows with switching tokens add ``switches`` (windows x switches: each token's
    state)."""
    n_tok = max(len(w.input_ids) for w in windows)
    n_words = max(len(w.word_starts) for w in windows)
    input_ids = np.full((len(windows), n_tok), pad_id, dtype=np.int64)
    attention = np.zeros((len(windows), n_tok), dtype=np.int64)
    starts = np.zeros((len(windows), n_words), dtype=np.int64)
    word_mask = np.zeros((len(windows), n_words), dtype=bool)
    for row, w in enumerate(windows):
        input_ids[row, : len(w.input_ids)] = w.input_ids
        attention[row, : len(w.input_ids)] = 1
        starts[row, : len(w.word_starts)] = w.word_starts
        word_mask[row, : len(w.word_starts)] = True
    out = {"input_ids": input_ids, "attention_mask": attention, "word_starts": starts, "word_mask": word_mask}
    if windows[0].switches:
        out["switches"] = np.array([w.switches for w in windows], dtype=np.int64)
    if labels is not None:
        target = np.full((len(windows), n_words, len(HEADS)), IGNORE, dtype=np.int64)
        for row, (w, window_labels) in enumerate(zip(windows, labels)):
            owned = [j for j, is_owner in enumerate(w.owned) if is_owner]
            if owned:
                target[row, owned] = [window_labels[j].heads for j in owned]
        prev_mark = np.full((len(windows), n_words), START_CONTEXT, dtype=np.int64)
        for row, window_labels in enumerate(labels):
            if len(window_labels) > 1:
                prev_mark[row, 1: len(window_labels)] = [lab.next_context for lab in window_labels[:-1]]
        out.update({head.target_key: target[:, :, k] for k, head in enumerate(HEADS)}, prev_mark=prev_mark)
    return out


def collate(windows: list[Window], pad_id: int = 0, labels: list[list[WordLabels]] | None = None
            ) -> dict[str, torch.Tensor]:
    """``collate_arrays`` as torch tensors (int64 -> long, bool -> bool)."""
    import torch

    return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in collate_arrays(windows, pad_id, labels).items()}


class WindowedBatcher:
    """Batches of at most ``batch_size`` windows, similar lengths together, longest first: each batch's
    buffers then fit where the previous, larger batch's were freed, so the heap does not grow batch after
    batch (ascending lengths left every freed buffer too small for the next).

    Iterating yields ``(indices, tensors)``: the positions of the batch's windows in the given list, and
    their ``collate`` tensors; ``arrays()`` yields ``(indices, arrays)``, their ``collate_arrays``."""

    def __init__(self, windows: list[Window], batch_size: int = 32, pad_id: int = 0):
        self.windows, self.pad_id = windows, pad_id
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].input_ids), reverse=True)
        self.batches = [order[start: start + batch_size] for start in range(0, len(order), batch_size)]

    def __len__(self) -> int:
        return len(self.batches)

    def __iter__(self) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
        for batch in self.batches:
            yield batch, collate([self.windows[i] for i in batch], self.pad_id)

    def arrays(self) -> Iterator[tuple[list[int], dict[str, np.ndarray]]]:
        for batch in self.batches:
            yield batch, collate_arrays([self.windows[i] for i in batch], self.pad_id)
