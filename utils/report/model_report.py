#!/usr/bin/env python
"""Score a model on held-out data the way its model card reports it, and optionally tune its decoding.

    python utils/report/model_report.py --model_path default_en \\
        --ted_dev work/default_en/ted.dev.tagged --cased_dev work/default_en/cased.dev.tagged [--tune] [--truecase]

Reports (all on preprocessed dev files, whose gold tags are the reference):
* TED punctuation per class (COMMA, PERIOD, QUESTION, micro-average), each line predicted on its own,
  and the whole dev part as one stream (windowed) — as a transcript would arrive;
* case (non-lower-case words) and sentence boundaries on the cased dev file, given as lower-case lines;
* idempotence: the share of words written otherwise when the model runs on its own output, the cased
  dev lines read as utterances (predict.py's default: restored lines are taken as written, ``DecodeConfig.
  written``) and as fragments (--fragments: a piece of a stream cut anywhere is not read as written);
* consistency of case and punctuation on both dev outputs (``evaluation.consistency``): lower-case words
  after . ? !, capitalised common words after a comma or no mark, lines with an unbalanced quote;
* with --edges, the cased dev file as one stream, and its lines with each line's first-word case and
  last-word marks from the reference: what cutting lines anywhere costs case and boundaries;
* with --truecase, the n-gram `truecase` package's case F1 on the same words (pip install truecase);
* with --tune, a grid over additional_confidence x min_error_probability on those dev files (the case head
  biased like the punctuation head), then over case_confidence alone; the best values become the model
  folder's decoding defaults (``model.store_decode_defaults``).
"""
import json
from dataclasses import dataclass, replace

from gector_punct.scoring.evaluation import consistency, score_tags
from gector_punct.model.config import DecodeConfig, store_decode_defaults
from gector_punct.text.files import atomic_write
from gector_punct.scoring.metrics import format_report, labels_from_words, score
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import model_paths
from gector_punct.dataset.reader import DatasetReader, Instance
from gector_punct.text.tags import written_forms
from gector_punct_data.script import named_values, run_script

GRID_CONFIDENCE = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8)  # weighted training favours edits: room above 0.5
GRID_MIN_ERROR = (0.0, 0.2, 0.4, 0.6)
GRID_CASE_CONFIDENCE = (-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.5)


class DevSets:
    """The two dev files and the model's probabilities on them, computed once and decoded many times."""

    def __init__(self, punctuator: Punctuator, ted_path: str, cased_path: str):
        self.punctuator = punctuator
        self.ted, self.cased = DatasetReader().read(ted_path), DatasetReader().read(cased_path)
        self.ted_probs = punctuator.probabilities([i.words for i in self.ted])
        self.cased_probs = punctuator.probabilities([i.words for i in self.cased])

    def tags(self, decode: DecodeConfig) -> tuple[list, list]:
        """(TED predicted tags, cased predicted tags) under ``decode``."""
        return (self.punctuator.decode([i.words for i in self.ted], self.ted_probs, decode),
                self.punctuator.decode([i.words for i in self.cased], self.cased_probs, decode))

    def scores(self, decode: DecodeConfig) -> tuple[dict, dict, list]:
        """(TED scores, cased scores, cased predicted tags) under ``decode``."""
        ted_tags, cased_tags = self.tags(decode)
        return score_tags(self.ted, ted_tags), score_tags(self.cased, cased_tags), cased_tags

    def objective(self, decode: DecodeConfig) -> float:
        ted, cased, _ = self.scores(decode)
        return (ted["punct"]["overall"]["f1"] + cased["punct"]["overall"]["f1"] + cased["case"]["overall"]["f1"]) / 3


