#!/usr/bin/env python
"""Mutation testing of the modules a change touched: does each of their small semantic mutations make a test
fail? mutmut makes the mutants and runs the tests; this script chooses what it mutates and which tests it runs,
and prints the score and the survivors.

    python utils/mutation_test.py                                 # functions changed since HEAD (uncommitted)
    python utils/mutation_test.py --since HEAD~3                  # ... in the last three commits too
    python utils/mutation_test.py --module gector_punct/text/language.py [--tests tests/test_language.py]
    python utils/mutation_test.py --module gector_punct/prediction/punctuator.py --names "*predict_in_parts*"

What is mutated: ``--module`` files whole; else the functions and methods of the package's .py files whose
lines ``git diff SINCE`` changes (every function of a new, untracked file); ``--names`` (mutmut's mutant-name
globs, ``*predict_in_parts*``) narrows either. Tests: ``--tests``, else per module those of ``configs/mutation_tests.toml`` (a module whose tests
reach it through others: the service, the CLI), else every test file that imports the module by name; mutmut
then runs, for each mutant, only those of these tests that call the mutated function (its first, traced run).
The checkout is copied (tracked and untracked files git does not ignore) into ``--work`` and mutated there,
never here. Prints per module: mutants, killed (a test failed, or it ran past mutmut's time limit), survived,
not covered by the chosen tests, and the score (killed / all); then each survivor and its diff (``--show``).
A survivor is a test to write, or a mutation no output can show (say why in the closing note, and simplify
the code it sits in). Exit 1 when the score of a module is under ``--min_score``. docs/mutation.md.
"""
from __future__ import annotations

import ast
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "gector_punct"
TEST_MAP = os.path.join("configs", "mutation_tests.toml")
KILLED = ("killed", "timeout")


@dataclass(kw_only=True)
class MutationFlags(Settings):
    module: list[str] = flag([], "module files to mutate (gector_punct/...py)",
                             default_text="those changed since --since")
    since: str = flag("HEAD", "the git revision whose diff names the changed modules (HEAD: uncommitted changes)")
    tests: list[str] = flag([], "test files to run",
                            default_text="configs/mutation_tests.toml's, else those importing the module")
    names: str = flag("", "mutate only the mutants whose names match this glob (mutmut's: *predict_in_parts*)",
                      default_text="all of what is mutated")
    work: str = flag("/tmp/gector_punct_mutation", "the folder the checkout is copied to and mutated in")
    max_children: int = flag(2, "mutants run at once", min=1)
    show: int = flag(40, "survivors whose diff is printed", min=0)
    min_score: float = flag(0.0, "exit 1 when a module's score (killed share, 0-1) is under this", min=0.0, max=1.0)


def git_lines(*args: str) -> list[str]:
    done = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise InputError(f"git {' '.join(args)}: {done.stderr.strip().splitlines()[-1:]}")
    return [line for line in done.stdout.splitlines() if line]


def changed_modules(since: str) -> list[str]:
    """The package's Python files changed since ``since`` (committed or not) or new and untracked."""
    names = git_lines("diff", "--name-only", since) + git_lines("ls-files", "--others", "--exclude-standard")
    return sorted({n for n in names if n.startswith(PACKAGE + "/") and n.endswith(".py")
                   and os.path.exists(os.path.join(ROOT, n))})


def changed_lines(path: str, since: str) -> set[int] | None:
    """The lines of ``path`` (as it is now) that ``git diff since`` adds or changes, and the line after each
    deletion; None for a file git does not track (all of it is new)."""
    if not git_lines("ls-files", path):
        return None
    return hunk_lines(git_lines("diff", "-U0", since, "--", path))


def hunk_lines(diff: list[str]) -> set[int]:
    """The new-side lines of a ``git diff -U0``'s hunks (``@@ -a,b +c,d @@``: lines c to c+d-1; a deletion,
    d = 0, touches line c)."""
    lines = set()
    for line in diff:
        match = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
        if match:
            start, count = int(match[1]), int(match[2] or 1)
            lines.update(range(start, start + max(count, 1)))
    return lines


def function_globs(path: str, lines: set[int] | None) -> list[str]:
    """mutmut's mutant-name globs of ``path``'s functions and methods that hold a line of ``lines`` (all of
    them for None): ``module.x_name__mutmut_*``, ``module.xǁClassǁmethod__mutmut_*``."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    spans = [(f"x_{node.name}", node) for node in tree.body if isinstance(node, functions)]
    spans += [(f"x\u01c1{cls.name}\u01c1{node.name}", node) for cls in tree.body if isinstance(cls, ast.ClassDef)
              for node in cls.body if isinstance(node, functions)]
    touched = [key for key, node in spans
               if lines is None or any(node.lineno <= n <= node.end_lineno for n in lines)]
    return [f"{module_name(path)}.{key}__mutmut_*" for key in touched]


def module_name(path: str) -> str:
    """``gector_punct/text/language.py`` -> ``gector_punct.text.language``."""
    return path[:-len(".py")].replace("/", ".").removesuffix(".__init__")


def importing_tests(path: str, test_files: dict[str, str]) -> list[str]:
    """The test files (path -> source) that import ``path``'s module by name: ``from a.b.c import``,
    ``import a.b.c``, ``from a.b import c``."""
    name = module_name(path)
    parent, _, leaf = name.rpartition(".")
    pattern = re.compile(rf"(from\s+{re.escape(name)}\s+import|import\s+{re.escape(name)}\b|"
                         rf"from\s+{re.escape(parent)}\s+import\s+[^\n]*\b{re.escape(leaf)}\b)")
    return sorted(test for test, source in test_files.items() if pattern.search(source))


def tests_for(path: str, mapped: dict[str, list[str]], test_files: dict[str, str]) -> list[str]:
    """A module's tests: the map's (``configs/mutation_tests.toml``), else those importing it."""
    return mapped.get(path) or importing_tests(path, test_files)


def read_sources(folder: str) -> dict[str, str]:
    out = {}
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as f:
                out[f"{folder}/{name}"] = f.read()
    return out


def read_map() -> dict[str, list[str]]:
    path = os.path.join(ROOT, TEST_MAP)
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        return {module: list(tests) for module, tests in tomllib.load(f).get("tests", {}).items()}


def copy_checkout(work: str) -> None:
    """The checkout's files (tracked, and untracked ones git does not ignore) copied into ``work``, afresh."""
    shutil.rmtree(work, ignore_errors=True)
    for name in git_lines("ls-files", "--cached", "--others", "--exclude-standard"):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
            shutil.copy2(source, os.path.join(work, name))


