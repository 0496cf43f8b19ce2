#!/usr/bin/env python
"""A real French ASR -> written text set from the PyPI wheel public-meetings 0.1.0rc3 (gector_punct_data.corpora.meetings):
one line per report segment that has aligned ASR segments. Source: the ASR words (lower case, no marks);
target: the same words with the professional report's case and marks projected on them.

    python utils/data/prepare_french_asr.py --cache_dir /work/runs/corpora/cache --out_prefix /work/runs/multi/fr_asr.dev

Writes PREFIX.src and PREFIX.tgt (line for line) and PREFIX.stats.json. Every written pair passes
``tags.tags_from_pair``; a pair that does not is dropped and counted. The held-out meetings (default) are the
last 4 meeting ids in sorted order, the rule that keeps their reports out of training.
"""
import json
import statistics
from dataclasses import dataclass

from gector_punct.text.files import CACHE_TEXT, cache_root
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import atomic_write
from gector_punct.text.tags import tags_from_pair
from gector_punct.text.alignment import AlignmentError
from gector_punct.text.units import split_edges
from gector_punct_data.corpora import meetings
from gector_punct_data.corpora.fetch import describe
from gector_punct_data.script import run_script

DEFAULT_CACHE = cache_root()
LICENCE = ("public-meetings 0.1.0rc3: MIT licence file (Paul Tardy, 2019) for the package; the meetings' own terms "
           "are not stated: research use, do not republish")
MARKS = [",", ".", "?", "!", ";", ":", "…", "«", "»", "(", ")", "-", "–"]


@dataclass(kw_only=True)
class FrenchAsrFlags(Settings):
    cache_dir: str = flag(DEFAULT_CACHE, "cache folder; the wheel is fetched into (or found in) CACHE_DIR/public_meetings",
                          default_text=CACHE_TEXT)
    package: str | None = flag(None, "read the package from this folder or wheel instead of the cache",
                               default_text="none, use --cache_dir")
    out_prefix: str = flag("work/fr_asr/fr_asr.dev", "writes OUT_PREFIX.src, OUT_PREFIX.tgt, OUT_PREFIX.stats.json")
    meetings: str = flag("held_out", "held_out: the last 4 meeting ids in sorted order (the test meetings); train: the "
                                     "other 18; all: the 22", choices=("held_out", "train", "all"))
    min_matched: float = flag(0.0, "drop a line when less than this share of its ASR words match a report word (the "
                                   "rest of the line has no marks and lower case in the target); 0.0: keep all",
                              min=0, max=1)


def parse_args(argv) -> FrenchAsrFlags:
    p = FlagParser(__doc__)
    add_flags(p, FrenchAsrFlags)
    return p.settings(FrenchAsrFlags, p.parse_args(argv))


def checked(lines: list) -> tuple[list, dict]:
    """Keep the (src, tgt, ...) lines that ``tags_from_pair`` accepts -> (kept, {reason: dropped count})."""
    kept, dropped = [], {}
    for line in lines:
        src, tgt = line[:2]
        try:
            tags_from_pair(src.split(), tgt)
        except AlignmentError as err:
            reason = "tags_from_pair: " + str(err).split(":")[0]
            dropped[reason] = dropped.get(reason, 0) + 1
            continue
        kept.append(line)
    return kept, dropped


def target_figures(targets: list[str]) -> dict:
    """Marks per class at the targets' word edges, capitalised words, and lower-case words right after a
    sentence end (inconsistencies left by the projection)."""
    marks = dict.fromkeys(MARKS, 0)
    capitalised = lower_after_end = 0
    for line in targets:
        previous = "."
        for word in line.split():
            lead, core, trail = split_edges(word)
            for ch in lead + trail:
                if ch in marks:
                    marks[ch] += 1
            capitalised += core[:1].isupper()
            lower_after_end += bool(previous) and previous[-1] in ".?!…" and core[:1].islower()
            previous = trail
    return {"marks": marks, "capitalised_words": capitalised, "lower_case_after_sentence_end": lower_after_end}


