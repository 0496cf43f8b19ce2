"""Word/subword alignment and windowing of long lines: every word predicted once, by the right window."""
import random

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import tiny_tagger
from gector_punct.model.windows import TextEncoder, WindowedBatcher, assign_owners, load_tokenizer, plan_windows
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import Tag
from gector_punct.text.units import split_edges
from gector_punct.model.vocabulary import Vocabulary


@settings(max_examples=300)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=300), st.integers(5, 60), st.integers(0, 20))
def test_windows_cover_every_word_within_budget(counts, budget, overlap):
    spans = plan_windows(counts, budget, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == len(counts)
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert s0 < s1 <= e0 < e1  # ordered, overlapping or touching, always advancing
    for s, e in spans:
        assert sum(counts[s:e]) <= budget or e - s == 1
    owners = assign_owners(spans, counts)
    for i, k in enumerate(owners):
        assert spans[k][0] <= i < spans[k][1]


@settings(max_examples=300)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=300), st.integers(5, 60), st.integers(0, 20))
def test_a_word_without_pieces_never_ends_a_window(counts, budget, overlap):
    """A character inside a longer piece has no pieces and reads the next word's: a window that ended on it
    would point it past its own words."""
    counts = counts + [1]  # a line's last unit always has a piece
    spans = plan_windows(counts, budget, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == len(counts)
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert s0 < s1 <= e0 < e1
        assert counts[e0 - 1] > 0, (s0, e0)
    for s, e in spans:
        assert sum(counts[s:e]) <= budget


def test_owner_is_the_window_with_most_context():
    counts = [1] * 100
    spans = plan_windows(counts, 40, 20)
    owners = assign_owners(spans, counts)
    for i, k in enumerate(owners):
        s, e = spans[k]
        own = min(i - s if s else 1e9, e - i - 1 if e < 100 else 1e9)
        for s2, e2 in spans:
            if s2 <= i < e2:
                assert own >= min(i - s2 if s2 else 1e9, e2 - i - 1 if e2 < 100 else 1e9)


def test_words_without_subwords_and_long_words(encoder_name):
    encoder = TextEncoder(load_tokenizer(encoder_name), max_len=16, pieces_per_token=3)
    words = ["hello", "\u200b", "antidisestablishmentarianism", "x"]
    (pieces,) = encoder.word_pieces([words])
    assert len(pieces) == 4 and all(1 <= len(p) <= 3 for p in pieces)
    assert pieces[1] == [encoder.unk_id]
    windows = encoder.windows_for(0, pieces)
    assert sum(sum(w.owned) for w in windows) == 4
    for w in windows:
        assert len(w.input_ids) <= 16
        assert w.input_ids[0] == encoder.prefix[0] and w.input_ids[-1] == encoder.suffix[-1]


@pytest.fixture(scope="module")
def random_punctuator(encoder_name):
    vocab = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?"],
                        "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"], "d_tags": ["CORRECT", "INCORRECT"]})
    model = tiny_tagger(vocab, max_len=48)
    return Punctuator([model], batch_size=8, device="cpu")


def test_long_line_same_words_every_word_once(random_punctuator):
    rng = random.Random(0)
    vocab = "the a house went to new york tuesday because of coffee interesting notwithstanding".split()
    words = [rng.choice(vocab) for _ in range(5000)]
    (out,) = random_punctuator.predict([" ".join(words)])
    out_words = out.split()
    assert len(out_words) == 5000
    assert [split_edges(w)[1].lower() for w in out_words] == words


def test_no_seam_bugs(random_punctuator):
    """Each word's probabilities and punctuation equal what its owner window gives when run on its own; so
    does its case where the word before is owned too (case depends on how the word before is punctuated,
    which for the window's context words comes from their own owners)."""
    rng = random.Random(1)
    words = [rng.choice("one two three four five six seven eight nine ten".split()) for _ in range(700)]
    probs = random_punctuator.probabilities([words])
    (tags,) = random_punctuator.decode([words], probs)
    encoder = random_punctuator.encoders[0]
    windows = encoder.encode_lines([words])
    assert len(windows) > 10
    for w in windows[:: max(1, len(windows) // 6)]:
        piece = words[w.start: w.end]
        alone_probs = random_punctuator.probabilities([piece])
        (alone,) = random_punctuator.decode([piece], alone_probs)
        for j, owned in enumerate(w.owned):
            if owned:
                for head in probs:
                    assert np.allclose(probs[head][w.start + j], alone_probs[head][j], atol=1e-5), (head, w.start, j)
                assert tags[w.start + j].punct == alone[j].punct, (w.start, j)
                if j and w.owned[j - 1]:
                    assert tags[w.start + j] == alone[j], (w.start, j)


def test_batcher_restores_order_and_pads(encoder_name):
    encoder = TextEncoder(load_tokenizer(encoder_name), max_len=32, pieces_per_token=5)
    lines = [["word"] * n for n in (3, 30, 1, 12, 7)]
    windows = encoder.encode_lines(lines)
    seen = []
    for indices, batch in WindowedBatcher(windows, batch_size=2, pad_id=0):
        assert batch["input_ids"].shape[0] == len(indices) <= 2
        for row, i in enumerate(indices):
            assert int(batch["word_mask"][row].sum()) == len(windows[i].word_starts)
        seen.extend(indices)
    assert sorted(seen) == list(range(len(windows)))


def test_tag_default_is_keep():
    assert str(Tag()) == "$KEEP"
