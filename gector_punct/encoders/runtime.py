"""Where and how tensors run: the device, the mixed-precision dtype, freed memory back to the OS, and
transformers' console noise.

One policy for training and prediction alike: a device named by the user, else CUDA when there is one;
on CUDA the forward pass runs under autocast in bfloat16 where the GPU supports it, else float16 (whose
gradients then need loss scaling, ``grad_scaler``); on the CPU in float32, no autocast. Importing this module
imports no torch (``trim_heap`` and ``mmap_large_buffers`` serve the onnx engine too); the functions on
devices import it.
"""
from __future__ import annotations

import contextlib
import ctypes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


def pick_device(name: str | None = None) -> torch.device:
    """The named device (ValueError if this torch cannot use it), else CUDA when there is one, else the CPU."""
    import torch

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
    import torch

    if device.type != "cuda":
        return None
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


def autocast(device: torch.device):
    import torch

    dtype = amp_dtype(device)
    return torch.autocast(device.type, dtype=dtype) if dtype is not None else contextlib.nullcontext()


def grad_scaler(device: torch.device) -> torch.amp.GradScaler | None:
    """A loss scaler where autocast runs in float16 (its small range underflows gradients), else None."""
    import torch

    return torch.amp.GradScaler("cuda") if amp_dtype(device) == torch.float16 else None


# A batch of at most this many subword tokens runs on one of torch's threads. Its ops are too short to
# share: the threads meet at a barrier after each, and when another process holds a core the waiting
# thread's turn comes a scheduler slice later (a one-word stream update, one window, took 85-100 ms
# instead of 9 ms next to a nice-19 process). One thread is a little slower on an idle machine and never
# waits. Large batches keep every thread.
SMALL_BATCH_TOKENS = 512


@contextlib.contextmanager
def threads_for(tokens: int, device: torch.device):
    """Within: torch's intra-op threads for a CPU batch of ``tokens`` subwords (one for a small batch)."""
    import torch

    before = torch.get_num_threads()
    if device.type != "cpu" or tokens > SMALL_BATCH_TOKENS or before == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def quiet_transformers() -> None:
    """transformers' per-weight loading bars and notes drown our own output."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()


def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None


_LIBC = _libc()


def trim_heap() -> None:
    """Give the memory freed so far back to the OS (glibc's ``malloc_trim``; elsewhere nothing). Batches of
    varying shapes otherwise leave the heap fragmented, and a long run's peak memory creeps up chunk after
    chunk; trimming between chunks keeps it flat without paying for an mmap per large buffer."""
    if _LIBC is not None and hasattr(_LIBC, "malloc_trim"):
        _LIBC.malloc_trim(0)


def mmap_large_buffers(threshold: int = 1 << 20) -> None:
    """Serve every buffer of ``threshold`` bytes or more with its own mmap, returned to the OS when freed:
    peak memory stays flat on inputs of any size, at the price of a page fault per page of each new buffer
    (system time). glibc only; elsewhere nothing."""
    if _LIBC is not None and hasattr(_LIBC, "mallopt"):
        _LIBC.mallopt(-3, threshold)  # -3: M_MMAP_THRESHOLD
