#!/usr/bin/env python
"""What ``--numbers digits`` does to real English text: the reference text of a dev set is read aloud
(``gector_punct_data.corpora.spoken``: ``$2.5 million`` -> ``two point five million dollars``, word by word,
its marks and case kept, as a perfect restoration would leave it), then written back with the number writer
(``gector_punct.text.numbers``), and every number it writes is compared with the reference:

* written back: the reference had digits there (some of the number's spoken words came from them);
  ``same`` when the writer's text is the reference's, else ``other style`` (``46,664`` for ``46664``,
  ``4,000 m`` for ``4,000 meters``);
* ``where the reference has words``: the writer put digits where the reference's writer wrote the whole
  number in words, each listed with its context: a quantity the reference spelled out (``three percent``),
  or a word that is no quantity (the over-conversions issue 59 counts; which is which is read off the list).

    python utils/report/number_conversions.py --reference W/ted_whole.dev.tgt --show 40

Prints the words read, the time the writer took, and the counts.
"""
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import read_lines
from gector_punct.text.numbers.spans import NUMBERS, number_spans
from gector_punct.text.units import split_edges, split_units
from gector_punct_data.corpora.spoken import speak_line


@dataclass(kw_only=True)
class Options(Settings):
    reference: str = flag(..., "written English text, a line per line (a dev set's reference)")
    mode: str = flag("digits", "--numbers' mode", choices=NUMBERS[1:])
    show: int = flag(30, "numbers listed of each kind (0: counts alone)", min=0)


def spoken_with_origin(line: str) -> tuple[list[str], list[tuple[int, bool]]]:
    """A reference line read aloud word by word, and per spoken word its reference word and whether that word
    was a written number."""
    words, origin = [], []
    for k, unit in enumerate(split_units(line)):
        spoken = speak_line(unit).split()
        words += spoken
        origin += [(k, spoken != [unit])] * len(spoken)
    return words, origin


def core(text: str) -> str:
    return split_edges(text)[1]


def main() -> None:
    parser = FlagParser(__doc__)
    add_flags(parser, Options)
    args = parser.settings(Options, parser.parse_args())
    lines = [line for _, line in read_lines(args.reference)]
    number_spans(["one", "hundred"], "en", args.mode)  # the tagger loaded before the clock starts
    counts = {"same": 0, "other style": 0, "where the reference has words": 0}
    listed: dict[str, list[str]] = {}
    n_words, seconds = 0, 0.0
    for line in lines:
        units = split_units(line)
        words, origin = spoken_with_origin(line)
        n_words += len(words)
        started = time.perf_counter()
        spans = number_spans(words, "en", args.mode)
        seconds += time.perf_counter() - started
        for span in spans:
            sources = sorted({origin[k][0] for k in range(span.start, span.end)})
            reference = " ".join(units[k] for k in sources)
            if any(origin[k][1] for k in range(span.start, span.end)):
                kind = "same" if core(span.text) == core(reference) else "other style"
            else:
                kind = "where the reference has words"
            counts[kind] += 1
            context = " ".join(units[max(0, sources[0] - 4): sources[-1] + 5])
            listed.setdefault(kind, []).append(f"{reference!r} -> {span.text!r}   ({context})")
    print(f"{n_words:,} spoken words of {len(lines):,} lines; the writer took {seconds:.1f} s "
          f"({seconds / n_words * 1e5:.1f} s per 100,000 words)")
    for kind, count in counts.items():
        print(f"{kind}: {count}")
        for entry in listed.get(kind, [])[: args.show]:
            print("   ", entry)


if __name__ == "__main__":
    main()
