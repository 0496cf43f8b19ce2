"""The package layout: the import layers of pyproject.toml's ``[tool.importlinter]`` contracts hold (scripts ->
gector_punct_data -> gector_punct; inside gector_punct: service | training | cli -> scoring -> prediction | dataset
-> engines -> model -> audio -> encoders -> text | options; prediction reads no training or scoring code,
scikit-learn or tqdm; only the service imports web libraries), and what prediction loads at run time agrees."""
import os
import shutil
import subprocess
import sys

from conftest import ROOT

SUBPACKAGES = {"text", "encoders", "audio", "model", "engines", "dataset", "prediction", "options", "scoring",
               "training", "service", "transcripts", "cli"}


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports") or os.path.join(os.path.dirname(sys.executable), "lint-imports")
    run = subprocess.run([lint, "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        contracts = f.read().count("[[tool.importlinter.contracts]]")
    assert contracts >= 7 and "0 broken" in run.stdout and f"{contracts} kept" in run.stdout


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


# Words the docstrings use for a variable, not a module: ``batch.targets``, ``settings.engine`` ...
VARIABLE_WORDS = {"batch", "settings", "metrics", "options", "config", "self"}


def test_the_docstrings_name_modules_and_names_that_exist():
    """Docstrings named ``encoding.collate``, ``io.atomic_write``, ``mpnet_encoder``, ``tags.PAUSE_MARKS`` and
    ``light.py`` long after they had moved: each ``module.name`` of a module of the package names something
    that module has, and each ``file.py`` is a file of the repository."""
    import importlib
    import re

    modules, files = {}, set()
    for folder, _, names in os.walk(ROOT):
        files |= {name for name in names if name.endswith(".py")}
    package = os.path.join(ROOT, "gector_punct")
    for folder, _, names in os.walk(package):
        for name in names:
            if name.endswith(".py") and name != "__init__.py":
                dotted = os.path.relpath(os.path.join(folder, name), ROOT)[:-3].replace(os.sep, ".")
                modules.setdefault(name[:-3], []).append(dotted)
    wrong = []
    for folder, _, names in os.walk(package):
        for name in (n for n in names if n.endswith(".py")):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for ref in re.finditer(r"``((?:[a-z_]+\.)*[a-z_0-9]+)\.([A-Za-z_][A-Za-z0-9_]*)``", text):
                head, attr = ref.group(1).split(".")[-1], ref.group(2)
                if attr == "py":
                    found = f"{head}.py" in files
                elif head in modules and head not in VARIABLE_WORDS:
                    found = any(hasattr(importlib.import_module(m), attr) for m in modules[head])
                else:
                    found = head not in ("encoding", "io", "mpnet_encoder", "light")  # modules that are gone
                if not found:
                    wrong.append(f"{name}: {ref.group(0)}")
    assert not wrong, wrong


def test_the_engine_threads_flag_has_one_home():
    """``--threads`` was defined in six places with four defaults: it is ``PredictionSettings.threads``, and a
    script that takes it reuses that field (``reused``)."""
    import re

    own = []
    for folder in (ROOT, os.path.join(ROOT, "utils"), os.path.join(ROOT, "gector_punct")):
        for base, _, names in os.walk(folder) if folder != ROOT else [(folder, None, os.listdir(folder))]:
            for name in (n for n in names if n.endswith(".py")):
                with open(os.path.join(base, name), encoding="utf-8") as f:
                    if re.search(r"^\s+threads: [^=]+= flag\(", f.read(), re.MULTILINE):
                        own.append(name)
    assert sorted(own) == ["benchmark_training.py", "settings.py"], own  # training's torch threads: another setting
