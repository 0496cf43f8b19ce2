"""``TrainOptions``: every option of a training run, the one place that names, types, documents and bounds them.

Each field's ``metadata`` holds its ``help`` text and, for numbers, its inclusive bounds (``min`` / ``max``);
``train.py`` makes one flag per field from them. The ``ModelConfig``
settings (``MODEL_SETTINGS``) default to None: ``ModelConfig``'s default for a new model, the init model's
own otherwise. Constructing the options normalises what JSON and flags give (0/1 for booleans, ``disf,punc``
for ``switches``, a JSON object for ``acoustic``) and checks every value: a bad one raises ValueError naming
the option, its value and its bound, in one line.
"""
from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field, fields

from gector_punct.audio.config import AcousticConfig
from gector_punct.model.config import ModelConfig

MODEL_SETTINGS = tuple(f.name for f in fields(ModelConfig)
                       if f.name != "decode" and f.name not in ModelConfig.CHOSEN_AFTER_TRAINING)


def option(default, help: str, **bounds):
    """A ``TrainOptions`` field: its default, help text and inclusive numeric bounds (``min``, ``max``)."""
    return field(default=default, metadata={"help": help, **bounds})


@dataclass
class TrainOptions:
    train_set: str = option("", "preprocessed training file (utils/preprocess_data.py output); several, comma-"
                                "separated, are mixed, each with its tasks (its FILE.tasks, written by "
                                "preprocess_data.py --tasks)")
    dev_set: str = option("", "preprocessed dev file; the best checkpoint is chosen by its F1 (several, comma-"
                              "separated: by the mean of their F1s, each file predicted with its own tasks)")
    model_dir: str = option("", "output folder: best/, last/, metrics.jsonl")
    # ModelConfig settings; None: ModelConfig's default for a new model, the init_model's own otherwise.
    transformer_model: str | None = option(None, "encoder: hub name, local folder or installed package alias")
    encoder_config: dict | None = option(None, "JSON transformers config of a randomly initialised encoder instead "
                                               "of the pretrained one (tests, toy runs)")
    special_tokens_fix: int | None = option(None, "1: add $START as a new special token before each window and "
                                                  "resize the embeddings", min=0, max=1)
    max_len: int | None = option(None, "subwords per encoder window, special tokens included; longer texts are "
                                       "windowed", min=8)
    pieces_per_token: int | None = option(None, "subwords kept per word", min=1)
    window_overlap: int | None = option(None, "subwords shared by neighbouring windows of a long text; "
                                              "max_len/8 when not given", min=0)
    dropout: float | None = option(None, "dropout before the heads", min=0.0, max=0.9)
    label_smoothing: float | None = option(None, "label smoothing of the cross-entropies",
                                           min=0.0, max=0.9)
    store_dtype: str | None = option(None, "float32 or float16: precision of the saved best/ weights, float16 "
                                           "halves the folder")
    acoustic: AcousticConfig | None = option(None, "UniPunc audio model: JSON of acoustic settings, e.g. "
                                                   "'{\"extractor\": \"fbank\"}' (keys and defaults: "
                                                   "gector_punct/model/config.py AcousticConfig); without it a text-only "
                                                   "model")
    case_context: bool | None = option(None, "the case head also sees how the word before ends (line start, no "
                                             "mark, pause, sentence end) so case follows the punctuation; can be "
                                             "switched on for an init model")
    switches: tuple[str, ...] | None = option(None, "switching tokens (seed 001), e.g. disf,punc: one per task, on "
                                                    "or off at the start of every window, so one model does each "
                                                    "task alone or both; can be given to an init model")
    # data and optimisation
    tn_prob: float = option(0.0, "probability of keeping an instance whose tags are all $KEEP", min=0.0, max=1.0)
    targets: bool = option(False, "also train on the restored targets as all-$KEEP instances (kept with --tn_prob)")
    off_tasks: str = option("untaught", "with --switches: what a window teaches about a task that is off: untaught "
                                        "(nothing; with punc off only that a word stays) or unchanged (its target "
                                        "as it is: no mark or case change with punc off, seed 001's reading; "
                                        "no-conversion sets then teach too)")
    batch_size: int = option(32, "windows per batch, over all processes under torchrun", min=1)
    accumulation_size: int = option(1, "batches per optimizer update", min=1)
    n_epoch: int = option(5, "epochs", min=1)
    cold_steps_count: int = option(0, "first epochs with the encoder frozen, heads only", min=0)
    cold_lr: float = option(1e-3, "learning rate of the cold epochs", min=0.0)
    lr: float = option(5e-5, "peak learning rate after the cold epochs", min=0.0)
    warmup: float = option(0.06, "fraction of updates for linear warm-up", min=0.0, max=1.0)
    weight_decay: float = option(0.01, "AdamW weight decay", min=0.0)
    decay_norms: bool = option(False, "AdamW also decays the LayerNorm weights and every bias (by default only the "
                                      "weight matrices and embedding tables are decayed)")
    class_weight_power: float = option(0.0, "p > 0: weight each punctuation label's loss by (count of $KEEP / its "
                                            "count) ** p, at most 10, so rare marks count more (0: unweighted)",
                                       min=0.0)
    train_layers: int | None = option(None, "train only the top N encoder layers (+ heads) and store only those: "
                                            "a small model folder; every layer when not given", min=0)
    freeze_embeddings: bool = option(False, "keep the encoder's embedding tables as pretrained")
    patience: int = option(3, "stop after this many epochs without a better dev F1", min=1)
    updates_per_epoch: int = option(0, "optimizer updates per epoch (0: one pass over the data)", min=0)
    min_count: int = option(1, "labels seen fewer times are left out of the vocabulary", min=1)
    seed: int = option(1, "random seed")
    resume: bool = option(False, "continue from model_dir/last if it exists")
    skip_bad: bool = option(False, "skip (and count) malformed lines instead of stopping")
    device: str | None = option(None, "cpu, cuda, cuda:1 ...; cuda when available if not given")
    progress: bool = option(True, "show progress bars")
    init_model: str = option("", "start from this trained model folder (e.g. models/default_en): its vocabulary, "
                                 "encoder, heads and settings; window, dropout, smoothing and storage flags given "
                                 "here replace its own")
    teachers: str = option("", "with --switches: single-task models whose soft decisions the switching model also "
                               "learns from, e.g. disf=runs/disf_only/best,punc=runs/punc_only/best (multi-task "
                               "distillation)")
    distill_weight: float = option(0.5, "share of the punctuation loss the teachers' soft labels take",
                                   min=0.0, max=1.0)
    distill_anneal: bool = option(False, "the teachers' share falls linearly to 0 over training (teacher annealing)")
    teacher_marks_with_disf: bool = option(False, "the punc teacher also teaches the marks of the words that stay "
                                                  "in windows with disf on (punc off there, so decoding still adds "
                                                  "none), reading the window without its gold deletions: the head "
                                                  "then punctuates under disf as the punctuation model does, as "
                                                  "the joint mode needs")
    audio_cache: str = option("", "folder for cached acoustic features, reused by later epochs and runs; "
                                  "kept in memory when not given")

    def __post_init__(self):
        types = typing.get_type_hints(type(self))
        for f in fields(self):
            setattr(self, f.name, _checked(f, types[f.name], getattr(self, f.name)))

    @classmethod
    def field_names(cls) -> set[str]:
        return {f.name for f in fields(cls)}

    def model_settings(self) -> dict:
        """The ModelConfig settings these options give (the ones left out are absent)."""
        return {k: getattr(self, k) for k in MODEL_SETTINGS if getattr(self, k) is not None}


