"""The package layout: the runtime package ``gector_punct`` (prediction) never imports the data and experiment
package ``gector_punct_data``; imports flow scripts -> gector_punct_data -> gector_punct."""
import ast
import os
import subprocess
import sys

from conftest import ROOT

RUNTIME = os.path.join(ROOT, "gector_punct")
DATA_PACKAGE = "gector_punct_data"


def imported_modules(path: str) -> set[str]:
    """The absolute module names one source file imports, at any depth (top level, inside functions);
    relative imports are left out (inside gector_punct they name gector_punct's own modules)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def runtime_sources() -> list[str]:
    return sorted(os.path.join(folder, name) for folder, _, files in os.walk(RUNTIME)
                  for name in files if name.endswith(".py"))


def test_no_runtime_module_imports_the_data_package():
    sources = runtime_sources()
    assert len(sources) > 20 and os.path.join(RUNTIME, "predictor.py") in sources
    offenders = {os.path.relpath(path, ROOT): sorted(name for name in imported_modules(path)
                                                     if name.split(".")[0] == DATA_PACKAGE)
                 for path in sources}
    assert not {path: names for path, names in offenders.items() if names}


def test_importing_the_predictor_and_scoring_loads_no_data_module():
    probe = ("import sys, gector_punct.predictor, gector_punct.metrics, gector_punct.evaluation; "
             f"print(sorted(m for m in sys.modules if m.split('.')[0] == {DATA_PACKAGE!r}))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_the_data_package_is_packaged_and_not_inside_the_runtime_package():
    assert not os.path.exists(os.path.join(RUNTIME, "corpora"))
    assert not os.path.exists(os.path.join(RUNTIME, "conversion.py"))
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        packages = next(line for line in f if line.startswith("packages ="))
    assert f'"{DATA_PACKAGE}"' in packages and f'"{DATA_PACKAGE}.corpora"' in packages


SERVICE = os.path.join(RUNTIME, "service")
WEB_LIBRARIES = {"starlette", "fastapi", "uvicorn", "httpx", "websockets"}


def test_only_the_service_subpackage_imports_web_libraries():
    sources = runtime_sources()
    assert any(path.startswith(SERVICE + os.sep) for path in sources)
    offenders = {os.path.relpath(path, ROOT): sorted(name for name in imported_modules(path)
                                                     if name.split(".")[0] in WEB_LIBRARIES)
                 for path in sources if not path.startswith(SERVICE + os.sep)}
    assert not {path: names for path, names in offenders.items() if names}
