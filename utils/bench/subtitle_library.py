#!/usr/bin/env python
"""Today's subtitle reader and writer against the libraries that could replace them (issue 58, item 5):
pysubs2 (SubRip and WebVTT) and srt (SubRip only).

In: ``--cues`` cues of two-line text (some in italics, a WebVTT voice a line), made here. Out, on stdout:

* speed, the median of ``--runs`` runs: reading a file into cues (ours: ``subtitles.read_subtitles``;
  ``pysubs2.load``; ``srt.parse``) and writing the cue builder's cues as text (ours: ``formats.SubtitleFormat.cue``;
  the libraries' events built from the same cues, then ``to_string`` / ``compose``);
* fidelity: a file with everything our reader keeps (markup ``<i>`` and ``{\\an8}``, voice tags ``<v Name>``,
  WebVTT NOTE and STYLE blocks, cue identifiers and settings, SubRip's own cue numbers, a byte-order mark),
  read and written back by each: what survives.

    python utils/bench/subtitle_library.py                  # 2,000 cues, the median of 5 runs
    python utils/bench/subtitle_library.py --cues 20000 --runs 3

pip install pysubs2 srt first (they are no dependency of the project: docs/subtitles.md says why).
"""
import os
import statistics
import tempfile
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.transcripts.cues import Cue
from gector_punct.transcripts.subtitles import format_subtitles, read_subtitles
from gector_punct.transcripts.formats import FORMATS
from gector_punct_data.script import run_script

WORDS = ("so we went down to the harbour early and the boats were already out but the cafe by the pier was open "
         "and we sat there for an hour watching the fog lift off the water").split()
RICH = {
    "srt": "\ufeff7\n00:00:01,000 --> 00:00:03,000\n<i>Hello</i> there,\n{\\an8}said Karen.\n\n"
           "9\n00:00:04,000 --> 00:00:05,500\n-Where to?\n-Home.\n",
    "vtt": "\ufeffWEBVTT - a talk\n\nNOTE written by hand\n\nSTYLE\n::cue { color: yellow }\n\n"
           "intro\n00:00:01.000 --> 00:00:03.000 align:start\n<v Karen><i>Hello</i> there.\n\n"
           "00:00:04.000 --> 00:00:05.500\n<v Karen>-Where to?\n<v Tom>-Home.\n",
}
KEPT = {  # what each feature looks like in a file that kept it
    "srt": {"<i> markup": "<i>Hello</i>", "{\\an8} position": "{\\an8}", "cue numbers as written": "\n9\n",
            "byte-order mark": "\ufeff"},
    "vtt": {"<i> markup": "<i>Hello</i>", "<v Name> voices": "<v Tom>", "NOTE block": "NOTE written",
            "STYLE block": "::cue", "cue identifier": "intro\n", "cue settings": "align:start",
            "header text": "WEBVTT - a talk", "byte-order mark": "\ufeff"},
}


@dataclass(kw_only=True)
class LibraryBenchFlags(Settings):
    cues: int = flag(2000, "cues of the file read and written", min=1)
    runs: int = flag(5, "runs of each reading and writing (the median is reported)", min=1)


def made_cues(count: int) -> list[Cue]:
    """``count`` two-line cues of 2.5 s each, every third in italics, two speakers taking turns."""
    cues = []
    for k in range(count):
        words = [WORDS[(k * 7 + j) % len(WORDS)] for j in range(12)]
        lines = (" ".join(words[:6]), " ".join(words[6:]) + ".")
        if k % 3 == 0:
            lines = (f"<i>{lines[0]}", f"{lines[1]}</i>")
        speaker = f"SPEAKER_0{k // 4 % 2}"
        cues.append(Cue(k * 3.0, k * 3.0 + 2.5, lines, (speaker, speaker)))
    return cues


def ours_write(cues: list[Cue], fmt: str) -> str:
    return FORMATS[fmt].header + "".join(FORMATS[fmt].cue(n, cue) for n, cue in enumerate(cues, 1))


def pysubs2_write(cues: list[Cue], fmt: str) -> str:
    import pysubs2
    events = pysubs2.SSAFile()
    for cue in cues:
        text = "\\N".join(cue.lines).replace("<i>", "{\\i1}").replace("</i>", "{\\i0}")
        events.append(pysubs2.SSAEvent(start=round(cue.start * 1000), end=round(cue.end * 1000), text=text))
    return events.to_string(fmt)


def srt_write(cues: list[Cue], fmt: str) -> str:
    import datetime
    import srt
    return srt.compose([srt.Subtitle(n, datetime.timedelta(seconds=cue.start), datetime.timedelta(seconds=cue.end),
                                     "\n".join(cue.lines)) for n, cue in enumerate(cues, 1)])


def srt_read(path: str, fmt: str):
    import srt
    with open(path, encoding="utf-8-sig") as f:
        return list(srt.parse(f.read()))


def pysubs2_read(path: str, fmt: str):
    import pysubs2
    return pysubs2.load(path, format_=fmt)


def srt_round_trip(path: str, fmt: str) -> str:
    import srt
    with open(path, encoding="utf-8") as f:
        return srt.compose(list(srt.parse(f.read())), reindex=False)


LIBRARIES = {  # name: (read, write, round trip, formats)
    "ours": (read_subtitles, ours_write, lambda path, fmt: format_subtitles(read_subtitles(path, fmt)), ("srt", "vtt")),
    "pysubs2": (pysubs2_read, pysubs2_write, lambda path, fmt: pysubs2_read(path, fmt).to_string(fmt), ("srt", "vtt")),
    "srt": (srt_read, srt_write, srt_round_trip, ("srt",)),
}


def median_ms(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def installed(name: str) -> bool:
    if name == "ours":
        return True
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def speed(args: LibraryBenchFlags, tmp: str) -> None:
    cues = made_cues(args.cues)
    print(f"{args.cues:,} cues, median of {args.runs} runs (ms):")
    print(f"  {'format':6} {'library':8} {'read':>8} {'write':>8}")
    for fmt in ("srt", "vtt"):
        path = os.path.join(tmp, f"cues.{fmt}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(ours_write(cues, fmt))
        for name, (read, write, _, formats) in LIBRARIES.items():
            if fmt not in formats or not installed(name):
                continue
            read_ms = median_ms(lambda: read(path, fmt), args.runs)
            write_ms = median_ms(lambda: write(cues, fmt), args.runs)
            print(f"  {fmt:6} {name:8} {read_ms:8.1f} {write_ms:8.1f}")


def fidelity(tmp: str) -> None:
    print("kept through reading and writing back (yes / no):")
    for fmt, text in RICH.items():
        path = os.path.join(tmp, f"rich.{fmt}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        names = [name for name, entry in LIBRARIES.items() if fmt in entry[3] and installed(name)]
        written = {name: LIBRARIES[name][2](path, fmt) for name in names}
        print(f"  {fmt:26} " + " ".join(f"{name:>8}" for name in names))
        for feature, mark in KEPT[fmt].items():
            print(f"  {feature:26} " + " ".join(f"{'yes' if mark in written[name] else 'no':>8}" for name in names))


def main(argv=None) -> int:
    parser = FlagParser(__doc__)
    add_flags(parser, LibraryBenchFlags)
    args = parser.settings(LibraryBenchFlags, parser.parse_args(argv))
    missing = [name for name in LIBRARIES if not installed(name)]
    if missing:
        print(f"not installed, left out: {', '.join(missing)} (pip install {' '.join(missing)})")
    with tempfile.TemporaryDirectory() as tmp:
        speed(args, tmp)
        fidelity(tmp)
    return 0


if __name__ == "__main__":
    run_script(main)
