"""A tagger's settings and the config.json that holds them.

``ModelConfig`` (every setting of a tagger) with ``DecodeConfig`` (its decoding defaults) are saved flat in a
model folder's ``config.json`` (``AcousticConfig``, an audio model's acoustic part, as one nested object)
together with how the folder stores its weights (``WeightStorage``); ``read_config(folder) -> (ModelConfig,
WeightStorage)``, ``write_config``, ``store_decode_defaults``, ``store_engine_precision`` and
``store_window_views`` are the only readers and writers of that file. A folder that cannot be read raises
``ModelFolderError``, naming it. An ensemble folder holds ``ensemble.json`` instead (``EnsembleConfig``: member
model folders, relative to it, and the ensemble's own decoding defaults, engine precision and window views);
``model_folders(paths)`` expands ensemble folders into their members.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace

from gector_punct.audio.config import AcousticConfig
from gector_punct.encoders.registry import DEFAULT_ENCODER, resolve_encoder
from gector_punct.text.files import atomic_write
from gector_punct.text.tasks import TASKS

FORMAT = "gector-punct/1"
# The ONNX engine's graph (``ModelConfig.engine_precision``): float32; int8, the encoder's matrix products but
# the feed-forward's widening one in dynamic int8; int8-attention, only the attention's (engines.onnx_export).
ENGINE_PRECISIONS = ("float32", "int8", "int8-attention")
ENSEMBLE_FORMAT = "gector-punct-ensemble/1"
ENSEMBLE_FILE = "ensemble.json"
WEIGHTS = "model.safetensors"  # a model folder's weights file


class ModelFolderError(ValueError):
    """A model folder that cannot be read (missing, truncated or foreign files); the message names it."""


def check_window_views(views, origin: str) -> None:
    """``views`` as a stored ``window_views`` must be (a whole number, at least 1), else ValueError naming
    ``origin``."""
    if not isinstance(views, int) or isinstance(views, bool) or views < 1:
        raise ValueError(f"{origin} {views!r}: a whole number, at least 1")


@contextmanager
def reading_folder(directory: str):
    """Around the reading of a model folder (either engine): what the libraries raise on its files (transformers',
    safetensors', ONNX Runtime's RuntimeErrors, our own) becomes one ``ModelFolderError`` naming the folder."""
    try:
        yield
    except ModelFolderError as err:
        if str(err).startswith(directory):
            raise
        raise ModelFolderError(f"{directory}: {err}") from err
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as err:
        raise ModelFolderError(f"{directory}: {err}") from err


@dataclass(frozen=True)
class WeightStorage:
    """How a model folder stores its weights (config.json's keys beside the settings). ``partial``: only what
    training changed, the rest is the pretrained ``transformer_model``'s; ``lowrank``: the rank of the stored
    encoder deltas (None: none); ``base_fingerprint``: ``storage.base_fingerprint`` of the pretrained encoder
    a partial folder was written over (None in folders written before it was recorded: not checked)."""

    partial: bool = False
    lowrank: int | None = None
    base_fingerprint: str | None = None


STORAGE_KEYS = ("format",) + tuple(f.name for f in fields(WeightStorage))


@dataclass(frozen=True)
class DecodeConfig:
    """GECToR's decoding knobs: ``additional_confidence`` is added to the ``$KEEP`` probability of the
    punctuation head and ``case_confidence`` to that of the case head (None: the same value); a line whose
    words all have an error probability below ``min_error_probability`` stays as it is, and so does any
    edit less probable than that. In a line that is Spanish (a word at least ``question_opening`` likely to
    open its sentence with ``¿`` or ``¡``, or a Spanish question word; in other languages a multilingual model
    gives them some probability, rarely a half), a sentence the tagger closes with ``?`` or ``!`` is opened
    with ``¿`` or ``¡`` at its likeliest word, and an opening whose sentence ends otherwise is dropped
    (``line_rules.pair_openings``). With the ``disf`` task a word is deleted when its ``$DELETE`` probability exceeds
    ``deletion_threshold`` (0.5: deleted rather than not, the binary decision the disfluency data teaches),
    whatever the marks' share of the rest. A ``!`` the tagger chooses stays only when the word's labels with
    ``!`` are at least ``exclamation`` probable together, else it becomes ``.`` (a model trained on sitcom
    dialogue shouts more than a transcript's editor does; the IWSLT scores count both as PERIOD).
    A line that opens with a capital, ends with a sentence mark and whose marks are at least ``written``
    complete (``decoding.written``: the marks it has over those and the marks the model expects still
    missing) is taken as its writer's finished text: the tagger adds no mark to it, so restored text given
    again comes back as it was (above 1: off).
    The line rules' thresholds (``prediction.line_rules``, ``sentence_rules``): a sentence end the tags put
    inside a spoken number or after an address stays where its labels are ``sure_sentence_end`` probable
    together (two numbers of two sentences: ``we have two. One is red``); a ``?`` on a sentence that does not
    ask by its words stays where ``sure_question`` probable (a question said as a statement); a sentence of
    one subordinate clause of at most ``subordinate_words`` words joins the next; a one-word thanks after a
    reply of at most ``reply_words`` words joins it.
    """

    additional_confidence: float = 0.0
    min_error_probability: float = 0.0
    case_confidence: float | None = None
    question_opening: float = 0.5
    deletion_threshold: float = 0.5
    exclamation: float = 0.0
    written: float = 0.5
    sure_sentence_end: float = 0.85
    sure_question: float = 0.8
    subordinate_words: int = 8
    reply_words: int = 4

    @classmethod
    def neutral(cls) -> DecodeConfig:
        """Plain argmax decoding: what dev scoring during training and compression compares models by."""
        return cls(0.0, 0.0, 0.0)

    def overridden(self, **values: float | None) -> DecodeConfig:
        """This config with the values that are not None replaced (command-line flags over model defaults)."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    @property
    def case_bias(self) -> float:
        return self.additional_confidence if self.case_confidence is None else self.case_confidence


@dataclass(frozen=True)
class ModelConfig:
    """Every setting of a tagger, saved in its folder. Windowing (``max_len`` subwords per window, special
    tokens included; ``pieces_per_token``; ``window_overlap``, None: a budget/8) and the training-time
    ``dropout`` / ``label_smoothing`` / ``store_dtype`` may change after creation (``Seq2Labels.adjust``);
    the encoder (``transformer_model``; ``encoder_config``: a randomly initialised encoder of this
    transformers config instead of pretrained weights), ``special_tokens_fix`` and an existing ``acoustic``
    part may not. ``case_context``: the case head also sees how the word before ends (``tags.mark_context``:
    line start, no mark, pause, sentence end), gold in training and as decoded at prediction, so case
    follows the punctuation; it may be switched on for a trained model (it starts as a no-op), not off.
    ``switches``: the tasks (``tasks.TASKS``) the tagger has a switching token for, read at the start of
    every window (seed 001); they may be given to a trained model that has none (``--init_model``).
    ``encoder_layers``: the tagger reads the encoder's first N layers and has no others (None: all of them).
    The encoders are sentence-embedding models whose top layers serve one vector per sentence: a cut
    encoder is faster in proportion and may read words better. It may be lowered for a trained model (its
    top layers are cut off), not raised.
    ``engine_precision``: the precision the ONNX engine runs the model in (``ENGINE_PRECISIONS``): the fastest
    that keeps the model's dev F1 (``utils/report/choose_precision.py``): ``int8`` or ``int8-attention`` (dynamic int8
    weights in more or fewer of the encoder's matrix products), else ``float32``; the torch engine always runs
    float32. ``window_views``: prediction's default of ``PredictionSettings.window_views`` (in how many windows
    each word of a long line is predicted, averaged; training always windows with 1), chosen where averaging
    gains on dev (``utils/report/window_views.py``)."""

    transformer_model: str = DEFAULT_ENCODER
    encoder_config: dict | None = None
    special_tokens_fix: int = 0
    encoder_layers: int | None = None
    max_len: int = 128
    pieces_per_token: int = 5
    window_overlap: int | None = None
    dropout: float = 0.1
    label_smoothing: float = 0.0
    store_dtype: str = "float32"
    acoustic: AcousticConfig | None = None
    case_context: bool = False
    switches: tuple[str, ...] = ()
    engine_precision: str = "float32"
    window_views: int = 1
    decode: DecodeConfig = field(default_factory=DecodeConfig)

    def __post_init__(self):
        if self.acoustic is not None and not isinstance(self.acoustic, AcousticConfig):
            kind = type(self.acoustic).__name__
            raise TypeError(f"acoustic: an AcousticConfig (AcousticConfig.from_json), not {kind}")
        unknown = [s for s in self.switches if s not in TASKS]
        if unknown or len(set(self.switches)) != len(self.switches):
            raise ValueError(f"switches {list(self.switches)}: each one of {', '.join(TASKS)}, once")
        if self.engine_precision not in ENGINE_PRECISIONS:
            raise ValueError(f"engine_precision {self.engine_precision!r}: one of {', '.join(ENGINE_PRECISIONS)}")
        check_window_views(self.window_views, "window_views")
        if self.encoder_layers is not None and self.encoder_layers < 1:
            raise ValueError(f"encoder_layers {self.encoder_layers}: at least 1")

    ADJUSTABLE = ("max_len", "pieces_per_token", "window_overlap", "dropout", "label_smoothing", "store_dtype",
                  "engine_precision", "window_views")
    ADDABLE = ("acoustic", "case_context", "switches")  # a trained model lacking the part may be given it
    LOWERABLE = ("encoder_layers",)  # a trained model's may be lowered (the graph depends on it: not ADJUSTABLE)
    # By dev figures on the trained model (store_engine_precision, store_window_views).
    CHOSEN_AFTER_TRAINING = ("engine_precision", "window_views")

    def to_json(self) -> dict:
        values = asdict(self)
        values.update(values.pop("decode"))
        return values

    @classmethod
    def from_json(cls, values: dict, origin: str = "config") -> ModelConfig:
        values = {k: v for k, v in values.items() if k not in STORAGE_KEYS}
        decode_names = {f.name for f in fields(DecodeConfig)}
        known = {f.name for f in fields(cls)} - {"decode"}
        unknown = set(values) - known - decode_names
        if unknown:
            raise ValueError(f"{origin}: unknown settings {sorted(unknown)}")
        decode = DecodeConfig(**{k: v for k, v in values.items() if k in decode_names})
        if "switches" in values:  # a JSON list
            values["switches"] = tuple(values["switches"] or ())
        if values.get("acoustic") is not None:
            values["acoustic"] = AcousticConfig.from_json(values["acoustic"])
        return cls(decode=decode, **{k: v for k, v in values.items() if k in known})



def read_config(directory: str) -> tuple[ModelConfig, WeightStorage]:
    """config.json -> (settings, how the folder stores its weights)."""
    path = os.path.join(directory, "config.json")
    if not os.path.isfile(path):
        raise ModelFolderError(f"{path}: missing (not a model folder)")
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelFolderError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        found = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
        raise ModelFolderError(f"{path}: not a gector-punct model folder (format {found!r}, expected {FORMAT!r})")
    storage = WeightStorage(**{f.name: raw[f.name] for f in fields(WeightStorage) if raw.get(f.name) is not None})
    return ModelConfig.from_json(raw, path), storage


def model_directory(directory: str) -> str:
    """The model folder at ``directory``: the folder itself, or a training folder's ``best/``."""
    if not os.path.exists(os.path.join(directory, "config.json")) and os.path.isdir(os.path.join(directory, "best")):
        return os.path.join(directory, "best")
    return directory


def tokenizer_folder(directory: str, config: ModelConfig, storage: WeightStorage, vocab_path: str | None = None) -> str:
    """The tokenizer folder of a model folder, every part the folder needs checked first (``ModelFolderError``
    naming a missing one): its own ``tokenizer/``, or the base encoder's for a low-rank folder that left it
    out (``Seq2Labels.save(base_tokenizer=True)``); ``model.safetensors``; ``vocabulary/`` unless
    ``vocab_path`` stands in for it."""
    own_tokenizer = os.path.exists(os.path.join(directory, "tokenizer")) or not storage.lowrank
    for part in (("tokenizer",) if own_tokenizer else ()) + (WEIGHTS,) + (() if vocab_path else ("vocabulary",)):
        if not os.path.exists(os.path.join(directory, part)):
            raise ModelFolderError(f"{os.path.join(directory, part)}: missing (not a complete model folder)")
    return os.path.join(directory, "tokenizer") if own_tokenizer else resolve_encoder(config.transformer_model)


def write_config(directory: str, config: ModelConfig, storage: WeightStorage) -> None:
    """The settings and storage facts as ``directory``'s config.json (atomically); ``encoder_config`` without
    transformers' ``_name_or_path`` (the folder the encoder was read from on the machine that wrote it)."""
    values = dict(config.to_json(), format=FORMAT, **asdict(storage))
    if values.get("encoder_config"):
        values["encoder_config"] = {k: v for k, v in values["encoder_config"].items() if k != "_name_or_path"}
    with atomic_write(os.path.join(directory, "config.json")) as out:
        json.dump(values, out, indent=2, sort_keys=True, default=str)


def store_decode_defaults(directory: str, decode: DecodeConfig) -> None:
    """Make ``decode`` the decoding defaults of a model folder (its config.json, rewritten atomically), or of
    an ensemble folder (its ensemble.json; the members keep their own)."""
    if is_ensemble(directory):
        write_ensemble(directory, replace(read_ensemble(directory), decode=decode))
        return
    config, storage = read_config(directory)
    write_config(directory, replace(config, decode=decode), storage)


def store_window_views(directory: str, views: int) -> None:
    """Make ``views`` prediction's default ``window_views`` of a model folder (its config.json) or of an
    ensemble folder (its ensemble.json), rewritten atomically."""
    if is_ensemble(directory):
        check_window_views(views, "window_views")
        write_ensemble(directory, replace(read_ensemble(directory), window_views=views))
        return
    config, storage = read_config(directory)
    write_config(directory, replace(config, window_views=views), storage)


def store_engine_precision(directory: str, precision: str) -> None:
    """Make ``precision`` (``ENGINE_PRECISIONS``) the ONNX engine's precision of a model folder (its
    config.json, rewritten atomically)."""
    config, storage = read_config(directory)
    write_config(directory, replace(config, engine_precision=precision), storage)


@dataclass(frozen=True)
class EnsembleConfig:
    """An ensemble folder's ``ensemble.json``: ``members``, model folders as written there (relative to the
    ensemble folder, e.g. ``../accurate_en``), whose per-word probabilities the predictor averages by label
    name, and ``decode``, the decoding defaults tuned on the ensemble (a member's own are tuned on it alone);
    ``engine_precision``: the onnx engine's precision of every member when the ensemble runs (None: each
    member's own); ``window_views``: prediction's default window views (None: the first member's own).
    Members are model folders, not ensembles: one level, so a folder cannot end up inside
    itself."""

    members: tuple[str, ...]
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    engine_precision: str | None = None
    window_views: int | None = None


def is_ensemble(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, ENSEMBLE_FILE))


def read_ensemble(directory: str) -> EnsembleConfig:
    """ensemble.json -> its members (as written) and decoding defaults; a bad file raises ModelFolderError."""
    path = os.path.join(directory, ENSEMBLE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelFolderError(f"{path}: cannot be read ({err})") from None
    if not isinstance(raw, dict) or raw.get("format") != ENSEMBLE_FORMAT:
        raise ModelFolderError(f"{path}: not a gector-punct ensemble file (format {ENSEMBLE_FORMAT!r} expected)")
    members = raw.get("members")
    if not isinstance(members, list) or not members or not all(isinstance(m, str) and m for m in members):
        raise ModelFolderError(f"{path}: 'members' must be a non-empty list of model folders")
    decode_names = {f.name for f in fields(DecodeConfig)}
    unknown = set(raw) - decode_names - {"format", "members", "engine_precision", "window_views"}
    if unknown:
        raise ModelFolderError(f"{path}: unknown settings {sorted(unknown)}")
    precision = raw.get("engine_precision")
    if precision not in (None, *ENGINE_PRECISIONS):
        raise ModelFolderError(f"{path}: engine_precision {precision!r}: one of {', '.join(ENGINE_PRECISIONS)}")
    views = raw.get("window_views")
    if views is not None:
        try:
            check_window_views(views, "window_views")
        except ValueError as err:
            raise ModelFolderError(f"{path}: {err}") from None
    return EnsembleConfig(tuple(members), DecodeConfig(**{k: v for k, v in raw.items() if k in decode_names}),
                          precision, views)


def write_ensemble(directory: str, ensemble: EnsembleConfig) -> None:
    os.makedirs(directory, exist_ok=True)
    values = dict(asdict(ensemble.decode), format=ENSEMBLE_FORMAT, members=list(ensemble.members))
    if ensemble.engine_precision is not None:
        values["engine_precision"] = ensemble.engine_precision
    if ensemble.window_views is not None:
        values["window_views"] = ensemble.window_views
    with atomic_write(os.path.join(directory, ENSEMBLE_FILE)) as out:
        json.dump(values, out, indent=2, sort_keys=True)


def model_folders(paths: list[str]) -> list[str]:
    """Model folders in order, each ensemble folder replaced by its members' paths; a member that is itself
    an ensemble, or missing, raises ModelFolderError naming the ensemble file."""
    out = []
    for path in paths:
        if not is_ensemble(path):
            out.append(path)
            continue
        for member in read_ensemble(path).members:
            folder = os.path.normpath(os.path.join(path, member))
            if is_ensemble(folder) or not os.path.isdir(folder):
                problem = "is itself an ensemble" if is_ensemble(folder) else "is not a folder"
                raise ModelFolderError(f"{os.path.join(path, ENSEMBLE_FILE)}: member {member!r} ({folder}) {problem}")
            out.append(folder)
    return out