def lengths(sources: list[str]) -> dict:
    n = sorted(len(s.split()) for s in sources) or [0]
    return {"median": statistics.median(n), "mean": round(statistics.mean(n), 1), "min": n[0], "max": n[-1],
            "over_200": sum(x > 200 for x in n), "over_1000": sum(x > 1000 for x in n)}


def matched_shares(shares: list[float]) -> dict:
    """How many lines have at least 25/50/75 % of their ASR words matched, and the median share."""
    found = {f"lines_at_least_{k}pct": sum(s >= k / 100 for s in shares) for k in (25, 50, 75)}
    return {"median": round(statistics.median(shares), 4) if shares else 0.0, **found}


def collect(files, ids: list, min_matched: float) -> tuple[list, dict, list, int]:
    """-> ((src, tgt, meeting, matched ASR words) per line at or above ``min_matched``, per-meeting counts,
    every line's matched share, lines under ``min_matched``)."""
    lines, per_meeting, shares, low = [], {}, [], 0
    for mid in ids:
        per_meeting[mid] = {}
        for src, tgt, matched in meetings.meeting_pairs(files, mid, per_meeting[mid]):
            shares.append(matched / len(src.split()))
            if shares[-1] < min_matched:
                low += 1
                continue
            lines.append((src, tgt, mid, matched))
        figures = per_meeting[mid]
        figures["matched_share"] = round(figures.get("asr_matched", 0) / max(1, figures.get("asr_words", 0)), 4)
    return lines, per_meeting, shares, low


def share(part: int, whole: int) -> float:
    return round(part / max(1, whole), 4)


def build_stats(args, ids: list, kept: list, dropped: dict, per_meeting: dict, shares: list) -> dict:
    total = {}
    for figures in per_meeting.values():
        for key, n in figures.items():
            total[key] = total.get(key, 0) + n
    if total.get("no_report_words"):
        dropped["no report words found in the docx for the segment"] = total["no_report_words"]
    asr_words = sum(len(src.split()) for src, _, _, _ in kept)
    return {"source": describe(meetings.PACKAGE), "licence": LICENCE, "meetings_option": args.meetings,
            "held_out_rule": f"the last {meetings.HELD_OUT} meeting ids in sorted order", "meetings": ids,
            "segments_with_asr": total.get("segments", 0), "lines": len(kept), "asr_words": asr_words,
            "asr_words_matched_share": share(sum(line[3] for line in kept), asr_words),
            "min_matched": args.min_matched, "dropped": dropped,
            "all_segments": {"report_words": total.get("report_words", 0), "asr_words": total.get("asr_words", 0),
                             "asr_words_matched_share": share(total.get("asr_matched", 0), total.get("asr_words", 0)),
                             "line_matched_share": matched_shares(shares),
                             "sentence_ends_moved": total.get("sentence_ends_moved", 0)},
            "ctm_words": total.get("ctm_words", 0),
            "ctm_words_in_alignment_share": share(total.get("ctm_words_in_alignment", 0), total.get("ctm_words", 0)),
            "segment_words": lengths([line[0] for line in kept]),
            "targets": target_figures([line[1] for line in kept]), "per_meeting": per_meeting}


def main(argv=None):
    args = parse_args(argv)
    files = meetings.MeetingFiles(args.package) if args.package else meetings.locate(args.cache_dir)
    ids = meetings.split_ids(files.meeting_ids(), args.meetings)
    lines, per_meeting, shares, low = collect(files, ids, args.min_matched)
    kept, dropped = checked(lines)
    if low:
        dropped[f"under --min_matched {args.min_matched}"] = low
    stats = build_stats(args, ids, kept, dropped, per_meeting, shares)
    with atomic_write(args.out_prefix + ".src") as src, atomic_write(args.out_prefix + ".tgt") as tgt:
        for line in kept:
            src.write(line[0] + "\n")
            tgt.write(line[1] + "\n")
    with atomic_write(args.out_prefix + ".stats.json") as f:
        json.dump(stats, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(json.dumps({k: v for k, v in stats.items() if k != "per_meeting"}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    run_script(main)