def mutmut_config(modules: list[str], tests: list[str], work: str) -> str:
    """The ``[tool.mutmut]`` table for this run: the modules mutated, the tests run, every other top-level
    file and folder of the checkout copied beside the mutants (the tests read models/, utils/, configs/)."""
    copied = sorted(n for n in os.listdir(work) if n not in (PACKAGE, "tests", "mutants") and not n.startswith("."))
    quoted = lambda items: "[" + ", ".join(f'"{i}"' for i in items) + "]"  # noqa: E731
    return (f"\n[tool.mutmut]\nsource_paths = {quoted([PACKAGE])}\nonly_mutate = {quoted(modules)}\n"
            f"also_copy = {quoted(copied)}\npytest_add_cli_args_test_selection = {quoted(tests)}\n"
            f'pytest_add_cli_args = ["-x", "-q", "-p", "no:cacheprovider"]\nprocess_isolation = "forkserver"\n')


def run_mutmut(work: str, globs: list[str], max_children: int) -> dict[str, str]:
    """mutmut run in ``work`` on the mutants ``globs`` name (none: all); each of those mutants' name -> its
    status (``killed``, ``survived``, ``no tests`` ...)."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")  # mutmut puts its mutants first on the path
    command = ["mutmut", "run", "--max-children", str(max_children)] + globs
    with open(os.path.join(work, "mutmut.log"), "w", encoding="utf-8") as log:
        subprocess.run(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    done = subprocess.run(["mutmut", "results", "--all", "true"], cwd=work, env=env, capture_output=True, text=True,
                          check=False)
    statuses = {}
    for line in done.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and (not globs or any(fnmatch.fnmatch(name, glob) for glob in globs)):
            statuses[name] = status
    if not statuses:
        tail = open(os.path.join(work, "mutmut.log"), encoding="utf-8", errors="replace").read()[-2000:]
        raise InputError(f"mutmut made or ran no mutant; the end of {work}/mutmut.log:\n{tail}")
    return statuses


def report(modules: list[str], statuses: dict[str, str], work: str, show: int) -> dict[str, float]:
    """Prints each module's counts and score, then the survivors' diffs; returns the scores."""
    scores = {}
    for path in modules:
        prefix = module_name(path) + "."
        mine = {n: s for n, s in statuses.items() if n.startswith(prefix)}
        counts = Counter(mine.values())
        killed = sum(counts[s] for s in KILLED)
        scores[path] = killed / len(mine) if mine else 1.0
        print(f"{path}: {len(mine)} mutants, {killed} killed, {counts['survived']} survived, "
              f"{counts['no tests']} not covered, score {100 * scores[path]:.1f}%"
              + (f" (other: {dict((s, c) for s, c in counts.items() if s not in KILLED + ('survived', 'no tests'))})"
                 if set(counts) - set(KILLED + ("survived", "no tests")) else ""))
    survivors = [n for n, s in statuses.items() if s not in KILLED]
    for name in survivors[:show]:
        diff = subprocess.run(["mutmut", "show", name], cwd=work, capture_output=True, text=True, check=False).stdout
        print("\n" + "\n".join(line for line in diff.splitlines() if line.startswith(("#", "-", "+"))
                               and not line.startswith(("---", "+++"))))
    return scores


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, MutationFlags)
    flags = p.settings(MutationFlags, p.parse_args(argv))
    modules = flags.module or changed_modules(flags.since)
    globs = [] if flags.module else [g for m in modules for g in function_globs(m, changed_lines(m, flags.since))]
    if flags.names:
        globs = [flags.names] if not globs else [g for g in globs if fnmatch.fnmatch(g.replace("*", "1"), flags.names)]
        modules = flags.module or [m for m in modules if any(g.startswith(module_name(m) + ".") for g in globs)]
    if not modules or (not flags.module and not globs):
        print(f"no function of {PACKAGE}/ changed since {flags.since}: nothing to mutate")
        return 0
    missing = [m for m in modules if not os.path.isfile(os.path.join(ROOT, m))]
    if missing:
        raise InputError(f"--module {missing[0]}: no such file in the checkout")
    test_files, mapped = read_sources("tests"), read_map()
    tests = flags.tests or sorted({t for m in modules for t in tests_for(m, mapped, test_files)})
    if not tests:
        raise InputError(f"no test file imports {', '.join(modules)}: name some with --tests")
    what = ", ".join(globs) if globs else ", ".join(modules)
    print(f"mutating {what}; running {', '.join(tests)}", flush=True)
    copy_checkout(flags.work)
    with open(os.path.join(flags.work, "pyproject.toml"), "a", encoding="utf-8") as f:
        f.write(mutmut_config(modules, tests, flags.work))
    scores = report(modules, run_mutmut(flags.work, globs, flags.max_children), flags.work, flags.show)
    return 1 if any(score < flags.min_score for score in scores.values()) else 0


if __name__ == "__main__":
    run_script(main)
