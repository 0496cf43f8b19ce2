"""gector_punct/model/storage.py: what a compact model folder stores over the pretrained encoder, and that loading
rebuilds it: the best rank-r delta (float16 factors), the same within int8 rounding (int8 factors, half the
bytes), unchanged weights left out, vectors and small matrices whole; the fingerprint that names the base
weights."""
import pytest
import torch

from gector_punct.model.storage import LOWRANK_A, LOWRANK_B, base_fingerprint, expand_lowrank, lowrank_state


def _weights(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    base = {"w": torch.randn(96, 64, generator=g), "b": torch.randn(64, generator=g),
            "same": torch.randn(64, 64, generator=g), "small": torch.randn(4, 4, generator=g)}
    # a delta of rank 12 plus a little noise, as fine-tuning leaves
    delta = torch.randn(96, 12, generator=g) @ torch.randn(12, 64, generator=g) * 0.01
    tuned = {"w": base["w"] + delta + 1e-4 * torch.randn(96, 64, generator=g), "b": base["b"] + 0.1,
             "same": base["same"].clone(), "small": base["small"] + 0.1, "head": torch.randn(5, 64, generator=g)}
    return base, tuned


def _best(delta: torch.Tensor, rank: int) -> torch.Tensor:
    u, s, vh = torch.linalg.svd(delta, full_matrices=False)
    return (u[:, :rank] * s[:rank]) @ vh[:rank]


@pytest.mark.parametrize("bits", [16, 8])
def test_a_stored_state_loads_back_as_the_best_low_rank_delta(bits):
    base, tuned = _weights()
    stored = lowrank_state(tuned, base, rank=12, bits=bits)
    assert "same" not in stored  # unchanged: the pretrained weight loads
    assert torch.equal(stored["b"], tuned["b"]) and torch.equal(stored["small"], tuned["small"])  # whole
    assert torch.equal(stored["head"], tuned["head"])
    assert stored["w" + LOWRANK_A].shape == (96, 12) and stored["w" + LOWRANK_B].shape == (12, 64)
    assert stored["w" + LOWRANK_A].dtype == (torch.int8 if bits == 8 else torch.float32)
    loaded = expand_lowrank(stored, base)
    assert set(loaded) == {"w", "b", "small", "head"}
    error = (loaded["w"] - base["w"] - _best(tuned["w"] - base["w"], 12)).abs().max()
    scale = (tuned["w"] - base["w"]).abs().max()
    assert error < (2e-2 if bits == 8 else 1e-5) * scale


def test_int8_factors_take_about_half_the_bytes_of_float16_ones():
    base, tuned = _weights()

    def size(state):  # as written: floating tensors in float16
        return sum(v.numel() * (1 if v.dtype == torch.int8 else 2) for v in state.values())

    half, full = size(lowrank_state(tuned, base, 12, bits=8)), size(lowrank_state(tuned, base, 12, bits=16))
    factors = (96 + 64) * 12
    assert full - half == factors - 2 * 24  # one byte less per value, and 24 float16 scales more


def test_a_scale_per_rank_keeps_a_weak_direction():
    """One scale for a whole factor would round the weak direction (1e-3 of the strong one) to zero."""
    g = torch.Generator().manual_seed(1)
    u = torch.linalg.qr(torch.randn(64, 2, generator=g))[0]
    v = torch.linalg.qr(torch.randn(48, 2, generator=g))[0]
    base = {"w": torch.zeros(64, 48)}
    tuned = {"w": u @ torch.diag(torch.tensor([1.0, 1e-3])) @ v.T}
    loaded = expand_lowrank(lowrank_state(tuned, base, rank=2, bits=8), base)["w"]
    weak = u[:, 1] @ loaded @ v[:, 1]
    assert weak == pytest.approx(1e-3, rel=0.05)


def test_factors_larger_than_the_matrix_are_not_made():
    base, tuned = _weights()
    stored = lowrank_state(tuned, base, rank=40, bits=16)  # (96 + 64) x 40 > 96 x 64
    assert "w" in stored and "w" + LOWRANK_A not in stored
    assert "w" + LOWRANK_A in lowrank_state(tuned, base, rank=37, bits=8)  # int8 factors: half the bytes
    with pytest.raises(ValueError, match="lowrank_bits 4"):
        lowrank_state(tuned, base, rank=8, bits=4)


def test_base_fingerprint_names_the_weights_not_their_order_or_pooler():
    base, _ = _weights()
    fingerprint = base_fingerprint(base)
    assert fingerprint.startswith("sha256:") and len(fingerprint) == len("sha256:") + 64
    reordered = dict(reversed(list(base.items())))
    assert base_fingerprint(dict(reordered, **{"pooler.dense.weight": torch.randn(4, 4)})) == fingerprint
    changed = dict(base, b=base["b"].clone())
    changed["b"][3] += 1e-6
    assert base_fingerprint(changed) != fingerprint
    assert base_fingerprint(dict(base, b=base["b"].double())) != fingerprint  # same values, other bytes
