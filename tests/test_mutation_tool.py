"""utils/mutation_test.py's choices: which functions a diff touched, mutmut's names for them, and which test
files import a module (mutmut itself is run by the script, not here: docs/mutation.md)."""
import importlib.util
import os
import sys

from conftest import ROOT

spec = importlib.util.spec_from_file_location("mutation_test", os.path.join(ROOT, "utils", "mutation_test.py"))
tool = sys.modules["mutation_test"] = importlib.util.module_from_spec(spec)  # dataclasses look it up there
spec.loader.exec_module(tool)


def test_a_diffs_hunks_give_the_lines_they_touch():
    diff = ["diff --git a/x.py b/x.py", "@@ -10,2 +10,3 @@ def f():", "+a", "@@ -40 +41 @@", "@@ -50,3 +52,0 @@"]
    assert tool.hunk_lines(diff) == {10, 11, 12, 41, 52}  # a deletion touches the line after it


def test_the_functions_a_change_touched_get_mutmuts_names():
    module = "gector_punct/text/language.py"
    with open(os.path.join(ROOT, module), encoding="utf-8") as f:
        at = next(n for n, line in enumerate(f, 1) if line.startswith("def guess_language"))
    assert tool.function_globs(module, {at + 2}) == ["gector_punct.text.language.x_guess_language__mutmut_*"]
    assert tool.function_globs(module, {1}) == []  # the docstring: no function
    with open(os.path.join(ROOT, module), encoding="utf-8") as f:
        functions = sum(line.startswith("def ") for line in f)
    assert len(tool.function_globs(module, None)) == functions  # a new file: every function
    with open(os.path.join(ROOT, "gector_punct/prediction/punctuator.py"), encoding="utf-8") as f:
        at = next(n for n, line in enumerate(f, 1) if line.startswith("    def predict_in_parts"))
    assert tool.function_globs("gector_punct/prediction/punctuator.py", {at}) == \
        ["gector_punct.prediction.punctuator.x\u01c1Punctuator\u01c1predict_in_parts__mutmut_*"]


def test_the_tests_of_a_module_are_those_importing_it_or_the_maps():
    package = "gector_punct.text"  # (written apart: this file imports no such module itself)
    sources = {"tests/test_a.py": f"from {package}.language import language_of\n",
               "tests/test_b.py": f"import {package}.language as language\n",
               "tests/test_c.py": f"from {package} import files, language\n",
               "tests/test_d.py": f"# the language of a line\nfrom {package}.languages import x\n"}
    module = "gector_punct/text/language.py"
    assert tool.importing_tests(module, sources) == ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py"]
    assert tool.tests_for(module, {module: ["tests/test_z.py"]}, sources) == ["tests/test_z.py"]
    mapped = tool.read_map()
    assert all(os.path.exists(os.path.join(ROOT, t)) for tests in mapped.values() for t in tests)
    assert all(os.path.exists(os.path.join(ROOT, m)) for m in mapped)
