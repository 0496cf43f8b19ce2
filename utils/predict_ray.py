#!/usr/bin/env python
"""Restore a folder of text files on a Ray cluster (Ray Data): each file of INPUT_DIR becomes the same-named
file of OUTPUT_DIR, byte for byte what predict.py writes for it (plain), or each JSON record with its text
restored into a new field (jsonl). docs/scale.md: clusters, GPUs, resuming, capacity.

    python utils/predict_ray.py --input_dir captions/ --output_dir restored/            # a local Ray, all cores
    python utils/predict_ray.py --input_dir in/ --output_dir out/ --address HEAD:6379   # join a cluster
    python utils/predict_ray.py --input_dir in/ --output_dir out/ --num_gpus_per_actor 1 --engine torch --batch_size 128
    python utils/predict_ray.py --input_dir in/ --output_dir out/ --format jsonl --text_field text

The files are read on this machine, cut into predict.py's chunks (--chunk_words), restored by a pool of
actors (each loads the model once) wherever the cluster has room, and written here, each file atomically
once all its chunks are back. A file already in OUTPUT_DIR is finished and skipped, so a killed run is
resumed by running it again. Exit status: 0 done, 2 bad input (a file that cannot be read is named at the
end; the others are written all the same).
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from gector_punct.options.flags import FlagParser, add_flags, flag
from gector_punct.prediction.folders import (FORMATS, ChunkRestorer, FileWriter, LineFormat, input_names,
                                            pending_names, read_chunks)
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import missing_model_hint, model_paths
from gector_punct.text.files import error_text
from gector_punct.text.numbers.english import NumbersUnavailable
from gector_punct.text.numbers.spans import file_language, numbers_available
from gector_punct_data.script import run_script

READERS = 2  # files read at a time (on this machine: reading is light next to the model)
NOT_HERE = ("device", "threads", "lookahead")  # the actors' device and threads follow --num_gpus_per_actor and
# --num_cpus_per_actor; no streams here


@dataclass(kw_only=True)
class RayCommand(PredictionSettings):
    """predict_ray.py's flags: the prediction settings (less ``NOT_HERE``) and where the work runs."""
    input_dir: str = flag(help="folder of files to restore (its regular, non-hidden files)")
    output_dir: str = flag(help="folder for the restored files, same names (created; a file already there is "
                                "skipped)")
    address: str | None = flag(None, "a running Ray cluster to join (HOST:PORT of `ray start --head`, or auto)",
                               default_text="start a local Ray on this machine")
    num_cpus: int | None = flag(None, "without --address: the CPUs the local Ray may use", min=1,
                                default_text="all of this machine's")
    num_actors: int | None = flag(None, "model copies restoring chunks at once", min=1,
                                  default_text="as many as the cluster's CPUs hold, or its GPUs when actors take GPUs")
    num_cpus_per_actor: int = flag(1, "CPU cores each actor reserves and runs the engine's threads on", min=1)
    num_gpus_per_actor: float = flag(0.0, "GPUs each actor reserves (0.5: two actors share one); above 0 the "
                                          "model runs on CUDA, with --engine torch, else on the CPU", min=0)
    format: str = flag("plain", "plain: one text per line, written as predict.py writes it; jsonl: one JSON object "
                                "per line, its --text_field restored into --output_field", choices=FORMATS)
    text_field: str = flag("text", "jsonl: the field holding the text")
    output_field: str = flag("restored", "jsonl: the field the restored text is written to")


def build_parser() -> FlagParser:
    parser = FlagParser(__doc__)
    add_flags(parser, RayCommand, skip=PredictionSettings.field_names())
    add_flags(parser, PredictionSettings, skip=NOT_HERE, title="prediction settings (predict.py's)")
    return parser


