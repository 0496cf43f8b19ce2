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

import argparse
import os
import sys
import time

from gector_punct.options.argtypes import nonnegative_float, positive_int
from gector_punct.model.config import model_folders
from gector_punct.prediction.folders import (FORMATS, ChunkRestorer, FileWriter, LineFormat, input_names,
                                            pending_names, read_chunks)
from gector_punct.options.prediction import add_decoding_flags, add_model_flags, add_text_flags, choose_model

READERS = 2  # files read at a time (on this machine: reading is light next to the model)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input_dir", required=True, help="folder of files to restore (its regular, non-hidden files)")
    p.add_argument("--output_dir", required=True,
                   help="folder for the restored files, same names (created; a file already there is skipped)")
    p.add_argument("--address", default=None,
                   help="a running Ray cluster to join (HOST:PORT of `ray start --head`, or auto); "
                        "default: start a local Ray on this machine")
    p.add_argument("--num_cpus", type=positive_int, default=None,
                   help="without --address: the CPUs the local Ray may use (default: all of this machine's)")
    p.add_argument("--num_actors", type=positive_int, default=None,
                   help="model copies restoring chunks at once (default: as many as the cluster's CPUs hold, or "
                        "its GPUs when actors take GPUs)")
    p.add_argument("--num_cpus_per_actor", type=positive_int, default=1,
                   help="CPU cores each actor reserves and runs the engine's threads on (default 1)")
    p.add_argument("--num_gpus_per_actor", type=nonnegative_float, default=0,
                   help="GPUs each actor reserves (0.5: two actors share one); above 0 the model runs on CUDA, "
                        "with --engine torch (default 0: CPU)")
    p.add_argument("--format", choices=FORMATS, default="plain",
                   help="plain: one text per line, written as predict.py writes it; jsonl: one JSON object per "
                        "line, its --text_field restored into --output_field (default plain)")
    p.add_argument("--text_field", default="text", help="jsonl: the field holding the text (default text)")
    p.add_argument("--output_field", default="restored",
                   help="jsonl: the field the restored text is written to (default restored)")
    add_model_flags(p)
    add_decoding_flags(p)
    add_text_flags(p)
    return p


def parse_args(argv=None) -> argparse.Namespace:
    p = build_parser()
    args = p.parse_args(argv)
    choose_model(args)
    args.input_dir, args.output_dir = os.path.abspath(args.input_dir), os.path.abspath(args.output_dir)
    if not os.path.isdir(args.input_dir):
        p.error(f"--input_dir {args.input_dir} is not a folder")
    if os.path.realpath(args.input_dir) == os.path.realpath(args.output_dir):
        p.error("--output_dir must differ from --input_dir (the outputs have the inputs' names)")
    missing = [path for path in model_folders(args.model_path) if not os.path.isdir(path)]
    if missing:
        p.error(f"--model_path: no model folder {missing[0]}")
    if args.address and args.num_cpus:
        p.error("--num_cpus is for a local Ray: a cluster's CPUs are those its nodes were started with")
    if args.num_gpus_per_actor > 0 and args.engine != "torch":
        p.error("--num_gpus_per_actor runs the model on CUDA, which the onnx engine does not: add --engine torch")
    args.device = "cuda" if args.num_gpus_per_actor > 0 else "cpu"  # what load_punctuator reads
    return args


def start_ray(args: argparse.Namespace):
    """Ray, joined at --address or started locally; returns the module."""
    import ray
    import ray.data  # noqa: F401 (ray.data.from_items ...)

    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(address="local", num_cpus=args.num_cpus or os.cpu_count(), include_dashboard=False,
                 log_to_driver=False)
    return ray


def actor_count(args: argparse.Namespace, resources: dict) -> int:
    """--num_actors, else as many as the cluster's GPUs (with --num_gpus_per_actor) or CPUs hold, at least 1."""
    if args.num_actors:
        return args.num_actors
    if args.num_gpus_per_actor:
        return max(1, int(resources.get("GPU", 0) / args.num_gpus_per_actor))
    return max(1, int(resources.get("CPU", 1) // args.num_cpus_per_actor))


def restored_rows(ray, args: argparse.Namespace, names: list[str]):
    """The output rows of every chunk of ``names``, as they come (any order)."""
    line_format = LineFormat(args.format, args.text_field, args.output_field)
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # the files are on this machine
    files = ray.data.from_items([{"name": name} for name in names], override_num_blocks=len(names))
    chunks = files.flat_map(read_chunks, fn_kwargs={"input_dir": args.input_dir, "line_format": line_format,
                                                    "chunk_words": args.chunk_words},
                            compute=ray.data.TaskPoolStrategy(size=READERS), num_cpus=0, label_selector=here)
    actors = actor_count(args, ray.cluster_resources())
    outputs = chunks.map_batches(ChunkRestorer, batch_size=1, batch_format="numpy",
                                 fn_constructor_args=(args, line_format, args.num_cpus_per_actor),
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
    os.makedirs(args.output_dir, exist_ok=True)
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
    sys.exit(main())
