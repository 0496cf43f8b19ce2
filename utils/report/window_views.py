#!/usr/bin/env python
"""What averaging each word over several windows (``--window_views``) gains and costs on long lines: for a
model and preprocessed dev files, each file's lines joined into one stream of words (windowed, as a
transcript would arrive: ``model_report.stream_scores``), its punctuation F1 with each number of views and
each weighting of the windows (``windows.VIEW_WEIGHTINGS``), and the stream's words per second.

    python utils/report/window_views.py --model_path default_en \\
        --dev /work/runs/d/ted.dev.tagged /work/runs/d/cased.dev.tagged [--views 1 2 3] [--rounds 2]

Prints, per file and setting: punctuation F1 (micro-average; COMMA, PERIOD, QUESTION), case F1 (a cased
file), the encoder windows of the stream (every model's: the work), words/s (the median over ``--rounds``
timed runs of the stream: probabilities and decoding) and the cost against one view (the median over the
rounds of the time's ratio to the one-view time of the same round, the median of its runs there). Each
round runs one view first and again after every other number of views, its order reversed every other
round, so that a load that comes and goes on a shared machine falls on all alike; the other weightings run
the same windows and are scored once, untimed. Decoding: the model's own defaults,
lines read as fragments (as the model cards' stream figures).
"""
import statistics
import time
from dataclasses import dataclass

from gector_punct.dataset.reader import DatasetReader
from gector_punct.model.windows import VIEW_WEIGHTINGS
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.confidence import Calibration
from gector_punct.prediction.loading import load_punctuator
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct_data.script import run_script
from model_report import stream_scores  # (utils/report/, this script's folder)

CLASSES = ("COMMA", "PERIOD", "QUESTION")


@dataclass(kw_only=True)
class WindowViewsFlags(Settings):
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    engine: str = reused(PredictionSettings, "engine")
    threads: int | None = reused(PredictionSettings, "threads")
    dev: list[str] = flag(help="preprocessed dev files (each scored as one stream)")
    views: list[int] = flag([1, 2, 3], "the numbers of views to compare (1, the baseline, is always run)", min=1)
    weightings: list[str] = flag(list(VIEW_WEIGHTINGS), "the weightings of a word's windows to compare (views > 1)",
                                 choices=tuple(VIEW_WEIGHTINGS))
    rounds: int = flag(2, "timed runs of every number of views (the first weighting's; 0: scores only)", min=0)
    lines: int | None = flag(None, "each dev file's first lines only", min=1, default_text="all")


def timed_order(views: list[int], weighting: str) -> list[tuple[int, str]]:
    """One round's timed settings: one view first and again after every other number of views."""
    order = [(1, weighting)]
    for k in sorted(set(views) - {1}):
        order += [(k, weighting), (1, weighting)]
    return order


def timed_stream(punctuator: Punctuator, instances: list) -> tuple[dict, float]:
    """``stream_scores`` of the model's own decoding, and the seconds it took."""
    started = time.perf_counter()
    scores = stream_scores(punctuator, instances, punctuator.decode_config)
    return scores, time.perf_counter() - started


def measure(base: Punctuator, instances: list, views: list[int], weightings: list[str], rounds: int) -> dict:
    """Per setting (views, weighting): its stream scores and, for the first weighting, its times, one per
    round, with their ratios to the one-view time of the same round (its median). The other weightings run
    the same windows: they are scored once, untimed."""
    settings = [(1, weightings[0])] + [(k, w) for k in sorted(set(views) - {1}) for w in weightings]
    predictors = {s: Punctuator(base.models, decode=base.decode_config, batch_size=base.batch_size, tasks=base.tasks,
                                case_forms=base.case_forms, fragments=True, window_views=s[0], view_weighting=s[1])
                  for s in settings}
    stream = [w for i in instances for w in i.words]
    results: dict = {s: {"times": [], "ratios": [], "windows": sum(len(w) for w in predictors[s].encode([stream]))}
                     for s in settings}
    order = timed_order(views, weightings[0])
    for r in range(rounds):
        times = []
        for setting in order if r % 2 == 0 else order[::-1]:
            results[setting]["scores"], spent = timed_stream(predictors[setting], instances)
            times.append((setting, spent))
        baseline = statistics.median(t for s, t in times if s[0] == 1)
        for setting, spent in [(order[0], baseline)] + [(s, t) for s, t in times if s[0] != 1]:
            results[setting]["times"].append(spent)
            results[setting]["ratios"].append(spent / baseline)
    for setting in settings:
        if "scores" not in results[setting]:
            results[setting]["scores"] = timed_stream(predictors[setting], instances)[0]
    return results


def report_line(setting: tuple[int, str], result: dict, n_words: int) -> str:
    punct, case = result["scores"]["punct"], result["scores"].get("case")
    classes = " ".join(f"{c} {punct[c]['f1']:.1f}" for c in CLASSES if c in punct)
    case_f1 = f", case F1 {case['overall']['f1']:.2f}" if case else ""  # a file with case in its tags
    name = "1 view" if setting[0] == 1 else f"{setting[0]} views, {setting[1]}"
    speed = ""
    if result["times"]:
        speed = (f", {n_words / statistics.median(result['times']):,.0f} words/s, "
                 f"cost x{statistics.median(result['ratios']):.2f}")
    return (f"  {name:<20} punct F1 {punct['overall']['f1']:.2f} ({classes}){case_f1}, {result['windows']:,} windows"
            f"{speed}")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, WindowViewsFlags)
    args = p.settings(WindowViewsFlags, p.parse_args(argv))
    model = PredictionSettings(model_path=args.model_path, engine=args.engine, threads=args.threads, fragments=True)
    base = load_punctuator(model, calibration=Calibration.uncalibrated())  # no word's confidence is read here
    for path in args.dev:
        instances = DatasetReader().read(path)[: args.lines]
        n_words = sum(len(i.words) for i in instances)
        results = measure(base, instances, args.views, args.weightings, args.rounds)
        print(f"{path}: {len(instances)} lines as one stream of {n_words:,} words, {args.rounds} timed rounds",
              flush=True)
        for setting in sorted(results):
            print(report_line(setting, results[setting], n_words))
    return 0


if __name__ == "__main__":
    run_script(main)
