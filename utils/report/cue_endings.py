#!/usr/bin/env python
"""Where the cue builder ends cues, and what its fault weights change: a punctuated reference text's words (as
a perfect restoration writes them) get made-up times (2 to 3.5 words a second, a speaker change after a
sentence now and then, a 2.5 s pause after one sentence in twenty) and go through ``CueBuilder``, with no
model; printed per weight set: cues, how many end on a sentence mark, a clause mark or elsewhere, the share
that end on a mark (issue 58's target: at least 70%), one-line cues, and the checker's violations.

    python utils/report/cue_endings.py --reference W/cased_whole.dev.tgt --words 6000
    python utils/report/cue_endings.py --reference W/cased_whole.dev.tgt --skip 6000 --words 6000 \\
        --weights 1,3,6,8 2,4,8,8

A weight set is ``CUE,CLAUSE,BEFORE_LINK,PLAIN``: the cost of each cue and of ending one at a clause mark,
before a conjunction or a preposition, or elsewhere (``gector_punct/transcripts/cues.py``; a sentence end costs
0). The first set given is the builder's own when ``--weights`` is left out.
"""
import collections
import os
import random
import tempfile
from dataclasses import dataclass

import gector_punct.transcripts.cues as cues_module
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import read_lines
from gector_punct.transcripts.checked_cues import read_cues
from gector_punct.transcripts.checker import violations
from gector_punct.transcripts.line_breaks import BEFORE_LINK, CLAUSE, PLAIN
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct.transcripts.formats import FORMATS
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class Options(Settings):
    reference: str = flag(..., "punctuated text (a dev set's reference)")
    skip: int = flag(0, "words of the reference left out first (a part set aside from tuning)", min=0)
    words: int = flag(6000, "words read after --skip", min=1)
    weights: list[str] = flag(["builder"], "weight sets CUE,CLAUSE,BEFORE_LINK,PLAIN to compare ('builder': the "
                                           "builder's own)")
    seed: int = flag(1, "seed of the made-up times")


def timed_words(words: list[str], seed: int) -> list[tuple[float, float, str, str]]:
    rng, t, speaker, out = random.Random(seed), 0.0, "A", []
    for word in words:
        length = 1 / rng.uniform(2.0, 3.5)
        out.append((t, t + 0.85 * length, word, speaker))
        t += length
        if word.endswith((".", "?", "!")):
            if rng.random() < 0.3:
                speaker, t = ("B" if speaker == "A" else "A"), t + rng.uniform(0.1, 1.0)
            t += 2.5 if rng.random() < 0.05 else 0.0
    return out


def measured(timed, folder: str) -> str:
    builder, cues = cues_module.CueBuilder(), []
    for start, end, text, speaker in timed:
        cues += builder.add(start, end, text, speaker)
    cues += builder.finish()
    kinds = collections.Counter("sentence" if cue.lines[-1].rstrip("\"')”’»")[-1:] in ".?!" else
                                "clause" if cue.lines[-1][-1:] in ",;:" else "elsewhere" for cue in cues)
    path = os.path.join(folder, "cues.srt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(FORMATS["srt"].cue(n, cue) for n, cue in enumerate(cues, 1)))
    found = collections.Counter(v.rule for v in violations(read_cues(path), SubtitleStyle()))
    share = (kinds["sentence"] + kinds["clause"]) / len(cues)
    return (f"{len(cues)} cues: sentence {kinds['sentence']}, clause {kinds['clause']}, elsewhere "
            f"{kinds['elsewhere']} ({100 * share:.1f}% on a mark); one line {sum(len(c.lines) == 1 for c in cues)}; "
            f"violations {dict(found) or 0}")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, Options)
    options = p.settings(Options, p.parse_args(argv))
    words = [w for _, line in read_lines(options.reference) for w in line.split()][options.skip:]
    timed = timed_words(words[: options.words], options.seed)
    own = (cues_module.CUE, cues_module.END_COST[CLAUSE], cues_module.END_COST[BEFORE_LINK], cues_module.END_COST[PLAIN])
    print(f"{len(timed):,} words from word {options.skip:,} of {options.reference}")
    with tempfile.TemporaryDirectory() as folder:
        for given in options.weights:
            weights = own if given == "builder" else tuple(int(x) for x in given.split(","))
            cues_module.CUE = weights[0]
            cues_module.END_COST.update({CLAUSE: weights[1], BEFORE_LINK: weights[2], PLAIN: weights[3]})
            print(f"{','.join(map(str, weights))}: {measured(timed, folder)}")
    return 0


if __name__ == "__main__":
    run_script(main)
