#!/usr/bin/env python
"""Turn parallel SOURCE (ASR-like) / TARGET (restored) files into the tagged training format.

    python utils/preprocess_data.py -s train.src -t train.tgt -o train.tagged [--vocab_dir train.vocab]

Each output line is ``word SEPL|||SEPR tag`` per word (GECToR's format). TARGET may attach marks to words
("York,") or separate them by spaces ("York ,"). Pairs whose words differ, or files of different lengths,
stop with an error naming the file and line, unless --skip_bad. ``--tasks disf`` (disfluency data): the
target may leave source words out; OUTPUT.tasks records the tasks for train.py. ``--kept_disfluencies`` (with
``--tasks punc``): the same kind of pair teaches punctuation over disfluent speech, the disfluencies kept.

With ``-a AUDIO_LIST`` (line i: the wav of line i, optionally ``path:offset:frames``, or empty: no audio;
relative paths are relative to the list's folder) it also writes OUTPUT.audio, the audio of each written
line (paths relative to OUTPUT's folder); the reader of train.py picks it up beside OUTPUT. Each audio file
is checked (exists, readable, not empty); a bad one stops with the list's file and line (with --skip_bad
its line is kept without audio and counted). Without -a, a stale OUTPUT.audio is removed.
"""
import os
import sys
from dataclasses import dataclass

from gector_punct.audio.waves import check_audio_list, read_audio_list
from gector_punct.dataset.preprocess import preprocess_files
from gector_punct.model.vocabulary import Vocabulary
from gector_punct.options.flags import FlagParser, Settings, add_flags, flag
from gector_punct.text.files import InputError, atomic_write, error_text
from gector_punct.text.tags import parse_tagged
from gector_punct.text.tasks import DEFAULT_TASKS, format_tasks, parse_tasks
from gector_punct_data.script import run_script


@dataclass(kw_only=True)
class PreprocessCommand(Settings):
    source: str = flag(short="-s", help="source file: one lower-case, unpunctuated text per line")
    target: str = flag(short="-t", help="target file: the same lines restored (cased, punctuated)")
    output: str = flag(short="-o", help="output file in the tagged format")
    case: str = flag("auto", "uncased: case tags are unknown (masked in training); auto: uncased if TARGET has no "
                             "capital letter", choices=("auto", "cased", "uncased"))
    skip_bad: bool = flag(False, "skip and count pairs that do not align instead of stopping")
    vocab_dir: str | None = flag(None, "also write the label vocabulary of this data (AllenNLP format) here")
    audio_list: str | None = flag(None, "audio of each source line (line i: wav path, path:offset:frames, or "
                                        "empty for none); writes OUTPUT.audio", short="-a")
    tasks: frozenset[str] = flag(DEFAULT_TASKS, "what the pairs teach (seed 001's switching tokens): punc (marks "
                                                "and case), disf (the target leaves disfluent words out; marks and "
                                                "case unchanged), disf,punc or none (target = source). Written to "
                                                "OUTPUT.tasks, which train.py reads", parse=parse_tasks,
                                 default_text=format_tasks(DEFAULT_TASKS))
    kept_disfluencies: bool = flag(False, "with --tasks punc: the source has disfluencies that the target leaves "
                                          "out, and the tagger keeps them (disf off): they teach nothing, the words "
                                          "around them their punctuation (a punctuation set over disfluent speech)")


def build_parser() -> FlagParser:
    parser = FlagParser(__doc__)
    add_flags(parser, PreprocessCommand)
    return parser


def main(argv=None) -> int:
    p = build_parser()
    args = p.settings(PreprocessCommand, p.parse_args(argv))
    if os.path.isdir(args.output):  # (a missing folder for it is made)
        p.error(f"cannot write {args.output}: it is a folder")
    tasks = args.tasks
    try:
        lines, stats = preprocess_files(args.source, args.target, args.case, args.skip_bad, line_numbers=True,
                                        tasks=tasks, kept_disfluencies=args.kept_disfluencies)
        if args.audio_list:
            specs = read_audio_list(args.audio_list, stats["lines"], args.source)
            bad_audio = check_audio_list(specs, args.audio_list, args.skip_bad, stats["line_numbers"])
            audio_lines = []
            out_dir = os.path.dirname(os.path.abspath(args.output))
            for number in stats["line_numbers"]:
                spec = specs[number - 1]
                audio_lines.append("" if spec is None else str(spec).replace(spec.path, os.path.relpath(spec.path, out_dir), 1))
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"error: {error_text(err, args.source)}", file=sys.stderr)
        return 2
    except ValueError as err:  # options that do not go together (preprocess_files says which)
        p.error(str(err))
    with atomic_write(args.output) as out:
        out.writelines(line + "\n" for line in lines)
    if args.audio_list:
        with atomic_write(args.output + ".audio") as out:
            out.writelines(entry + "\n" for entry in audio_lines)
        with_audio = sum(1 for entry in audio_lines if entry)
        print(f"{with_audio} of {len(audio_lines)} written lines have audio ({bad_audio} bad audio files dropped) "
              f"-> {args.output}.audio", file=sys.stderr)
    elif os.path.exists(args.output + ".audio"):
        os.unlink(args.output + ".audio")  # it belonged to an older OUTPUT
    if tasks != DEFAULT_TASKS or os.path.exists(args.output + ".tasks"):
        with atomic_write(args.output + ".tasks") as out:
            out.write(format_tasks(tasks) + "\n")
    if args.vocab_dir:
        Vocabulary.from_tags(parse_tagged(line)[1] for line in lines).save(args.vocab_dir)
    print(f"{stats['written']} of {stats['lines']} lines written to {args.output} "
          f"({stats['skipped']} skipped as bad, {stats['empty']} empty; case {'known' if stats['cased'] else 'unknown'})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
