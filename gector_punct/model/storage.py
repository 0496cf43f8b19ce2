"""How a fine-tuned model's weights are stored compactly: what training changed, over the pretrained encoder.

``lowrank_state(state, base, rank, bits)``: a state dict -> the one to write. Parameters equal to ``base`` (the
pretrained encoder's, under the same keys) are left out; a changed matrix becomes its delta's best rank-``rank``
approximation (truncated SVD), two factors ``A`` (rows x rank) and ``B`` (rank x cols), wherever they take fewer
bytes than the matrix; everything else (vectors, heads, the switching vectors) is kept whole. With ``bits`` 8
the factors are int8, each with one absmax scale per rank.
``expand_lowrank(stored, own)``: the inverse on loading: each factor pair becomes ``own`` weight + A @ B.
``base_fingerprint(encoder_state)``: what names the pretrained weights such a folder was written over.
"""
from __future__ import annotations

import hashlib

import torch

LOWRANK_A, LOWRANK_B, SCALE = ".lowrank_A", ".lowrank_B", "_scale"


def lowrank_state(state: dict[str, torch.Tensor], base: dict[str, torch.Tensor], rank: int,
                  bits: int = 16) -> dict[str, torch.Tensor]:
    if bits not in (8, 16):
        raise ValueError(f"lowrank_bits {bits}: 16 (factors in the store dtype) or 8 (int8 factors)")
    out = {}
    for key, value in state.items():
        value = value.detach().cpu()  # a model trained or loaded on a GPU is stored from the CPU, as its base is
        pretrained = base.get(key)
        if pretrained is not None and pretrained.shape == value.shape:
            if torch.equal(pretrained, value):
                continue
            rows, cols = value.shape if value.dim() == 2 else (0, 0)
            if (rows + cols) * rank * bits < rows * cols * 16:  # the factors are smaller than the matrix
                u, s, vh = torch.linalg.svd((value - pretrained).float(), full_matrices=False)
                a, b = u[:, :rank] * s[:rank], vh[:rank]
                if bits == 8:
                    out.update(_quantized(key + LOWRANK_A, a, dim=0) | _quantized(key + LOWRANK_B, b, dim=1))
                else:
                    out.update({key + LOWRANK_A: a, key + LOWRANK_B: b})
                continue
        out[key] = value
    return out


def expand_lowrank(stored: dict[str, torch.Tensor], own: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``stored`` with each factor pair (and scales) replaced by the full weight ``own[key] + A @ B``."""
    state = dict(stored)
    for key in [k for k in state if k.endswith(LOWRANK_A)]:
        name = key[: -len(LOWRANK_A)]
        a, b = (_dequantized(state, name + part) for part in (LOWRANK_A, LOWRANK_B))
        state[name] = own[name] + a @ b
    return state


def _quantized(key: str, factor: torch.Tensor, dim: int) -> dict[str, torch.Tensor]:
    """A factor as int8 with one absmax scale per rank: along ``dim`` (A's columns, B's rows), where one
    singular direction lies, so a small direction is not rounded away by a large one."""
    scale = factor.abs().amax(dim=dim, keepdim=True).clamp_min(1e-12) / 127
    return {key: (factor / scale).round().to(torch.int8), key + SCALE: scale}


def _dequantized(state: dict[str, torch.Tensor], key: str) -> torch.Tensor:
    """A stored factor in float32 (an int8 one times its scale); removes it and its scale from ``state``."""
    factor, scale = state.pop(key).float(), state.pop(key + SCALE, None)
    return factor if scale is None else factor * scale.float()


def base_fingerprint(encoder_state: dict[str, torch.Tensor]) -> str:
    """What identifies the pretrained encoder a partial model folder's weights go over: ``sha256:`` + the
    SHA-256 of every tensor's key, dtype, shape and bytes, keys in sorted order. The pooler is left out:
    the tagger never reads it, and transformers initialises it at random for a sentence encoder that ships
    none (so it would differ between two loads of the same encoder)."""
    digest = hashlib.sha256()
    for key in sorted(k for k in encoder_state if not k.startswith("pooler.")):
        tensor = encoder_state[key].detach().cpu().contiguous()
        digest.update(f"{key}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy())
    return "sha256:" + digest.hexdigest()
