#!/usr/bin/env python
"""Train a gector-punct tagger on preprocessed files (see utils/preprocess_data.py).

    python train.py --train_set train.tagged --dev_set dev.tagged --model_dir models/run1
    python train.py --config configs/tiny.json --model_dir models/tiny     # flags override the preset
    torchrun --nproc_per_node 2 train.py --config ...   # N processes (DDP); --batch_size stays the global batch

Audio (UniPunc): train/dev files with FILE.audio beside them (preprocess_data.py -a) or UniPunc .jsonl files,
plus --acoustic settings (configs/audio_en.json), train one model on text with and without audio
(utils/build_audio_model.sh).
"""
import argparse
import json
import sys

from gector_punct.io import InputError
from gector_punct.config import ModelConfig, ModelFolderError
from gector_punct.trainer import TrainOptions, train

D, M = TrainOptions(), ModelConfig()
MODEL_DEFAULT = "for a new model; with --init_model, that model's"
FLAGS = [
    ("--train_set", str, "preprocessed training file (utils/preprocess_data.py output); several, comma-separated, are "
                         "mixed, each with its tasks (its FILE.tasks, written by preprocess_data.py --tasks)"),
    ("--dev_set", str, "preprocessed dev file; the best checkpoint is chosen by its F1 (several, comma-separated: "
                       "by the mean of their F1s, each file predicted with its own tasks)"),
    ("--model_dir", str, "output folder: best/, last/, metrics.jsonl"),
    ("--transformer_model", str, f"encoder: hub name, local folder or installed package alias (default {M.transformer_model})"),
    ("--special_tokens_fix", int, f"1: add $START as a new special token before each window and resize the embeddings "
                                  f"(default {M.special_tokens_fix})"),
    ("--max_len", int, "subwords per encoder window, special tokens included; longer texts are windowed "
                       f"(default {M.max_len} {MODEL_DEFAULT})"),
    ("--pieces_per_token", int, f"subwords kept per word (default {M.pieces_per_token} {MODEL_DEFAULT})"),
    ("--window_overlap", int, f"subwords shared by neighbouring windows of a long text (default max_len/8 {MODEL_DEFAULT})"),
    ("--tn_prob", float, f"probability of keeping an instance whose tags are all $KEEP (default {D.tn_prob})"),
    ("--targets", int, "1: also train on the restored targets as all-$KEEP instances (kept with --tn_prob)"),
    ("--batch_size", int, f"windows per batch, over all processes under torchrun (default {D.batch_size})"),
    ("--accumulation_size", int, f"batches per optimizer update (default {D.accumulation_size})"),
    ("--n_epoch", int, f"epochs (default {D.n_epoch})"),
    ("--cold_steps_count", int, f"first epochs with the encoder frozen, heads only (default {D.cold_steps_count})"),
    ("--cold_lr", float, f"learning rate of the cold epochs (default {D.cold_lr})"),
    ("--lr", float, f"peak learning rate after the cold epochs (default {D.lr})"),
    ("--warmup", float, f"fraction of updates for linear warm-up (default {D.warmup})"),
    ("--weight_decay", float, f"AdamW weight decay (default {D.weight_decay})"),
    ("--dropout", float, f"dropout before the heads (default {M.dropout} {MODEL_DEFAULT})"),
    ("--label_smoothing", float, f"label smoothing of the cross-entropies (default {M.label_smoothing} {MODEL_DEFAULT})"),
    ("--class_weight_power", float, "p > 0: weight each punctuation label's loss by (count of $KEEP / its count) ** p, "
                                   f"at most 10, so rare marks count more (default {D.class_weight_power}: unweighted)"),
    ("--train_layers", int, "train only the top N encoder layers (+ heads) and store only those: a small model folder"),
    ("--freeze_embeddings", int, "1: keep the encoder's embedding tables as pretrained"),
    ("--store_dtype", str, f"float32 or float16: precision of the saved best/ weights, float16 halves the folder "
                           f"(default {M.store_dtype} {MODEL_DEFAULT})"),
    ("--patience", int, f"stop after this many epochs without a better dev F1 (default {D.patience})"),
    ("--updates_per_epoch", int, "optimizer updates per epoch (0: one pass over the data)"),
    ("--min_count", int, f"labels seen fewer times are left out of the vocabulary (default {D.min_count})"),
    ("--seed", int, f"random seed (default {D.seed})"),
    ("--resume", int, "1: continue from model_dir/last if it exists"),
    ("--skip_bad", int, "1: skip (and count) malformed lines instead of stopping"),
    ("--device", str, "cpu, cuda, cuda:1 ... (default: cuda when available)"),
    ("--init_model", str, "start from this trained model folder (e.g. models/default_en): its vocabulary, encoder, heads "
                          "and settings; window, dropout, smoothing and storage flags given here replace its own"),
    ("--acoustic", json.loads, "UniPunc audio model: JSON of acoustic settings, e.g. '{\"extractor\": \"fbank\"}' "
                               "(keys and defaults: gector_punct/acoustic.py DEFAULTS; default: a text-only model)"),
    ("--case_context", int, "1: the case head also sees how the word before ends (line start, no mark, pause, sentence "
                            f"end) so case follows the punctuation; can be switched on for an init model (default {int(M.case_context)})"),
    ("--switches", str, "switching tokens (seed 001), e.g. disf,punc: one per task, on or off at the start of every "
                        "window, so one model does each task alone or both; can be given to an init model "
                        "(default: none)"),
    ("--off_tasks", str, "with --switches: what a window teaches about a task that is off: untaught (nothing; with "
                         "punc off only that a word stays) or unchanged (its target as it is: no mark or case "
                         "change with punc off, seed 001's reading; no-conversion sets then teach too) "
                         f"(default {D.off_tasks})"),
    ("--teachers", str, "with --switches: single-task models whose soft decisions the switching model also learns "
                        "from, e.g. disf=runs/disf_only/best,punc=runs/punc_only/best (multi-task distillation; "
                        "default: none)"),
    ("--distill_weight", float, "share of the punctuation loss the teachers' soft labels take "
                                f"(default {D.distill_weight})"),
    ("--distill_anneal", int, "1: the teachers' share falls linearly to 0 over training (teacher annealing)"),
    ("--teacher_marks_with_disf", int, "1: the punc teacher also teaches the marks of the words that stay in windows "
                                       "with disf on (punc off there, so decoding still adds none), reading the window "
                                       "without its gold deletions: the head then punctuates under disf as the "
                                       "punctuation model does, as the joint mode needs"),
    ("--audio_cache", str, "folder for cached acoustic features, reused by later epochs and runs (default: in memory)"),
    ("--progress", int, "1: show progress bars (default 1)"),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     argument_default=argparse.SUPPRESS)
    parser.add_argument("--config", help="JSON preset (configs/*.json) holding any of these flags")
    for flag, kind, text in FLAGS:
        parser.add_argument(flag, type=kind, help=text)
    args = vars(parser.parse_args(argv))
    options = {}
    if "config" in args:
        with open(args.pop("config"), encoding="utf-8") as f:
            options = json.load(f)
        unknown = set(options) - TrainOptions.field_names()
        if unknown:
            parser.error(f"unknown keys in the config: {sorted(unknown)}")
    options.update(args)
    for key in ("targets", "resume", "skip_bad", "progress", "freeze_embeddings", "case_context", "distill_anneal",
                "teacher_marks_with_disf"):
        if key in options:
            options[key] = bool(options[key])
    missing = [k for k in ("train_set", "dev_set", "model_dir") if not options.get(k)]
    if missing:
        parser.error("missing " + ", ".join("--" + k for k in missing))
    try:
        best = train(TrainOptions(**options))
    except (InputError, ModelFolderError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ValueError as err:  # a setting the model or this machine cannot take (--device, --init_model ...)
        print(f"error: {err}", file=sys.stderr)
        return 2
    if best:
        print(json.dumps({"best_dev": {g: best[g]["overall"] for g in ("punct", "case", "boundary") if g in best}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
