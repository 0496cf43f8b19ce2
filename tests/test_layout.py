"""The package layout: the import layers of pyproject.toml's ``[tool.importlinter]`` contracts hold (scripts ->
gector_punct_data -> gector_punct; inside gector_punct: service | training -> scoring -> prediction | dataset
-> engines -> model -> audio -> encoders -> text | options; prediction reads no training or scoring code,
scikit-learn or tqdm; only the service imports web libraries), and what prediction loads at run time agrees."""
import os
import shutil
import subprocess
import sys

from conftest import ROOT

SUBPACKAGES = {"text", "encoders", "audio", "model", "engines", "dataset", "prediction", "options", "scoring",
               "training", "service"}


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports") or os.path.join(os.path.dirname(sys.executable), "lint-imports")
    run = subprocess.run([lint, "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout and "5 kept" in run.stdout


def test_the_package_is_its_subpackages():
    """Every module sits in a subpackage named for its part of the architecture; none lies loose."""
    runtime = os.path.join(ROOT, "gector_punct")
    loose = sorted(name for name in os.listdir(runtime) if name.endswith(".py") and name != "__init__.py")
    folders = {name for name in os.listdir(runtime)
               if os.path.isfile(os.path.join(runtime, name, "__init__.py"))}
    assert loose == [] and folders == SUBPACKAGES
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert all(f'"gector_punct.{name}"' in text for name in SUBPACKAGES)
    assert '"gector_punct_data"' in text and '"gector_punct_data.corpora"' in text


def test_prediction_loads_no_training_scoring_or_data_module():
    """What importing prediction loads: none of training, scoring or their libraries, and (the onnx engine being
    the default) not torch, which would bring tqdm with it."""
    probe = ("import sys; before = set(sys.modules); "
             "import gector_punct.prediction.punctuator, gector_punct.prediction.loading, "
             "gector_punct.prediction.settings, gector_punct.options.flags; "
             "print(sorted({m.split('.')[0] if not m.startswith('gector_punct.') else '.'.join(m.split('.')[:2]) "
             "for m in set(sys.modules) - before}))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    loaded = set(eval(run.stdout))
    assert "gector_punct.prediction" in loaded
    assert not loaded & {"gector_punct_data", "gector_punct.training", "gector_punct.dataset",
                         "gector_punct.scoring", "sklearn", "tqdm", "torch", "starlette", "uvicorn"}


def test_the_declared_python_has_the_timeouts_the_service_catches():
    """The service catches ``TimeoutError`` from ``asyncio.wait_for``: the builtin is asyncio's from 3.11 on."""
    import asyncio

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        assert 'requires-python = ">=3.11"' in f.read()
    assert asyncio.TimeoutError is TimeoutError
