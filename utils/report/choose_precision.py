#!/usr/bin/env python
"""Choose the onnx engine's precision of a model folder by its dev figures: the fastest int8 precision that
keeps the model's quality (``int8``, else ``int8-attention``), else float32; ``--store`` writes the choice into
the folder's config.json (``engine_precision``).

    python utils/report/choose_precision.py --model_path models/default_en \\
        --ted_dev W/ted.dev.tagged --cased_dev W/cased.dev.tagged [--store]

The rule (``keeps``): an int8 precision keeps the quality when each dev F1 (TED dev lines: punctuation; cased
dev lines: punctuation and case; lines read as fragments, as the model cards report them, under the folder's
decoding defaults) is at most ``--budget`` (0.3) below float32's, and it passes every line of the everyday
file (``tests/data/everyday.jsonl``) that float32 passes among those this model restores (``--role``: English
punctuation lines, the disfluent lines of the switching model, or the other languages). A precision whose graph
failed the int8 check when it was built (``onnx_export.check_int8``: it runs in float32) is never chosen. Prints each
precision's figures, its words/s over the TED dev lines in this process (``predict``, batch 32), and the
choice.
"""
import os
import time
from dataclasses import dataclass

from everyday_report import EVERYDAY_FILE, restore_records  # (utils/report/, this script's folder)
from gector_punct.dataset.reader import DatasetReader
from gector_punct.model.config import ENGINE_PRECISIONS, store_engine_precision
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.scoring.evaluation import score_tags
from gector_punct.scoring.everyday import read_records, violations
from gector_punct_data.script import run_script

ROLES = ("english", "switch", "multilingual")
FASTEST_FIRST = ("int8", "int8-attention")  # the int8 precisions, most matrix products in int8 first


def dev_figures(punctuator: Punctuator, ted: list, cased: list) -> dict[str, float]:
    """The dev F1s the rule compares, and words/s of ``predict`` over the TED dev lines."""
    out = {}
    for name, instances in (("ted", ted), ("cased", cased)):
        words = [i.words for i in instances]
        scores = score_tags(instances, punctuator.decode(words, punctuator.probabilities(words)))
        out[f"{name} punct F1"] = scores["punct"]["overall"]["f1"]
        if name == "cased":
            out["cased case F1"] = scores["case"]["overall"]["f1"]
    lines = [" ".join(i.words) for i in ted]
    started = time.perf_counter()
    punctuator.predict(lines)
    out["words/s"] = sum(len(i.words) for i in ted) / (time.perf_counter() - started)
    return out


def everyday_passes(model_path: list[str], role: str, precision: str) -> set[str]:
    """The ids of the everyday records this model restores (as ``role``) that it passes."""
    records = read_records(EVERYDAY_FILE)
    mine = [r for r in records if (r["lang"] != "en") == (role == "multilingual")
            and ("disf" in r["tasks"]) == (role == "switch")]
    outputs = restore_records(mine, model_path, model_path, model_path, precision=precision)
    return {r["id"] for r, out in zip(mine, outputs) if not violations(out, r)}


def keeps(figures: dict[str, dict[str, float]], passes: dict[str, set[str]], precision: str, budget: float) -> bool:
    """Whether ``precision`` keeps float32's quality: every dev F1 within ``budget``, no everyday line lost."""
    f32, other = figures["float32"], figures[precision]
    close = all(other[k] >= f32[k] - budget for k in f32 if k.endswith("F1"))
    return close and passes["float32"] <= passes[precision]


@dataclass(kw_only=True)
class ChoosePrecisionFlags(Settings):
    model_path: list[str] = flag(help="the model folder (several: an ensemble's members, all at the same precision)")
    ted_dev: str = flag(help="preprocessed TED dev file")
    cased_dev: str = flag(help="preprocessed cased dev file")
    role: str | None = flag(None, "which everyday lines the model restores", choices=ROLES,
                            default_text="switch for a folder named switch_en, multilingual for multilingual, "
                                         "else english")
    budget: float = flag(0.3, "dev F1 an int8 precision may lose", min=0)
    store: bool = flag(False, "write the choice into the model folder's config.json")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ChoosePrecisionFlags)
    args = p.settings(ChoosePrecisionFlags, p.parse_args(argv))
    name = os.path.basename(os.path.normpath(args.model_path[0]))
    role = args.role or {"switch_en": "switch", "multilingual": "multilingual"}.get(name, "english")
    ted, cased = DatasetReader().read(args.ted_dev), DatasetReader().read(args.cased_dev)
    figures, passes, failed = {}, {}, set()
    for precision in ENGINE_PRECISIONS:
        punctuator = Punctuator.load(args.model_path, precision=precision, fragments=True)
        if any(model.meta["precision"] != precision for model in punctuator.models):
            failed.add(precision)  # its int8 graph failed the check when it was built: float32 ran
            print(f"{precision}: its graph failed the int8 check (onnx_export.check_int8) and runs in float32")
            continue
        figures[precision] = dev_figures(punctuator, ted, cased)
        passes[precision] = everyday_passes(args.model_path, role, precision)
        shown = ", ".join(f"{k} {v:,.2f}" if "F1" in k else f"{k} {v:,.0f}" for k, v in figures[precision].items())
        print(f"{precision}: {shown}, everyday ({role}) {len(passes[precision])} passed")
    for precision in (p for p in FASTEST_FIRST if p not in failed):
        lost, gained = sorted(passes["float32"] - passes[precision]), sorted(passes[precision] - passes["float32"])
        print(f"everyday, {precision} against float32: loses {lost or 'none'}, gains {gained or 'none'}")
    choice = next((p for p in FASTEST_FIRST if p not in failed and keeps(figures, passes, p, args.budget)), "float32")
    print(f"choice: {choice}")
    if args.store:
        for folder in args.model_path:
            store_engine_precision(folder, choice)
            print(f"stored engine_precision {choice} in {folder}/config.json")
    return 0


if __name__ == "__main__":
    run_script(main)
