#!/usr/bin/env python
"""The repetition rule's deletions and the whole ``--tasks disf`` deletion, scored against Switchboard's gold.

    python utils/report/repetition_scores.py --part test

Reads Switchboard with disfluency gold tags (``deep-disfluency`` 0.0.1, ``gector_punct_data/corpora/
switchboard.py``; the sdist is fetched into --cache_dir once), takes the sides of --part (the project's split
by conversation: ``switchboard.split_sides``), one line per utterance (or per side: --unit side), ASR-like
words (``switching.asr_word``). A word is disfluent when the gold calls it an edit term or reparandum. Per
line, the model's P($DELETE) with ``disf`` and with ``disf,punc`` (--model_path), then per-word deletion
precision, recall, F1 and counts (tp, fp, fn) of:
  repetition rule alone      ``repeats.repeated_words`` with no other word going
  repetition rule's own      in --tasks disf, the words the rule deletes that the model alone keeps
  --tasks disf, model alone  P($DELETE) > deletion_threshold
  --tasks disf               the whole decision (``line_rules.delete_disfluencies``: model, rule, copies kept)
  --tasks disf,punc          the same in the joint mode
Also: the words that ``disf,punc`` deletes and ``disf`` keeps (and how many of them the gold keeps), the
words kept against the model's P($DELETE) (a copy that stays), and the words the repetition rule alone
deletes that the gold keeps, most frequent first. Nothing is written.
"""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.model.vocabulary import PUNCT_HEAD
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag, reused
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import SWITCHING_MODEL
from gector_punct.scoring.metrics import deletion_prf
from gector_punct.text.repeats import repeated_words
from gector_punct.text.tags import DELETE
from gector_punct_data.corpora import switchboard
from gector_punct_data.corpora.switching import asr_row
from gector_punct_data.script import run_script

PARTS = ("train", "dev", "test", "all")


@dataclass(kw_only=True)
class RepetitionFlags(Settings):
    part: str = flag("test", "the Switchboard sides scored (the project's split by conversation; all: 100 sides)",
                     choices=PARTS)
    unit: str = flag("utterance", "one line per gold utterance, or per conversation side",
                     choices=("utterance", "side"))
    model_path: str = flag(SWITCHING_MODEL, "a model with $DELETE and the disf switch",
                           default_text="models/switch_en")
    cache_dir: str = flag(cache_root(), "where the deep-disfluency sdist is downloaded to / found",
                          default_text=CACHE_TEXT)
    examples: int = flag(15, "words listed of the rule's deletions that the gold keeps", min=0)
    batch_size: int = reused(PredictionSettings, "batch_size")


def gold_lines(sides: dict, part: str, unit: str) -> list:
    """The sides of ``part`` -> lines, each (ASR-like words, gold deletion flags)."""
    ids = sorted(sides) if part == "all" else switchboard.split_sides(sides)[part]
    lines = []
    for side in ids:
        chunk = []
        for w in sides[side]:
            chunk.append(w)
            if unit == "utterance" and w.utterance_end:
                lines.append(chunk)
                chunk = []
        if chunk:
            lines.append(chunk)
    rows = [asr_row([w.word for w in line], [w.disfluent for w in line], "") for line in lines]
    return [(list(r.src), list(r.delete)) for r in rows if r.src]


def deletions(punctuator: Punctuator, tasks: str, words: list) -> tuple:
    """Per line, (P($DELETE) per word, the decided deletions per word) under ``tasks``."""
    punctuator = punctuator.reading(tasks, punctuator.existing, punctuator.fragments)
    probabilities = punctuator.probabilities(words)
    head = PUNCT_HEAD.name
    delete = probabilities[head][:, punctuator.names[head].index(DELETE)].tolist()
    tags = punctuator.decode(words, probabilities, whole=True)
    out, at = [], 0
    for line, line_tags in zip(words, tags):
        out.append((delete[at:at + len(line)], [t.deletes for t in line_tags]))
        at += len(line)
    return out


def flat(lists) -> list:
    return [x for line in lists for x in line]


def report(name: str, gold: list, pred: list) -> None:
    s = deletion_prf(gold, pred)
    print(f"{name:28s} P {s['precision']:5.1f}  R {s['recall']:5.1f}  F1 {s['f1']:5.1f}  "
          f"(deleted {s['tp'] + s['fp']}: tp {s['tp']}, fp {s['fp']}; fn {s['fn']})")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, RepetitionFlags)
    args = p.settings(RepetitionFlags, p.parse_args(argv))
    try:
        sides = switchboard.load(args.cache_dir)
    except (RuntimeError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    lines = gold_lines(sides, args.part, args.unit)
    words, gold = [w for w, _ in lines], flat(g for _, g in lines)
    punctuator = Punctuator.load(args.model_path, batch_size=args.batch_size)
    threshold = punctuator.decode_config.deletion_threshold
    disf, joint = deletions(punctuator, "disf", words), deletions(punctuator, "disf,punc", words)
    model = [[q > threshold for q in probs] for probs, _ in disf]
    rule_alone = [repeated_words(line, [False] * len(line)) for line in words]
    rule_own = [[d and not m for d, m in zip(decided, m_line)] for (_, decided), m_line in zip(disf, model)]
    print(f"Switchboard {args.part}: {len(words)} lines ({args.unit}), {len(gold)} words, {sum(gold)} disfluent; "
          f"{args.model_path}, deletion_threshold {threshold}")
    report("repetition rule alone", gold, flat(rule_alone))
    report("repetition rule's own", gold, flat(rule_own))
    report("--tasks disf, model alone", gold, flat(model))
    report("--tasks disf", gold, flat(d for _, d in disf))
    report("--tasks disf,punc", gold, flat(d for _, d in joint))
    only_joint = [(w, g) for w, g, d, j in zip(flat(words), gold, flat(d for _, d in disf), flat(d for _, d in joint))
                  if j and not d]
    print(f"deleted by disf,punc, kept by disf: {len(only_joint)} words, {sum(not g for _, g in only_joint)} of them "
          f"fluent in the gold: {Counter(w for w, g in only_joint if not g).most_common(args.examples)}")
    for tasks, decided in (("disf", disf), ("disf,punc", joint)):
        probabilities, decisions = flat(q for q, _ in decided), flat(d for _, d in decided)
        kept = [(w, g) for w, g, q, d in zip(flat(words), gold, probabilities, decisions) if q > threshold and not d]
        print(f"--tasks {tasks}: kept against the model (a copy that stays): {len(kept)} words, "
              f"{sum(not g for _, g in kept)} of them fluent in the gold")
    kept_by_gold = Counter(w for w, g, r in zip(flat(words), gold, flat(rule_alone)) if r and not g)
    print(f"rule alone, deleted but fluent in the gold: {kept_by_gold.most_common(args.examples)}")
    return 0


if __name__ == "__main__":
    run_script(main)
