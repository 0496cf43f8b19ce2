"""The trainer's resumable checkpoint (``last/``): model, optimizer and trainer state in one folder.

``save_checkpoint(folder, model, optimizer, state)`` writes the model in full precision, the optimizer's
tensors as ``optimizer.safetensors`` and ``state`` (epoch, step, best F1, options ...) with the optimizer's
param groups as ``trainer_state.json``, all into a temporary folder that is then swapped in at once: a kill
leaves the previous checkpoint or the new one, never a mix. ``load_optimizer(optimizer, folder, device)``
restores the optimizer from such a folder, with no unpickling.
"""
from __future__ import annotations

import json
import os

import torch
from safetensors.torch import load_file, save_file

from gector_punct.text.files import atomic_write, replace_dir, temporary_dir


def save_checkpoint(folder: str, model, optimizer: torch.optim.Optimizer, state: dict) -> None:
    tmp = temporary_dir(folder)
    model.write_folder(tmp, store_dtype="float32")
    optimizer_state = optimizer.state_dict()
    tensors = {f"{i}.{k}": v.contiguous() for i, s in optimizer_state["state"].items() for k, v in s.items()
               if isinstance(v, torch.Tensor)}
    save_file(tensors, os.path.join(tmp, "optimizer.safetensors"))
    with atomic_write(os.path.join(tmp, "trainer_state.json")) as out:
        json.dump(dict(state, param_groups=optimizer_state["param_groups"]), out, indent=2)
    replace_dir(tmp, folder)


def load_optimizer(optimizer: torch.optim.Optimizer, folder: str, device: torch.device) -> None:
    tensors = load_file(os.path.join(folder, "optimizer.safetensors"))
    state: dict = {}
    for key, value in tensors.items():
        index, name = key.split(".", 1)
        state.setdefault(int(index), {})[name] = value.to(device) if name != "step" else value
    with open(os.path.join(folder, "trainer_state.json"), encoding="utf-8") as f:
        groups = json.load(f)["param_groups"]
    optimizer.load_state_dict({"state": state, "param_groups": groups})
