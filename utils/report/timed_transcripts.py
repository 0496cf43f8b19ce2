#!/usr/bin/env python
"""What a reader gets from a diarised, word-timed transcript (issue 58's targets), measured on transcripts made
here: a punctuated reference text is cut into speaker turns (two speakers; a speaker keeps the floor for one to
three lines), read aloud as a recogniser writes it (lower case, no marks: ``tags.make_source``), and given
made-up word times (words of 0.1 s plus 55 ms a character, short gaps, a pause of 2.2-3.5 s after a sentence
now and then, turns that overlap the one before; ``--disorder``: a share of words whose times are missing, zero
or go backwards) as a WhisperX JSON file (segments of 8-30 words, ``speaker`` on segments and words).
predict.py then runs as a process on it, and on the same words as plain lines (one line a turn):

* punctuation and case F1 of the timed words (``--format json``) against the same words as plain lines;
* ``--format srt`` and ``vtt``: the checker's violations (``transcripts.checker``) by rule, the share of cues
  that end on a sentence or clause mark, whether the cues' words are the transcript's words in order, cues
  that mix speakers outside a dialogue cue, and the wall time of the srt run;
* speaker changes that close a sentence; ``--format text``: its labelled paragraphs against the turns.

    python utils/report/timed_transcripts.py --reference W/cased_whole.dev.tgt --words 2500
    python utils/report/timed_transcripts.py --reference W/cased_whole.dev.tgt --words 2500 --disorder 0.1
    python utils/report/timed_transcripts.py --reference W/cased_whole.dev.tgt --skip 18000 --words 9000
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.scoring.metrics import labels_from_files, score
from gector_punct.text.files import read_lines
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.tags import make_source
from gector_punct.transcripts.checked_cues import read_cues, speech_of
from gector_punct.transcripts.checker import violations
from gector_punct.transcripts.style import SubtitleStyle
from gector_punct_data.script import run_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEAKERS = ("SPEAKER_00", "SPEAKER_01")


@dataclass(kw_only=True)
class Options(Settings):
    reference: str = flag(..., "punctuated text, a line per paragraph (a dev set's reference)")
    words: int = flag(2500, "words of the transcript (from the reference's lines after --skip)", min=1)
    skip: int = flag(0, "words of the reference's first lines left out (a part nothing was tuned on)", min=0)
    disorder: float = flag(0.0, "share of words whose times are missing, zero-length or go backwards", min=0, max=1)
    backchannels: float = flag(0.0, "share of words inside a sentence after which the other speaker says a "
                                    "listener's token (mm-hmm, right, yeah, okay, wow, uh-huh) over the speaker, "
                                    "as a segment of its own", min=0, max=1)
    strays: float = flag(0.0, "share of words stamped 60 s late", min=0, max=1)
    long_words: float = flag(0.0, "share of words whose end is stamped 9 s late (a silence given to the word)",
                             min=0, max=1)
    unlabelled: float = flag(0.0, "share of words without a speaker of their own or their segment's", min=0, max=1)
    seed: int = flag(0, "seed of the turns and times")
    model_path: str = flag("default_en", "the model predict.py runs")
    keep: str | None = flag(None, "folder to keep the made and restored files in (default: a temporary one)")


def turns_of(options: Options, rng: random.Random) -> list[tuple[str, str]]:
    """(speaker, reference text) turns of about ``options.words`` words."""
    lines = [line for _, line in read_lines(options.reference) if line.strip()]
    turns, count, speaker, k, skipped = [], 0, 0, 0, 0
    while k < len(lines) and skipped < options.skip:
        skipped += len(lines[k].split())
        k += 1
    while k < len(lines) and count < options.words:
        n = rng.randint(1, 3)
        text = " ".join(lines[k:k + n])
        k += n
        turns.append((SPEAKERS[speaker], text))
        count += len(text.split())
        speaker = 1 - speaker
    return turns


TOKENS = ("mm-hmm", "right", "yeah", "okay", "wow", "uh-huh")


def timed_document(turns: list[tuple[str, str]], options: Options, rng: random.Random) -> tuple[dict, list]:
    """The turns as a diarised WhisperX result with made-up times (the module's docstring), and every word as
    said: (speaker, word, start, end, whether it is a backchannel), before any odd time was stamped."""
    segments, said, t = [], [], 0.0
    for speaker, text in turns:
        t = max(0.0, t - 0.3) if rng.random() < 0.1 and segments else t + rng.uniform(0.15, 0.8)
        words, pieces = [], []
        for written, spoken in zip(text.split(), make_source(text).split()):
            length = 0.1 + 0.055 * len(spoken) * rng.uniform(0.8, 1.2)
            word = {"word": spoken, "start": round(t, 3), "end": round(t + length, 3), "score": 0.9, "speaker": speaker}
            said.append((speaker, spoken, word["start"], word["end"], False))
            _stamp_oddly(word, options, rng, t)
            words.append(word)
            t += length + rng.uniform(0.03, 0.12)
            if written[-1] in ".?!":
                t += rng.uniform(2.2, 3.5) if rng.random() < 0.08 else rng.uniform(0.2, 0.6)
            elif rng.random() < options.backchannels:  # the listener, over the speaker's next words
                other = SPEAKERS[1 - SPEAKERS.index(speaker)]
                token, at = rng.choice(TOKENS), round(t - rng.uniform(0.0, 0.3), 3)
                pieces.append((len(words), {"word": token, "start": at, "end": round(at + 0.35, 3), "score": 0.9,
                                            "speaker": other}))
                said.append((other, token, at, round(at + 0.35, 3), True))
        segments += _segments(words, pieces, speaker, rng)
    return {"segments": segments, "language": "en"}, said


def _stamp_oddly(word: dict, options: Options, rng: random.Random, t: float) -> None:
    """Times a recogniser really writes: missing, zero-length or backwards (``disorder``), 60 s late
    (``strays``), ending 9 s late (``long_words``); no speaker (``unlabelled``)."""
    if rng.random() < options.disorder:
        odd = rng.choice(("missing", "zero", "backwards"))
        word.update({"missing": {}, "zero": {"end": word["start"]},
                     "backwards": {"start": round(max(0.0, t - 0.4), 3)}}[odd])
        if odd == "missing":
            del word["start"], word["end"]
    if "start" in word and rng.random() < options.strays:
        word["start"], word["end"] = round(word["start"] + 60.0, 3), round(word["end"] + 60.0, 3)
    if "end" in word and rng.random() < options.long_words:
        word["end"] = round(word["end"] + 9.0, 3)
    if rng.random() < options.unlabelled:
        word["speaker"] = None


def _segments(words: list[dict], pieces: list[tuple[int, dict]], speaker: str, rng: random.Random) -> list[dict]:
    """A turn's words in segments of 8-30 words, cut where a backchannel (``pieces``: before word k) comes in
    a segment of its own; a word without a speaker loses its key, and a segment of such words its own."""
    cuts, out, k = dict(pieces), [], 0
    while k < len(words):
        end = min(k + rng.randint(8, 30), len(words))
        end = min([c for c in cuts if k < c < end] + [end])
        part = [{key: value for key, value in w.items() if not (key == "speaker" and value is None)}
                for w in words[k:end]]
        timed = [w for w in part if "start" in w]
        named = all("speaker" in w for w in part)
        out.append({"start": timed[0]["start"] if timed else None, "end": timed[-1]["end"] if timed else None,
                    "text": " " + " ".join(w["word"] for w in part), "words": part,
                    **({"speaker": speaker} if named else {})})
        if end in cuts:
            token = cuts[end]
            out.append({"start": token["start"], "end": token["end"], "text": " " + token["word"], "words": [token],
                        "speaker": token["speaker"]})
        k = end
    return out


def predict(options: Options, source: str, out: str, *extra: str) -> float:
    """Run predict.py; its wall time."""
    began = time.perf_counter()
    subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", options.model_path,
                    "--input_file", source, "--output_file", out, *extra], check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - began


def f1(reference: str, prediction: str) -> tuple[float, float]:
    result = score(*labels_from_files(reference, prediction))
    return result["punct"]["overall"]["f1"], result.get("case", {}).get("overall", {}).get("f1", float("nan"))


def cue_figures(path: str, said: list) -> dict:
    """The checker's violations by rule (``sync`` against the words as said), cue endings, the words in
    order, speakers mixed outside dialogue, cues that start more than 3 frames after their first word is said,
    dialogue cues that go on with a sentence of the cue before, backchannels shown."""
    cues, style = read_cues(path), SubtitleStyle()
    speech = speech_of(cues, [(word, start, end) for _, word, start, end, _ in said])
    found = violations(cues, style, speech=speech)
    rules: dict[str, int] = {}
    for item in found:
        rules[item.rule] = rules.get(item.rule, 0) + 1
    shown = [_key(w) for cue in cues for line in cue.lines for w in re.sub(r"^-", "", line).split()]
    tokens = {_key(word) for _, word, _, _, channel in said if channel}
    spoken = [_key(word) for _, word, _, _, channel in said if not channel]
    ends = sum(cue.lines[-1].rstrip("\"')»”’")[-1:] in ".?!,;:" for cue in cues)
    mixed = sum(len({s for s in cue.speakers if s}) > 1 and not all(line.startswith("-") for line in cue.lines)
                for cue in cues)
    late = sum(1 for cue, (first, _) in zip(cues, speech)
               if first is not None and cue.start_ms - first > style.sync_ms)
    torn = sum(1 for before, cue in zip(cues, cues[1:]) if cue.lines[0].startswith("-")
               and before.lines[-1].rstrip("\"')»”’")[-1:] not in ".?!")
    kept = [w for w in shown if w not in spoken or w in tokens]
    return {"cues": len(cues), "violations": len(found), "rules": rules, "ends": ends, "mixed": mixed, "late": late,
            "torn": torn, "in_order": _in_order(shown, spoken, tokens), "channels": len(kept) - len(
                [w for w in shown if w in tokens and w in spoken])}


def _key(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum())


def _in_order(shown: list[str], spoken: list[str], tokens: set[str]) -> bool:
    """Whether the cues show every word said (backchannels aside) once, in order, and nothing else."""
    k = 0
    for word in shown:
        if k < len(spoken) and word == spoken[k]:
            k += 1
        elif word not in tokens:
            return False
    return k == len(spoken)


def run(options: Options, folder: str) -> None:
    rng = random.Random(options.seed)
    turns = turns_of(options, rng)
    paths = {name: os.path.join(folder, name) for name in
             ("ref.txt", "plain.src", "plain.out", "call.json", "timed.json", "timed.txt", "call.srt", "call.vtt",
              "call.txt")}
    with open(paths["ref.txt"], "w", encoding="utf-8") as f:
        f.write("".join(text + "\n" for _, text in turns))
    with open(paths["plain.src"], "w", encoding="utf-8") as f:
        f.write("".join(make_source(text) + "\n" for _, text in turns))
    document, said = timed_document(turns, options, rng)
    with open(paths["call.json"], "w", encoding="utf-8") as f:
        json.dump(document, f)
    predict(options, paths["plain.src"], paths["plain.out"])
    predict(options, paths["call.json"], paths["timed.json"], "--format", "json")
    restored = [w["word"].strip() for s in json.load(open(paths["timed.json"], encoding="utf-8"))["segments"]
                for w in s["words"]]
    words = [(speaker, text) for (speaker, _, _, _, channel), text in zip(said, restored) if not channel]
    with open(paths["timed.txt"], "w", encoding="utf-8") as f:  # the timed words, a line a turn
        k = 0
        for _, text in turns:
            n = len(make_source(text).split())
            f.write(" ".join(w for _, w in words[k:k + n]) + "\n")
            k += n
    plain, timed = f1(paths["ref.txt"], paths["plain.out"]), f1(paths["ref.txt"], paths["timed.txt"])
    changes = [k for k in range(1, len(words)) if words[k][0] != words[k - 1][0]]
    closed = sum(ends_sentence_after(words[k - 1][1], words[k][1]) for k in changes)
    wall = predict(options, paths["call.json"], paths["call.srt"], "--format", "srt")
    predict(options, paths["call.json"], paths["call.vtt"], "--format", "vtt")
    predict(options, paths["call.json"], paths["call.txt"], "--format", "text")
    report(options, turns, said, words, (plain, timed, closed, len(changes)), paths, wall)


def report(options: Options, turns, said, words, figures, paths, wall) -> None:
    plain, timed, closed, changes = figures
    paragraphs = open(paths["call.txt"], encoding="utf-8").read().split("\n\n")
    labelled = sum(bool(re.match(r"SPEAKER_0\d: ", p)) for p in paragraphs)
    channels = sum(channel for *_, channel in said)
    inline = sum(len(re.findall(r"\(SPEAKER_0\d: ", p)) for p in paragraphs)
    print(f"{len(words):,} words, {len(turns)} turns, {changes} speaker changes, disorder {options.disorder:g}, "
          f"{channels} backchannels, strays {options.strays:g}, long words {options.long_words:g}, unlabelled "
          f"{options.unlabelled:g} (seed {options.seed})")
    print(f"punctuation F1 plain lines {plain[0]:.1f} / timed {timed[0]:.1f}; case F1 {plain[1]:.1f} / {timed[1]:.1f}")
    print(f"speaker changes closing a sentence: {closed}/{changes}; --format text: {len(paragraphs)} paragraphs, "
          f"{labelled} labelled (turns: {len(turns)}), {inline} backchannels inside a paragraph")
    for fmt in ("srt", "vtt"):
        c = cue_figures(paths[f"call.{fmt}"], said)
        print(f"{fmt}: {c['cues']} cues, {c['violations']} violations {c['rules']}, ending on a sentence or clause "
              f"mark {c['ends']}/{c['cues']} ({100 * c['ends'] / max(c['cues'], 1):.0f}%), words in order: "
              f"{c['in_order']}, cues mixing speakers outside a dialogue cue: {c['mixed']}, in-time > 3 frames "
              f"after speech: {c['late']}, dialogue cues going on with a sentence: {c['torn']}")
    print(f"--format srt: {wall:.2f} s wall (start-up included)")


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, Options)
    options = p.settings(Options, p.parse_args(argv))
    if options.keep:
        os.makedirs(options.keep, exist_ok=True)
        run(options, options.keep)
    else:
        with tempfile.TemporaryDirectory() as folder:
            run(options, folder)
    return 0


if __name__ == "__main__":
    run_script(main)
