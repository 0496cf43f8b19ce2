#!/usr/bin/env python
"""Machines and hours to restore an archive of transcribed speech, from a measured throughput.

words = hours of speech x 60 x words per minute (1 million hours at 150 words/min: 9e9 words); at W words/s
per unit (a core, or a GPU), the archive takes words / W / 3600 unit-hours, and M machines of U units
each take that / (M x U) hours, start-up and file handling left out (measure W over a long run:
utils/bench/benchmark_ray.py, utils/bench/benchmark_cli.py).

    python utils/bench/capacity.py --words_per_second 3000 --units_per_machine 32          # per core, 32-core machines
    python utils/bench/capacity.py --words_per_second 60000 --units_per_machine 8 --unit GPU
"""
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class CapacityFlags(Settings):
    words_per_second: float = flag(help="measured words/s of one unit (one core, or one GPU)", above=0)
    units_per_machine: int = flag(1, "cores (or GPUs) per machine", min=1)
    unit: str = flag("core", "what a unit is, for the printout")
    hours_of_speech: float = flag(1e6, "the archive, in hours", above=0)
    words_per_minute: float = flag(150.0, "speech rate", above=0)
    machines: list[int] = flag([1, 10, 100, 1000], "machine counts to tabulate", min=1)


def archive_words(hours_of_speech: float, words_per_minute: float) -> float:
    return hours_of_speech * 60 * words_per_minute


def capacity_rows(words: float, words_per_second: float, units_per_machine: int,
                  machines: list[int]) -> list[tuple[int, float]]:
    """(machines, wall hours) for each machine count, each machine restoring at units x words_per_second."""
    unit_hours = words / words_per_second / 3600
    return [(count, unit_hours / (count * units_per_machine)) for count in machines]


def main(argv=None) -> int:
    p = FlagParser(__doc__)
    add_flags(p, CapacityFlags)
    args = p.settings(CapacityFlags, p.parse_args(argv))
    words = archive_words(args.hours_of_speech, args.words_per_minute)
    unit_hours = words / args.words_per_second / 3600
    print(f"{args.hours_of_speech:,.0f} hours of speech x {args.words_per_minute:g} words/min = {words:.3g} words; "
          f"at {args.words_per_second:,.0f} words/s per {args.unit}: {unit_hours:,.0f} {args.unit}-hours")
    print(f"| machines ({args.units_per_machine} {args.unit}s each) | hours | days |")
    print("|---:|---:|---:|")
    for count, hours in capacity_rows(words, args.words_per_second, args.units_per_machine, args.machines):
        print(f"| {count:,} | {hours:,.2f} | {hours / 24:,.2f} |")
    return 0


if __name__ == "__main__":
    run_script(main)
