"""``TrainOptions``: every option of a training run, the one place that names, types, documents and bounds them.

Each field is an ``options.flags.flag``: its help text, default and checks (inclusive ``min`` / ``max``
bounds, ``choices``); ``train.py`` makes one flag per field from them, and a ``--config`` JSON file holds any
of them by the same names. The ``ModelConfig`` settings (``MODEL_SETTINGS``) default to None:
``ModelConfig``'s default for a new model, the init model's own otherwise. Constructing the options
normalises what JSON and flags give (0/1 for booleans, ``disf,punc`` for ``switches``, a JSON object for
``acoustic``) and checks every value: a bad one raises ValueError naming the option, what it must be and
the value, in one line.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from gector_punct.audio.config import AcousticConfig
from gector_punct.dataset.asr_noise import AsrNoise
from gector_punct.dataset.reader import OFF_TASKS
from gector_punct.model.config import ModelConfig
from gector_punct.options.flags import Settings, flag, reused
from gector_punct.prediction.settings import PredictionSettings

REQUIRED = "none; give it here or in the --config file"
MODEL_SETTINGS = tuple(f.name for f in fields(ModelConfig)
                       if f.name != "decode" and f.name not in ModelConfig.CHOSEN_AFTER_TRAINING)


def model_setting(help: str, **checks):
    """A ``ModelConfig`` setting as an option: None by default, which the help spells out (``ModelConfig``'s
    default for a new model, an init model's own)."""
    return flag(None, help, default_text=new_model_default, **checks)


def new_model_default(f) -> str:
    default = getattr(ModelConfig(), f.name)
    if default in (None, (), ""):
        return "an init model keeps its own unless given"
    shown = "on" if default is True else "off" if default is False else default
    return f"{shown} for a new model, an init model keeps its own unless given"


@dataclass(kw_only=True)
class TrainOptions(Settings):
    train_set: str = flag("", "preprocessed training file (utils/preprocess_data.py output); several, comma-"
                              "separated, are mixed, each with its tasks (its FILE.tasks, written by "
                              "preprocess_data.py --tasks)", default_text=REQUIRED)
    dev_set: str = flag("", "preprocessed dev file; the best checkpoint is chosen by its F1 (several, comma-"
                            "separated: by the mean of their F1s, each file predicted with its own tasks)",
                        default_text=REQUIRED)
    model_dir: str = flag("", "output folder: best/, last/, metrics.jsonl", default_text=REQUIRED)
    # ModelConfig settings; None: ModelConfig's default for a new model, the init_model's own otherwise.
    transformer_model: str | None = model_setting("encoder: hub name, local folder or installed package alias")
    encoder_config: dict | None = model_setting("JSON transformers config of a randomly initialised encoder "
                                                "instead of the pretrained one (tests, toy runs)")
    special_tokens_fix: int | None = model_setting("1: add $START as a new special token before each window and "
                                                   "resize the embeddings", min=0, max=1)
    encoder_layers: int | None = model_setting("read only the encoder's first N layers (faster in proportion; the "
                                               "top layers of a sentence-embedding encoder serve sentences, not "
                                               "words); can lower an init model's, cutting its top layers", min=1)
    max_len: int | None = model_setting("subwords per encoder window, special tokens included; longer texts are "
                                        "windowed", min=8)
    pieces_per_token: int | None = model_setting("subwords kept per word", min=1)
    window_overlap: int | None = model_setting("subwords shared by neighbouring windows of a long text; "
                                               "max_len/8 when not given", min=0)
    dropout: float | None = model_setting("dropout before the heads", min=0.0, max=0.9)
    label_smoothing: float | None = model_setting("label smoothing of the cross-entropies", min=0.0, max=0.9)
    store_dtype: str | None = model_setting("float32 or float16: precision of the saved best/ weights, float16 "
                                            "halves the folder")
    acoustic: AcousticConfig | None = model_setting("UniPunc audio model: JSON of acoustic settings, e.g. "
                                                    "'{\"extractor\": \"fbank\"}' (keys and defaults: "
                                                    "gector_punct/audio/config.py AcousticConfig); without it a "
                                                    "text-only model")
    case_context: bool | None = model_setting("the case head also sees how the word before ends (line start, no "
                                              "mark, pause, sentence end) so case follows the punctuation; can be "
                                              "switched on for an init model")
    switches: tuple[str, ...] | None = model_setting("switching tokens (seed 001), e.g. disf,punc: one per task, "
                                                     "on or off at the start of every window, so one model does "
                                                     "each task alone or both; can be given to an init model")
    # data and optimisation
    tn_prob: float = flag(0.0, "probability of keeping an instance whose tags are all $KEEP", min=0.0, max=1.0)
    targets: bool = flag(False, "also train on the restored targets as all-$KEEP instances (kept with --tn_prob)")
    off_tasks: str = flag(OFF_TASKS[0], "with --switches: what a window teaches about a task that is off: "
                                        "untaught (nothing; with punc off only that a word stays) or unchanged "
                                        "(its target as it is: no mark or case change with punc off, seed 001's "
                                        "reading; no-conversion sets then teach too)", choices=OFF_TASKS)
    asr_noise_share: float = reused(AsrNoise, "asr_noise_share")
    asr_substitution: float = reused(AsrNoise, "asr_substitution")
    asr_deletion: float = reused(AsrNoise, "asr_deletion")
    asr_insertion: float = reused(AsrNoise, "asr_insertion")
    asr_noise_seed: int = reused(AsrNoise, "asr_noise_seed")
    batch_size: int = flag(32, "windows per batch, over all processes under torchrun", min=1)
    accumulation_size: int = flag(1, "batches per optimizer update", min=1)
    n_epoch: int = flag(5, "epochs", min=1)
    cold_steps_count: int = flag(0, "first epochs with the encoder frozen, heads only", min=0)
    cold_lr: float = flag(1e-3, "learning rate of the cold epochs", min=0.0)
    lr: float = flag(5e-5, "peak learning rate after the cold epochs", min=0.0)
    warmup: float = flag(0.06, "fraction of updates for linear warm-up", min=0.0, max=1.0)
    weight_decay: float = flag(0.01, "AdamW weight decay", min=0.0)
    decay_norms: bool = flag(False, "AdamW also decays the LayerNorm weights and every bias (by default only the "
                                    "weight matrices and embedding tables are decayed)")
    class_weight_power: float = flag(0.0, "p > 0: weight each punctuation label's loss by (count of $KEEP / its "
                                          "count) ** p, at most 10, so rare marks count more (0: unweighted)",
                                     min=0.0)
    train_layers: int | None = flag(None, "train only the top N encoder layers (+ heads) and store only those: "
                                          "a small model folder; every layer when not given", min=0)
    freeze_embeddings: bool = flag(False, "keep the encoder's embedding tables as pretrained")
    patience: int = flag(3, "stop after this many epochs without a better dev F1", min=1)
    updates_per_epoch: int = flag(0, "optimizer updates per epoch (0: one pass over the data)", min=0)
    min_count: int = flag(1, "labels seen fewer times are left out of the vocabulary", min=1)
    seed: int = flag(1, "random seed")
    resume: bool = flag(False, "continue from model_dir/last if it exists")
    skip_bad: bool = flag(False, "skip (and count) malformed lines instead of stopping")
    device: str | None = reused(PredictionSettings, "device")
    progress: bool = flag(True, "show progress bars")
    init_model: str = flag("", "start from this trained model folder (e.g. models/default_en): its vocabulary, "
                               "encoder, heads and settings; window, dropout, smoothing and storage flags given "
                               "here replace its own")
    teachers: str = flag("", "with --switches: single-task models whose soft decisions the switching model also "
                             "learns from, e.g. disf=runs/disf_only/best,punc=runs/punc_only/best (multi-task "
                             "distillation)")
    soft_labels: str = flag("", "folders of a teacher's soft labels of the training lines (utils/data/label_teacher.py), "
                                "comma-separated: every head also learns them, on the lines that have them "
                                "(distillation from a stored teacher)")
    distill_weight: float = flag(0.5, "share of the loss the teachers' soft labels take (--teachers: of the "
                                      "punctuation head's; --soft_labels: of every head's)", min=0.0, max=1.0)
    distill_temperature: float = flag(1.0, "with --soft_labels, the temperature both distributions are softened by "
                                           "(the loss is scaled by its square)", above=0.0)
    distill_anneal: bool = flag(False, "the teachers' share falls linearly to 0 over training (teacher annealing)")
    teacher_marks_with_disf: bool = flag(False, "the punc teacher also teaches the marks of the words that stay "
                                                "in windows with disf on (punc off there, so decoding still adds "
                                                "none), reading the window without its gold deletions: the head "
                                                "then punctuates under disf as the punctuation model does, as "
                                                "the joint mode needs")
    audio_cache: str = flag("", "folder for cached acoustic features, reused by later epochs and runs; "
                                "kept in memory when not given")

    def asr_noise(self) -> AsrNoise:
        """The ASR-like noise of the training lines these options ask for (off: share 0)."""
        return AsrNoise(**{name: getattr(self, name) for name in AsrNoise.field_names()})

    def model_settings(self) -> dict:
        """The ModelConfig settings these options give (the ones left out are absent)."""
        return {k: getattr(self, k) for k in MODEL_SETTINGS if getattr(self, k) is not None}

