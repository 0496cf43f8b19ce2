"""Where and how tensors run: the device, the mixed-precision dtype, and transformers' console noise.

One policy for training and prediction alike: a device named by the user, else CUDA when there is one;
on CUDA the forward pass runs under autocast in bfloat16 where the GPU supports it, else float16 (whose
gradients then need loss scaling, ``grad_scaler``); on the CPU in float32, no autocast.
"""
from __future__ import annotations

import contextlib

import torch


def pick_device(name: str | None = None) -> torch.device:
    """The named device (ValueError if this torch cannot use it), else CUDA when there is one, else the CPU."""
    if not name:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError as err:
        raise ValueError(f"device {name!r}: {err}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: no CUDA device is usable by this torch ({torch.__version__}); use cpu")
    return device


def amp_dtype(device: torch.device) -> torch.dtype | None:
    """The autocast dtype on this device, or None (no autocast)."""
    if device.type != "cuda":
        return None
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


def autocast(device: torch.device):
    dtype = amp_dtype(device)
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else contextlib.nullcontext()


def grad_scaler(device: torch.device) -> torch.amp.GradScaler | None:
    """A loss scaler where autocast runs in float16 (its small range underflows gradients), else None."""
    return torch.amp.GradScaler("cuda") if amp_dtype(device) == torch.float16 else None


def quiet_transformers() -> None:
    """transformers' per-weight loading bars and notes drown our own output."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