def value_type(annotation) -> type:
    """The type a field holds when given: ``int`` for ``int | None``, ``tuple`` for ``tuple[str, ...] | None``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    return typing.get_origin(annotation) or annotation


def _checked(f, annotation, value):
    """A field's value normalised (0/1 -> bool, "a,b" -> tuple, JSON object -> AcousticConfig) and checked."""
    if value is None:
        return value
    kind = value_type(annotation)
    if kind is bool:
        if isinstance(value, float) or value not in (0, 1):
            raise ValueError(f"{f.name} {value!r}: must be a boolean (true/false or 1/0)")
        return bool(value)
    if kind is tuple:
        parts = value.split(",") if isinstance(value, str) else value
        return tuple(p.strip() for p in parts if p.strip())
    if kind is AcousticConfig and isinstance(value, dict):
        return AcousticConfig.from_json(value)
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
            raise ValueError(f"{f.name} {value!r}: must be {'an integer' if kind is int else 'a number'}")
        low, high = f.metadata.get("min"), f.metadata.get("max")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"{f.name} {value!r}: must be {bounds_text(f.metadata)}")
        value = kind(value)
    return value


def bounds_text(metadata) -> str:
    """A field's bounds in words (``between 0.0 and 1.0``, ``at least 1``); '' when it has none."""
    low, high = metadata.get("min"), metadata.get("max")
    if low is not None and high is not None:
        return f"between {low} and {high}"
    return f"at least {low}" if low is not None else f"at most {high}" if high is not None else ""