def tune(dev: DevSets, base: DecodeConfig) -> tuple[DecodeConfig, float]:
    """The grid over (additional_confidence, min_error_probability), the case head biased alike; then
    case_confidence alone (ties: the shared value). Every other setting of ``base`` (the model's own:
    ``exclamation``, ``question_opening``, ``deletion_threshold``) is kept."""
    grid = []
    for confidence in GRID_CONFIDENCE:
        for min_error in GRID_MIN_ERROR:
            grid.append((dev.objective(replace(base, additional_confidence=confidence, min_error_probability=min_error,
                                                 case_confidence=confidence)), confidence, min_error))
            print(f"additional_confidence {confidence:.2f} min_error_probability {min_error:.2f}: {grid[-1][0]:.2f}")
    _, confidence, min_error = max(grid)
    case_grid = []
    for case_confidence in GRID_CASE_CONFIDENCE:
        value = dev.objective(replace(base, additional_confidence=confidence, min_error_probability=min_error,
                                      case_confidence=case_confidence))
        case_grid.append((value, case_confidence == confidence, case_confidence))
        print(f"case_confidence {case_confidence:.2f}: {value:.2f}")
    best, _, case_confidence = max(case_grid)
    return replace(base, additional_confidence=confidence, min_error_probability=min_error,
                   case_confidence=case_confidence), best


def truecase_scores(instances: list[Instance]) -> dict:
    import truecase

    caser = truecase.get_truecaser()
    ref, pred = [], []
    for inst in instances:
        gold = written_forms(inst.words, inst.tags)
        kept = [k for k, form in enumerate(gold) if form is not None]
        cased = caser.get_true_case_from_tokens(list(inst.words), "as-is")
        ref.extend(labels_from_words([gold[k] for k in kept], True))
        pred.extend(labels_from_words([cased[k] for k in kept], True))
    return score(ref, pred)


def stream_scores(punctuator: Punctuator, instances: list[Instance], decode: DecodeConfig) -> dict:
    """A dev file's lines joined into one stream of words (windowed, as a transcript would arrive), scored."""
    stream = Instance([w for i in instances for w in i.words], [t for i in instances for t in i.tags])
    tags = punctuator.decode([stream.words], punctuator.probabilities([stream.words]), decode)
    return score_tags([stream], tags)


def idempotence(punctuator: Punctuator, instances: list[Instance], tags: list, decode: DecodeConfig,
                whole: bool) -> float:
    """The share of words (%) written otherwise when the lines, restored as ``tags`` say, are read again the
    same way (``whole``: as utterances, predict.py's default; else as fragments, its --fragments). A tag that
    writes its word as it was (a capital on ``10-hour``) changes nothing."""
    restored = [[form for form in written_forms(i.words, t) if form is not None] for i, t in zip(instances, tags)]
    again = punctuator.decode(restored, punctuator.probabilities(restored), decode, whole=whole)
    changed = sum(form != word for words, line in zip(restored, again)
                  for word, form in zip(words, written_forms(words, line)))
    return 100 * changed / max(1, sum(len(r) for r in restored))


def report(dev: DevSets, decode: DecodeConfig, truecase: bool) -> dict:
    """Every figure of the model card under ``decode``."""
    out: dict = {}
    out["ted_lines"], out["cased_lines"], cased_tags = dev.scores(decode)
    out["ted_stream"] = stream_scores(dev.punctuator, dev.ted, decode)
    out["idempotence_changed_words_pct"] = idempotence(dev.punctuator, dev.cased, cased_tags, decode, whole=False)
    whole_tags = dev.punctuator.decode([i.words for i in dev.cased], dev.cased_probs, decode, whole=True)
    out["idempotence_utterances_changed_words_pct"] = idempotence(dev.punctuator, dev.cased, whole_tags, decode,
                                                                  whole=True)
    ted_tags, _ = dev.tags(decode)
    out["consistency"] = {"ted_lines": consistency(dev.ted, ted_tags), "cased_lines": consistency(dev.cased, cased_tags)}
    if truecase:
        out["truecase_baseline"] = truecase_scores(dev.cased)
    return out


def edge_scores(dev: DevSets, decode: DecodeConfig) -> dict:
    """What cutting lines anywhere costs on the cased dev file: its lines with each line's first-word case
    and last-word marks taken from the reference (the two decisions a line alone cannot settle), and the
    whole file as one stream (windowed, as a transcript would arrive)."""
    cased_tags = dev.punctuator.decode([i.words for i in dev.cased], dev.cased_probs, decode)
    given = []
    for instance, tags in zip(dev.cased, cased_tags):
        tags = list(tags)
        tags[0] = replace(tags[0], case=instance.tags[0].case)
        tags[-1] = replace(instance.tags[-1], case=tags[-1].case)
        given.append(tags)
    return {"cased_lines_edges_given": score_tags(dev.cased, given),
            "cased_stream": stream_scores(dev.punctuator, dev.cased, decode)}


