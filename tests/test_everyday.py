"""The everyday test file (tests/data/everyday.jsonl): the checker (gector_punct/scoring/everyday.py), the file's own
form, the routing of utils/report/everyday_report.py, and the shipped models' pass rate on it."""
import os
import sys
from collections import Counter

from conftest import ROOT
from gector_punct.scoring.everyday import (LANGUAGES, category, pass_rates, part_at, read_records, record_problems,
                                   violations)
from gector_punct.prediction.shipped import FAST_MODEL, MULTILINGUAL_MODEL, SWITCHING_MODEL

sys.path.insert(0, os.path.join(ROOT, "utils"))
import everyday_report  # noqa: E402

EVERYDAY = os.path.join(ROOT, "tests", "data", "everyday.jsonl")


def record(**fields):
    base = {"id": "question-01", "part": "A", "lang": "en", "tasks": "punc", "input": "how much does it cost"}
    return {**base, **fields}


def test_expect_passes_only_the_exact_output():
    r = record(expect="How much does it cost?")
    assert violations("How much does it cost?", r) == []
    assert violations("  How much does it cost?\n", r) == []  # surrounding whitespace is not the text
    assert violations("How much does it cost.", r) == ["expected 'How much does it cost?'"]
    assert violations("how much does it cost?", r) != []


def test_must_and_must_not_are_case_and_mark_sensitive_substrings():
    r = record(input="the meeting is on march third at two", must=["March third", "two."], must_not=["march"])
    assert violations("The meeting is on March third at two.", r) == []
    assert violations("The meeting is on March, third at two.", r) == ["missing 'March third'"]
    assert violations("The meeting is on march third at two?", r) == ["missing 'March third'", "missing 'two.'",
                                                                      "has 'march'"]
    disfluent = record(tasks="disf,punc", input="i think i think so", must=["I think so."],
                       must_not=["think i think", "think I think"])
    assert violations("I think so.", disfluent) == []
    assert violations("I think I think so.", disfluent) == ["has 'think I think'"]


def test_parts_go_by_position():
    assert [part_at(i) for i in range(7)] == ["A", "B", "C", "A", "B", "C", "A"]


def test_record_problems_finds_each_fault():
    assert record_problems(record(expect="How much does it cost?"), 0) == []
    assert record_problems(record(must=["How"], must_not=[]), 0) == []
    faults = {
        "part": record(expect="x", part="C"),
        "lang": record(expect="x", lang="pt"),
        "tasks": record(expect="x", tasks="spell"),
        "id": record(expect="x", id="Question 1"),
        "either": record(expect="x", must=["x"]),
        "neither": record(),
        "both empty": record(must=[], must_not=[]),
        "lists": record(must="How"),
        "input": record(expect="x", input="  "),
        "field": record(expect="x", expected="x"),
    }
    for name, bad in faults.items():
        assert record_problems(bad, 0), name


def test_pass_rates_per_part_and_overall():
    records = [record(part=part_at(i)) for i in range(5)]
    assert pass_rates(records, [False, True, False, False, False]) == {"A": (2, 2), "B": (1, 2), "C": (1, 1),
                                                                      "all": (4, 5)}


def test_the_file_is_well_formed():
    records = read_records(EVERYDAY)
    assert len(records) >= 90
    problems = {r.get("id", i): record_problems(r, i) for i, r in enumerate(records)}
    assert {k: v for k, v in problems.items() if v} == {}
    assert len({r["id"] for r in records}) == len(records)
    assert sum(r["lang"] != "en" for r in records) >= 10
    assert {r["lang"] for r in records} == set(LANGUAGES)
    assert any(r["input"].startswith("\ufeff") for r in records)
    assert sum("disf" in r["tasks"] for r in records) >= 5
    # No line already passes as given: every record asks the model for something.
    assert [r["id"] for r in records if not violations(r["input"], r)] == []
    assert max(Counter(category(r) for r in records).values()) <= len(records) // 8  # no category dominates


def test_report_routes_records_as_predict_py_picks_models():
    english, switching, multi = ["E"], ["S"], ["M"]
    assert everyday_report.route(record(), english, switching, multi) == (("E",), frozenset({"punc"}))
    assert everyday_report.route(record(tasks="disf,punc"), english, switching, multi)[0] == ("S",)
    assert everyday_report.route(record(lang="zh"), english, switching, multi)[0] == ("M",)
    args = everyday_report.parse_args([])
    assert (args.model_path, args.switch_model, args.multilingual_model) == (
        [FAST_MODEL], [SWITCHING_MODEL], [MULTILINGUAL_MODEL])
    assert all(os.path.isdir(folder) for folder in (FAST_MODEL, SWITCHING_MODEL, MULTILINGUAL_MODEL))


# The shipped models pass 126 of the 136 English lines (92.6%; issue 42 asks 95% per part, models/default_en/README.md)
# and 95 of the 129 lines in the other five languages (73.6%; issue 49 asks 85% of part C in each).
PASS_FLOOR = {"en": 0.89, "other": 0.70}


def test_shipped_models_pass_the_everyday_file():
    """The shipped models, as predict.py runs them, on every line; a change that loses lines fails here."""
    records = read_records(EVERYDAY)
    outputs = everyday_report.restore_records(records, [FAST_MODEL], [SWITCHING_MODEL], [MULTILINGUAL_MODEL],
                                              device="cpu")
    summary = everyday_report.summarise(records, outputs)
    print(everyday_report.format_summary(summary, show_failures=False))
    for group, floor in PASS_FLOOR.items():
        mine = [k for k, r in enumerate(records) if (r["lang"] == "en") == (group == "en")]
        passed, total = pass_rates([records[k] for k in mine],
                                   [bool(violations(outputs[k], records[k])) for k in mine])["all"]
        assert passed / total >= floor, (group, passed, total)


def test_the_report_can_leave_the_editors_rules_out():
    """--no-editor_rules (issue 49: the rules-off pass rate beside the rules-on one) decodes with MODEL_RULES:
    a greeting's comma is a rule's (greet_with_commas), so it goes; a Spanish ¿ is a convention's, so it stays."""
    from gector_punct.prediction.line_rules import EDITOR_RULES, LINE_RULES, MODEL_RULES
    assert set(MODEL_RULES) | set(EDITOR_RULES) == set(LINE_RULES) and not set(MODEL_RULES) & set(EDITOR_RULES)
    records = [{"id": "fr-01", "part": "A", "lang": "fr", "tasks": "punc",
                "input": "bonjour à tous merci d'être venus"},
               {"id": "es-01", "part": "A", "lang": "es", "tasks": "punc", "input": "qué hora es"}]
    with_rules = everyday_report.restore_records(records, [FAST_MODEL], [SWITCHING_MODEL], [MULTILINGUAL_MODEL])
    without = everyday_report.restore_records(records, [FAST_MODEL], [SWITCHING_MODEL], [MULTILINGUAL_MODEL],
                                              rules=MODEL_RULES)
    assert with_rules[0] == "Bonjour à tous, merci d'être venus." and without[0] != with_rules[0]
    assert with_rules[1] == without[1] == "¿Qué hora es?"
