#!/usr/bin/env python
"""Synthesise speech for a punctuated corpus with espeak-ng: audio-annotated training / test data.

    python utils/data/synthesize_audio.py --text train.tgt --out_dir work/audio/train \
        --voices en-us en-gb en-gb-scotland --speeds 150 175 200 --audio_fraction 0.5

Reads TEXT (cased, punctuated, one text per line: espeak-ng pauses at , ; . ? ! only when the next word is
cased as a sentence start would be, so never synthesise from lower-case text). Each line chosen for audio
(``--audio_fraction`` of them, drawn with ``--seed``) is spoken by one voice at one speed drawn from
``--voices`` x ``--speeds`` and written as a 16 kHz mono 16-bit wav (resampled with soxr) under OUT_DIR.
Writes OUT_DIR/audio.list (line i: the wav of line i relative to OUT_DIR, or empty: no audio; the
``-a`` input of utils/preprocess_data.py and ``--audio_list`` of predict.py), OUT_DIR/data.jsonl
(UniPunc-style ``{"audio": path or null, "tgt_text": line}``) and OUT_DIR/synthesis.json (settings and
hours of audio). Existing wavs of the same line, voice and speed are reused, so a rerun only does what is
missing. Needs the Debian package espeak-ng.
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from gector_punct.audio.waves import SAMPLE_RATE, resample, write_wav
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write, read_all_lines
from gector_punct_data.script import run_script


def synthesise(text: str, voice: str, speed: int, path: str) -> float:
    """Speak ``text`` into the 16 kHz wav ``path`` (written atomically); returns its length in seconds."""
    import soundfile

    with tempfile.TemporaryDirectory(prefix="espeak.") as tmp:
        raw = os.path.join(tmp, "raw.wav")
        # Text on stdin: a line starting with '-' must not be read as an option.
        run = subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", raw, "--stdin"], input=text,
                             capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(raw):
            raise RuntimeError(f"espeak-ng -v {voice} -s {speed} failed (exit {run.returncode}): {run.stderr.strip()[:300]}")
        wave, rate = soundfile.read(raw, dtype="float32", always_2d=True)
    wave = resample(wave.mean(axis=1), rate)
    if wave.size == 0:
        raise RuntimeError(f"espeak-ng -v {voice} produced no audio for {text[:60]!r}")
    write_wav(path, wave)
    return wave.size / SAMPLE_RATE


@dataclass(kw_only=True)
class SynthesisFlags(Settings):
    text: str = flag(help="cased, punctuated text, one line per utterance")
    out_dir: str = flag(help="folder for the wavs, audio.list, data.jsonl and synthesis.json")
    voices: list[str] = flag(["en-us"], "espeak-ng voices to draw from (see espeak-ng --voices=en)")
    speeds: list[int] = flag([175], "speaking rates in words per minute to draw from", min=1)
    audio_fraction: float = flag(1.0, "fraction of the lines that get audio, the rest none", min=0, max=1)
    seed: int = flag(1, "random seed of the line, voice and speed draws")
    jobs: int = flag(2, "espeak-ng processes at a time", min=1)


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, SynthesisFlags)
    args = p.settings(SynthesisFlags, p.parse_args(argv))
    if shutil.which("espeak-ng") is None:
        print("error: espeak-ng not found (Debian: apt-get install espeak-ng)", file=sys.stderr)
        return 2
    try:
        lines = read_all_lines(args.text)
    except (InputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    plan = []  # (line index, voice, speed) or None
    for text in lines:
        draw = rng.random() < args.audio_fraction
        voice, speed = rng.choice(args.voices), rng.choice(args.speeds)
        plan.append((voice, speed) if draw and text.strip() else None)
    os.makedirs(os.path.join(args.out_dir, "wav"), exist_ok=True)

    def name(i: int) -> str:
        voice, speed = plan[i]
        digest = hashlib.sha1(f"{lines[i]}\0{voice}\0{speed}".encode()).hexdigest()[:10]
        return os.path.join("wav", f"{i:06d}.{voice.replace('+', '_')}.{speed}.{digest}.wav")

    def work(i: int) -> float:
        path = os.path.join(args.out_dir, name(i))
        if os.path.exists(path):
            import soundfile
            return soundfile.info(path).frames / SAMPLE_RATE
        return synthesise(lines[i], plan[i][0], plan[i][1], path)

    todo = [i for i, entry in enumerate(plan) if entry]
    try:
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            seconds = list(pool.map(work, todo))
    except RuntimeError as err:
        print(f"error: {args.text}: {err}", file=sys.stderr)
        return 2
    with atomic_write(os.path.join(args.out_dir, "audio.list")) as out:
        out.writelines((name(i) if entry else "") + "\n" for i, entry in enumerate(plan))
    with atomic_write(os.path.join(args.out_dir, "data.jsonl")) as out:
        for i, entry in enumerate(plan):
            out.write(json.dumps({"audio": name(i) if entry else None, "tgt_text": lines[i]}, ensure_ascii=False) + "\n")
    stats = {"text": os.path.abspath(args.text), "lines": len(lines), "with_audio": len(todo), "voices": args.voices,
             "speeds": args.speeds, "audio_fraction": args.audio_fraction, "seed": args.seed,
             "hours": round(sum(seconds) / 3600, 3)}
    with atomic_write(os.path.join(args.out_dir, "synthesis.json")) as out:
        json.dump(stats, out, indent=2)
        out.write("\n")
    print(f"{len(todo)} of {len(lines)} lines synthesised ({stats['hours']} h) -> {args.out_dir}/audio.list", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