@dataclass(kw_only=True)
class ReportFlags(Settings):
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    ted_dev: str = flag(help="preprocessed TED dev file (uncased: punctuation only)")
    cased_dev: str = flag(help="preprocessed cased dev file (case and boundaries)")
    tune: bool = flag(False, "grid-search the decoding defaults and store them in the model")
    truecase: bool = flag(False, "also score the truecase package's casing (baseline)")
    batch_size: int = reused(PredictionSettings, "batch_size")
    json: str | None = flag(None, "also write all figures to this JSON file")
    engine: str = reused(PredictionSettings, "engine")
    precision: str | None = reused(PredictionSettings, "precision")
    quantize: bool = flag(False, "score the torch engine's dynamic-int8 encoder (with --engine torch; what it costs "
                                 "in F1)")
    extra_dev: list[str] = flag([], "more preprocessed dev files to score and check for consistency, each line on "
                                    "its own, as NAME=PATH items (e.g. whole-utterance lines: "
                                    "ted_whole=work/default_en/ted_whole.dev.tagged)", allow_empty=True)
    utterances: bool = flag(False, "also score each --extra_dev file with every line read as a whole utterance "
                                   "(predict.py's default reading), as NAME+utterances; without it every dev line "
                                   "is read as a fragment cut anywhere (predict.py --fragments), the reading of "
                                   "the dev files' lines")
    edges: bool = flag(False, "also score the cased dev file as one stream, and its lines with each line's "
                              "first-word case and last-word marks from the reference (what cutting lines anywhere "
                              "costs)")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, ReportFlags)
    args = p.settings(ReportFlags, p.parse_args(argv))
    models = model_paths(args.model_path, PredictionSettings().tasks)

    if any("=" not in item for item in args.extra_dev):
        p.error("--extra_dev takes NAME=PATH items")
    if args.quantize and args.tune:
        p.error("--tune stores decoding defaults for the float model; run it without --quantize")
    if args.quantize and args.engine != "torch":
        p.error("--quantize is the torch engine's dynamic int8: add --engine torch (onnx: --precision int8)")
    punctuator = Punctuator.load(models, batch_size=args.batch_size, engine=args.engine, precision=args.precision,
                                 quantize=args.quantize)
    dev = DevSets(punctuator, args.ted_dev, args.cased_dev)
    results: dict = {"model": models}
    decode = punctuator.decode_config
    if args.tune:
        decode, best = tune(dev, decode)
        results["tuned"] = {"additional_confidence": decode.additional_confidence, "objective": best,
                            "min_error_probability": decode.min_error_probability,
                            "case_confidence": decode.case_confidence}
        store_decode_defaults(models[0], decode)
        print(f"stored in {models[0]}: {decode}")
    results.update(report(dev, decode, args.truecase))
    if args.edges:
        results.update(edge_scores(dev, decode))
    extra = named_values(args.extra_dev, "--extra_dev")
    extra_names = []
    for name, path in extra:
        instances = DatasetReader().read(path)
        words = [i.words for i in instances]
        probabilities = punctuator.probabilities(words)
        for scored, whole in [(name, False)] + [(name + "+utterances", True)] * args.utterances:
            tags = punctuator.decode(words, probabilities, decode, whole=whole)
            results[scored] = score_tags(instances, tags)
            results["consistency"][scored] = consistency(instances, tags)
            extra_names.append(scored)
    for name in ["ted_lines", "ted_stream", "cased_lines", "cased_lines_edges_given", "cased_stream",
                 "truecase_baseline"] + extra_names:
        if name in results:
            print(f"\n== {name}\n{format_report(results[name])}")
    print(f"\nidempotence: {results['idempotence_utterances_changed_words_pct']:.2f}% of words change on a second "
          f"pass (lines read as utterances, predict.py's default), {results['idempotence_changed_words_pct']:.2f}% "
          f"(read as fragments, --fragments)")
    for name, counts in results["consistency"].items():
        print(f"consistency on {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.json:
        with atomic_write(args.json) as out:
            json.dump(results, out, indent=2, default=float)
    return 0


if __name__ == "__main__":
    run_script(main)