def parse_args(argv=None) -> RayCommand:
    p = build_parser()
    args = p.settings(RayCommand, p.parse_args(argv))
    args.device = "cuda" if args.num_gpus_per_actor > 0 else "cpu"  # what load_punctuator reads
    args.input_dir, args.output_dir = os.path.abspath(args.input_dir), os.path.abspath(args.output_dir)
    if not os.path.isdir(args.input_dir):
        p.error(f"--input_dir {args.input_dir} is not a folder")
    if os.path.realpath(args.input_dir) == os.path.realpath(args.output_dir):
        p.error("--output_dir must differ from --input_dir (the outputs have the inputs' names)")
    if os.path.exists(args.output_dir) and not os.path.isdir(args.output_dir):
        p.error(f"--output_dir {args.output_dir} is not a folder")
    missing = [path for path in model_paths(args.model_path, args.tasks) if not os.path.exists(path)]
    if missing:
        p.error(f"--model_path: {missing_model_hint(missing[0])}")
    if args.address and args.num_cpus:
        p.error("--num_cpus is for a local Ray: a cluster's CPUs are those its nodes were started with")
    if args.num_gpus_per_actor > 0 and args.engine != "torch":
        p.error("--num_gpus_per_actor runs the model on CUDA, which the onnx engine does not: add --engine torch")
    return args


def start_ray(args: RayCommand):
    """Ray, joined at --address or started locally; returns the module."""
    import ray
    import ray.data  # noqa: F401 (ray.data.from_items ...)

    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(address="local", num_cpus=args.num_cpus or os.cpu_count(), include_dashboard=False,
                 log_to_driver=False)
    return ray


def actor_count(args: RayCommand, resources: dict) -> int:
    """--num_actors, else as many as the cluster's GPUs (with --num_gpus_per_actor) or CPUs hold, at least 1."""
    if args.num_actors:
        return args.num_actors
    if args.num_gpus_per_actor:
        return max(1, int(resources.get("GPU", 0) / args.num_gpus_per_actor))
    return max(1, int(resources.get("CPU", 1) // args.num_cpus_per_actor))


def restored_rows(ray, args: RayCommand, names: list[str]):
    """The output rows of every chunk of ``names``, as they come (any order)."""
    line_format = LineFormat(args.format, args.text_field, args.output_field)
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # the files are on this machine
    files = ray.data.from_items([{"name": name} for name in names], override_num_blocks=len(names))
    chunks = files.flat_map(read_chunks, fn_kwargs={"input_dir": args.input_dir, "line_format": line_format,
                                                    "chunk_words": args.chunk_words},
                            compute=ray.data.TaskPoolStrategy(size=READERS), num_cpus=0, label_selector=here)
    actors = actor_count(args, ray.cluster_resources())
    outputs = chunks.map_batches(ChunkRestorer, batch_size=1, batch_format="numpy",
                                 fn_constructor_args=(args.prediction_settings(), line_format,
                                                      args.num_cpus_per_actor),
                                 compute=ray.data.ActorPoolStrategy(size=actors),
                                 num_cpus=args.num_cpus_per_actor, num_gpus=args.num_gpus_per_actor)
    print(f"{len(names)} files, {actors} actors", file=sys.stderr)
    return outputs.iter_rows()


def main(argv=None) -> int:
    started = time.perf_counter()
    args = parse_args(argv)
    names = input_names(args.input_dir)
    if not names:
        print(f"error: {args.input_dir} has no files to restore", file=sys.stderr)
        return 2
    try:  # before Ray starts: the install the first file's language needs, in one line
        numbers_available(args.numbers, file_language(os.path.join(args.input_dir, names[0])))
    except NumbersUnavailable as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        os.makedirs(args.output_dir, exist_ok=True)
    except OSError as err:
        print(f"error: cannot make --output_dir {error_text(err, args.output_dir)}", file=sys.stderr)
        return 2
    pending = pending_names(names, args.output_dir)
    writer = FileWriter(args.output_dir)
    if pending:
        for row in restored_rows(start_ray(args), args, pending):
            writer.add(row)
    for name, why in sorted(writer.failed.items()):
        print(f"error: {name}: {why}", file=sys.stderr)
    seconds = time.perf_counter() - started
    print(f"{writer.files} files done, {len(names) - len(pending)} skipped (done before), {len(writer.failed)} "
          f"failed; {writer.lines:,} lines, {writer.words:,} words in {seconds:.1f} s "
          f"({writer.words / seconds:,.0f} words/s) -> {args.output_dir}", file=sys.stderr)
    return 2 if writer.failed else 0


if __name__ == "__main__":
    run_script(main)
