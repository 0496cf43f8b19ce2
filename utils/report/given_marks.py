#!/usr/bin/env python
"""How ``--existing keep``, ``strip`` and ``weigh`` treat a recogniser's marks, on simulated marks.

    python utils/report/given_marks.py --model_path default_en --half report \\
        --dev work/ted_whole.dev.tagged work/cased_whole.dev.tagged [--sweep]

In: tagged dev files of whole utterances (their tags give the reference text, ``tags.apply_tags``), split
into halves (``tune``: each file's first half of lines; ``report``: its second). Each line is given to the
model as a recogniser might write it (lower-case words, a capital after each mark that ends a sentence):
* ``reliable``: the reference's marks, ``--reliable_drop`` of them dropped (Whisper on clear speech);
* ``sparse``: ``--scattered_drop`` of them dropped (a recogniser that writes few marks);
* ``scattered``: as ``sparse``, and a comma or period added after ``--scattered_add`` of the other words at
  random (Whisper on speech read without prosody: few marks, some misplaced);
* ``none``: no mark, no capital.
Out: punctuation F1 (the IWSLT classes, micro, ``scoring.metrics.score``) of each mode per condition.
``--sweep`` also reads the model's probabilities on the stripped lines once and prints, for a grid of the
thresholds of ``prediction.given_marks``, the F1 that choosing keep or strip per line by them would give
(what the constants were tuned with, on the tune half). Simulated marks on text, not a recogniser on audio.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import numpy as np

from gector_punct.model.vocabulary import PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.prediction import given_marks as policy
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.existing import prepare_spaced
from gector_punct.scoring.metrics import labels_from_words, scored_words, score
from gector_punct.text.files import InputError, read_all_lines
from gector_punct.text.sentences import ends_sentence
from gector_punct.text.tags import apply_tags, parse_tagged
from gector_punct.text.units import split_edges
from gector_punct_data.script import run_script

CONDITIONS = ("reliable", "sparse", "scattered", "none")
MODES = ("keep", "strip", "weigh")
GRID_SURE, GRID_REJECTED = (0.5, 0.7, 0.8, 0.9), (0.02, 0.05, 0.1)  # --sweep's values of each threshold
GRID_COVERED, GRID_MAX_REJECTED = (0.1, 0.2, 0.3, 0.5), (0.2, 0.35, 0.5)


@dataclass(kw_only=True)
class GivenMarksFlags(Settings):
    model_path: str = flag("default_en", "model folder or shipped model name")
    dev: list[str] = flag(help="tagged dev files of whole utterances (a line an utterance)")
    half: str = flag("report", "which half of each file's lines: tune (the first) or report (the second)",
                     choices=("tune", "report"))
    limit: int = flag(0, "at most this many lines of each file's half (0: all)", min=0)
    reliable_drop: float = flag(0.1, "reliable: share of the reference's marks dropped", min=0, max=1)
    scattered_drop: float = flag(0.85, "scattered: share of the reference's marks dropped", min=0, max=1)
    scattered_add: float = flag(0.03, "scattered: share of the unmarked words given a wrong , or .", min=0, max=1)
    seed: int = flag(13, "random seed of the simulation")
    sweep: bool = flag(False, "also print the F1 of a grid of the policy's thresholds (per line keep or strip)")


def reference_lines(path: str, half: str, limit: int) -> list[list[str]]:
    """The file's half of lines as reference words (``scored_words`` of the tagged words' text)."""
    lines = [line for line in read_all_lines(path) if line.strip()]
    middle = len(lines) // 2
    chosen = lines[:middle] if half == "tune" else lines[middle:]
    out = []
    for number, line in enumerate(chosen[:limit or None], start=1):
        try:
            out.append(scored_words(apply_tags(*parse_tagged(line))))
        except ValueError as err:
            raise InputError(f"{path}: line {number} of the {half} half: {err}") from None
    return out


def simulated(words: list[str], condition: str, flags: GivenMarksFlags, rng: random.Random) -> str:
    """A reference line as a recogniser in ``condition`` writes it (module docstring)."""
    out, capital = [], condition != "none"
    for word in words:
        core, trail = split_edges(word)[1].lower(), split_edges(word)[2]
        marked = any(ch in policy.SCORED_MARKS for ch in trail)
        if condition == "none" or (marked and rng.random() < (flags.reliable_drop if condition == "reliable"
                                                               else flags.scattered_drop)):
            trail = ""
        elif not marked:
            trail = rng.choice(",.") if condition == "scattered" and rng.random() < flags.scattered_add else ""
        out.append((core[:1].upper() + core[1:] if capital else core) + trail)
        capital = condition != "none" and ends_sentence(trail)
    return " ".join(out)


def f1(references: list[list[str]], outputs: list[str]) -> float:
    ref = [label for words in references for label in labels_from_words(words, False)]
    pred = [label for line in outputs for label in labels_from_words(scored_words(line), False)]
    return score(ref, pred)["punct"]["overall"]["f1"]


def sweep(punctuator: Punctuator, references, lines: list[str], by_mode: dict[str, list[str]]) -> list[tuple]:
    """(F1 of keep or strip chosen per line by each grid point's thresholds, the thresholds), best first."""
    read = [policy.marks_given(units) for units in
            (prepare_spaced(line, "keep")[0] for line in lines)]
    probs = punctuator.probabilities([stripped for stripped, _ in read])[PUNCT_HEAD.name]
    p_mark = policy.mark_probabilities(probs, punctuator.names[PUNCT_HEAD.name])
    offsets = np.cumsum([0] + [len(stripped) for stripped, _ in read])
    results, chosen_constants = [], (policy.SURE, policy.REJECTED, policy.MIN_COVERED, policy.MAX_REJECTED)
    for sure, rejected, covered, max_rejected in itertools.product(GRID_SURE, GRID_REJECTED, GRID_COVERED,
                                                                    GRID_MAX_REJECTED):
        policy.SURE, policy.REJECTED, policy.MIN_COVERED, policy.MAX_REJECTED = sure, rejected, covered, max_rejected
        chosen = [by_mode[policy.weigh(given, p_mark[offsets[i]: offsets[i + 1]])][i]
                  for i, (_, given) in enumerate(read)]
        results.append((f1(references, chosen), (sure, rejected, covered, max_rejected)))
    policy.SURE, policy.REJECTED, policy.MIN_COVERED, policy.MAX_REJECTED = chosen_constants
    return sorted(results, reverse=True)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, GivenMarksFlags)
    flags = GivenMarksFlags(**vars(p.parse_args(argv)))
    references = [words for path in flags.dev for words in reference_lines(path, flags.half, flags.limit)]
    rng = random.Random(flags.seed)
    loaded = Punctuator.load(flags.model_path)
    print(f"{len(references)} lines, {sum(map(len, references))} words ({flags.half} half of {' '.join(flags.dev)})")
    print("condition  " + "  ".join(f"{mode:>6}" for mode in MODES))
    sweeps = {}
    for condition in CONDITIONS:
        lines = [simulated(words, condition, flags, rng) for words in references]
        by_mode = {mode: loaded.reading(loaded.tasks, mode, loaded.fragments).predict(lines) for mode in MODES}
        print(f"{condition:<10} " + "  ".join(f"{f1(references, by_mode[mode]):6.1f}" for mode in MODES))
        if flags.sweep and condition != "none":
            sweeps[condition] = dict((point, value) for value, point in sweep(loaded, references, lines, by_mode))
    if sweeps:
        ranked = sorted(sweeps["reliable"], key=lambda point: -sum(s[point] for s in sweeps.values()))
        constants = (policy.SURE, policy.REJECTED, policy.MIN_COVERED, policy.MAX_REJECTED)
        print(f"sure rejected covered max_rejected: {' '.join(sweeps)} (the best, then the module's)")
        for point in ranked[:15] + ([constants] if constants in sweeps["reliable"] else []):
            print(" ".join(map(str, point)), " ".join(f"{s[point]:.1f}" for s in sweeps.values()))
    return 0


if __name__ == "__main__":
    run_script(main)
