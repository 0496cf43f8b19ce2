#!/usr/bin/env python
"""Score models on the everyday test file: raw lines of everyday speech (phone calls, lectures, meetings,
spoken numbers, acronyms, brands, partly punctuated lines, questions, symbols, disfluent speech, other
languages), each with what a careful editor accepts (the format and the checks: gector_punct/scoring/everyday.py).

    OMP_NUM_THREADS=1 python utils/report/everyday_report.py --model_path default_en --show_failures

Each line is restored on its own, as predict.py restores one input line (one line in, one line out),
with the record's tasks and the model predict.py runs for them (``shipped.shipped_model``): English
lines by --model_path, or by --switch_model where the tasks include disf (predict.py --tasks disf,punc runs
models/switch_en); lines in other languages by --multilingual_model (predict.py does not choose a model by
language, its user gives --model_path models/multilingual; here the record's lang does). Prints the pass
rate per part (A, B; C is the held-aside check nobody tunes on) and overall, the same per language, and the
failures per category. --no-editor_rules decodes without the editor's rules (``line_rules.EDITOR_RULES``):
what the models get right alone, beside what the rules add.
"""
import json
import os
from collections import Counter
from dataclasses import dataclass

from gector_punct.scoring.everyday import category, pass_rates, read_records, violations
from gector_punct.text.files import atomic_write
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.line_rules import MODEL_RULES
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import FAST_MODEL, MULTILINGUAL_MODEL, SWITCHING_MODEL, shipped_model
from gector_punct.text.tasks import parse_tasks
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EVERYDAY_FILE = os.path.join(ROOT, "tests", "data", "everyday.jsonl")
DISFLUENT_TASKS = parse_tasks("disf,punc")


def route(record: dict, english: list[str], switching: list[str], multilingual: list[str]) -> tuple:
    """(model folders, tasks) that restore ``record``: predict.py's shipped choice for the record's tasks,
    with the given folders standing for the shipped ones; any other language: ``multilingual``."""
    tasks = parse_tasks(record["tasks"])
    if record["lang"] != "en":
        return tuple(multilingual), tasks
    return tuple(switching if shipped_model(tasks) == SWITCHING_MODEL else english), tasks


def restore_records(records: list[dict], english: list[str], switching: list[str], multilingual: list[str],
                    **options) -> list[str]:
    """Each record's input restored (one output line per record, in order); each (folders, tasks) loaded
    once; ``options``: ``Punctuator.load``'s (device, batch_size, fragments)."""
    groups: dict[tuple, list[int]] = {}
    for i, record in enumerate(records):
        groups.setdefault(route(record, english, switching, multilingual), []).append(i)
    outputs = [""] * len(records)
    for (folders, tasks), indices in groups.items():
        punctuator = Punctuator.load(list(folders), tasks=tasks, **options)
        for i, line in zip(indices, punctuator.predict([records[i]["input"] for i in indices])):
            outputs[i] = line
    return outputs


def summarise(records: list[dict], outputs: list[str]) -> dict:
    """Pass rates per part and overall, failures per category, and every record's output and violations."""
    checked = [{"id": r["id"], "part": r["part"], "category": category(r), "input": r["input"], "output": out,
                "violations": violations(out, r)} for r, out in zip(records, outputs)]
    failed = [bool(c["violations"]) for c in checked]
    rates = pass_rates(records, failed)
    languages = {}
    for lang in dict.fromkeys(r["lang"] for r in records):
        mine = [k for k, r in enumerate(records) if r["lang"] == lang]
        languages[lang] = {part: {"passed": p, "total": n, "rate": p / n} for part, (p, n) in
                           pass_rates([records[k] for k in mine], [failed[k] for k in mine]).items()}
    return {"rates": {part: {"passed": p, "total": n, "rate": p / n} for part, (p, n) in rates.items()},
            "languages": languages,
            "failures_by_category": dict(Counter(c["category"] for c in checked if c["violations"])),
            "records": checked}


def format_summary(summary: dict, show_failures: bool) -> str:
    lines = [f"part {part}: {r['passed']}/{r['total']} passed ({100 * r['rate']:.1f}%)"
             for part, r in summary["rates"].items()]
    for lang, rates in summary["languages"].items():
        lines.append(f"  {lang}: " + ", ".join(f"{part} {r['passed']}/{r['total']} ({100 * r['rate']:.0f}%)"
                                              for part, r in rates.items()))
    by_category = summary["failures_by_category"]
    lines.append("failures by category: " + (", ".join(f"{k} {v}" for k, v in sorted(by_category.items()))
                                             or "none"))
    if show_failures:
        for c in summary["records"]:
            if c["violations"]:
                lines += [f"\n{c['id']} [{c['part']}] {c['input']!r}", f"  -> {c['output']!r}",
                          f"  violated: {'; '.join(c['violations'])}"]
    return "\n".join(lines)


@dataclass(kw_only=True)
class EverydayFlags(Settings):
    model_path: list[str] = flag([FAST_MODEL], "model folder(s) for English punc lines; several = an ensemble "
                                               "(the cards' figures: default_en; ensemble_en is what runs when none is named)")
    switch_model: list[str] = flag([shipped_model(DISFLUENT_TASKS)], "model folder(s) for English lines whose tasks "
                                                                     "include disf")
    multilingual_model: list[str] = flag([MULTILINGUAL_MODEL], "model folder(s) for lines in other languages")
    file: str = flag(EVERYDAY_FILE, "the test file")
    json: str | None = flag(None, "write the figures and every output as JSON to this file (the flag alone: to "
                                  "stdout, instead of text)", bare="-")
    show_failures: bool = flag(False, "print each failing line: its input, the output and what it violated")
    editor_rules: bool = flag(True, "decode with the editor's rules (line_rules.EDITOR_RULES: greetings, thanks, "
                                    "question fragments, English questions and clauses, spoken numbers, addresses); "
                                    "off: what the models decide alone (MODEL_RULES)")
    fragments: bool = reused(PredictionSettings, "fragments")
    engine: str = reused(PredictionSettings, "engine")
    precision: str | None = reused(PredictionSettings, "precision")
    device: str | None = reused(PredictionSettings, "device")
    batch_size: int = reused(PredictionSettings, "batch_size")


def parse_args(argv=None) -> EverydayFlags:
    p = FlagParser(__doc__)
    add_flags(p, EverydayFlags)
    return p.settings(EverydayFlags, p.parse_args(argv))


def main(argv=None) -> int:
    args = parse_args(argv)
    records = read_records(args.file)
    options = {"precision": args.precision} if args.engine == "onnx" else {}
    if not args.editor_rules:
        options["rules"] = MODEL_RULES
    outputs = restore_records(records, args.model_path, args.switch_model, args.multilingual_model,
                              device=args.device, batch_size=args.batch_size, fragments=args.fragments,
                              engine=args.engine, **options)
    summary = summarise(records, outputs)
    summary["models"] = {"english": args.model_path, "switch": args.switch_model,
                         "multilingual": args.multilingual_model, "fragments": args.fragments,
                         "editor_rules": args.editor_rules}
    if args.json:
        with atomic_write(args.json) as out:
            json.dump(summary, out, indent=2, ensure_ascii=False)
            out.write("\n")
    if args.json != "-":
        print(format_summary(summary, args.show_failures))
    return 0


if __name__ == "__main__":
    run_script(main)
