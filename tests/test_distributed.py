"""Two-process DistributedDataParallel training (torchrun, gloo on CPU) follows single-process training on
the same global batch, launched as on a cluster: two launchers, each a "node" of one process, meeting at a
c10d rendezvous endpoint (the form docs/training.md gives for several machines)."""
import json
import os
import socket
import subprocess
import sys

import pytest
from safetensors.torch import load_file

from conftest import ROOT, TINY_ENCODER


def run_training(learnable_data, encoder_name, model_dir, processes: int) -> None:
    config = os.path.join(os.path.dirname(model_dir), "ddp_config.json")
    no_dropout = dict(TINY_ENCODER, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    with open(config, "w", encoding="utf-8") as f:  # no dropout: both runs must compute the same function
        json.dump({"encoder_config": no_dropout, "transformer_model": encoder_name, "dropout": 0.0,
                   "n_epoch": 2, "lr": 3e-3, "batch_size": 16, "max_len": 64, "progress": False, "seed": 5}, f)
    flags = ["train.py", "--config", config, "--train_set", learnable_data["train"],
             "--dev_set", learnable_data["dev"], "--model_dir", model_dir]
    env = dict(os.environ, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1")
    if processes == 1:
        done = subprocess.run([sys.executable] + flags, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-6000:]
        return
    endpoint = f"127.0.0.1:{free_port()}"
    nodes = [subprocess.Popen([sys.executable, "-m", "torch.distributed.run", f"--nnodes={processes}",
                               "--nproc_per_node=1", "--rdzv_backend=c10d", f"--rdzv_endpoint={endpoint}",
                               "--rdzv_id=test_job", "--max_restarts=0"] + flags,
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    for node in nodes:
        _, err = node.communicate(timeout=600)
        assert node.returncode == 0, err[-6000:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(sys.platform != "linux", reason="torchrun with gloo is exercised on Linux")
def test_two_processes_match_one_process(learnable_data, encoder_name, tmp_path):
    single, double = str(tmp_path / "one" / "model"), str(tmp_path / "two" / "model")
    os.makedirs(os.path.dirname(single))
    os.makedirs(os.path.dirname(double))
    run_training(learnable_data, encoder_name, single, 1)
    run_training(learnable_data, encoder_name, double, 2)
    a = load_file(os.path.join(single, "last", "model.safetensors"))
    b = load_file(os.path.join(double, "last", "model.safetensors"))
    assert a.keys() == b.keys()
    worst = max((a[k] - b[k]).abs().max().item() for k in a)
    assert worst < 1e-4, f"weights differ by up to {worst}"
    # Only rank 0 wrote the log: one line per epoch, not two.
    records = [json.loads(line) for line in open(os.path.join(double, "metrics.jsonl"))]
    assert [r["epoch"] for r in records] == [1, 2]
    one = [json.loads(line) for line in open(os.path.join(single, "metrics.jsonl"))]
    assert abs(one[-1]["selection_f1"] - records[-1]["selection_f1"]) < 0.5
