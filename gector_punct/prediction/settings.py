"""``PredictionSettings``: every setting of prediction a flag can give (which model, how lines are read, how
boldly the taggers decode, how much is restored at a time), the one place that names, types, bounds,
documents and defaults them.

``predict.py``, ``utils/predict_ray.py``, ``serve.py`` and the utils make their flags from these fields
(``options.flags``; the service reuses some); ``Punctuator`` takes its defaults from ``DEFAULTS``;
``loading.load_punctuator(settings)`` turns settings into a loaded model. The decoding thresholds default
to None: the first model's own value (``DecodeConfig``, stored in its folder).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from gector_punct.engines.choice import DEFAULT_ENGINE, ENGINE_HELP, ENGINES
from gector_punct.model.config import ENGINE_PRECISIONS
from gector_punct.options.flags import Settings, flag
from gector_punct.prediction.chunks import DEFAULT_CHUNK_WORDS
from gector_punct.prediction.shipped import WHICH_MODEL
from gector_punct.text.existing import MODES
from gector_punct.text.numbers.spans import NUMBERS, NUMBERS_HELP
from gector_punct.text.tasks import DEFAULT_TASKS, format_tasks, parse_tasks
from gector_punct.text.typography import TYPOGRAPHY

THE_MODELS = "the model's"


@dataclass(kw_only=True)
class PredictionSettings(Settings):
    # which model, which engine runs it, and how
    model_path: list[str] | None = flag(
        None, "model folder(s) or shipped model name(s) (default_en, accurate_en, ensemble_en, switch_en, "
              "multilingual, audio_en); several = an ensemble averaging per-word probabilities, as an ensemble "
              "folder (ensemble_en) stores one",
        default_text=WHICH_MODEL)
    vocab_path: str | None = flag(None, "vocabulary folder overriding the model's own", default_text=THE_MODELS)
    engine: str = flag(DEFAULT_ENGINE, ENGINE_HELP, choices=ENGINES)
    precision: str | None = flag(None, "the onnx engine's precision: float32, int8 (dynamic int8 weights in the "
                                       "encoder's products but the feed-forward's widening one) or int8-attention "
                                       "(in the attention's only); the torch engine runs float32",
                                 choices=ENGINE_PRECISIONS,
                                 default_text="each model folder's engine_precision")
    threads: int | None = flag(None, "the engine's CPU threads (ONNX Runtime's intra-op threads, or torch's)", min=1,
                               default_text="one per core")
    device: str | None = flag(None, "cpu, cuda, cuda:1 ...",
                              default_text="the CPU on the onnx engine; on torch, cuda when available")
    batch_size: int = flag(32, "encoder windows per batch (an int8 graph takes one at a time)", min=1)
    max_len: int | None = flag(None, "subwords per window", min=1, default_text=THE_MODELS)
    window_views: int | None = flag(
        None, "a line longer than one window: each word is predicted in about this many overlapping windows, "
              "at different places, and their probabilities averaged (1: by one window, as the model was "
              "trained; k costs about k times the encoder's work on such lines; a line that fits one window "
              "is unchanged)", min=1, default_text="the model's, 1")
    special_tokens_fix: int | None = flag(None, "GECToR's flag: a model folder records its own setting; given, "
                                                "it must match every model's", choices=(0, 1),
                                          default_text=THE_MODELS)
    # what the taggers are asked to do, and how boldly
    tasks: frozenset[str] = flag(
        DEFAULT_TASKS, "what to convert: punc (punctuation and case), disf (delete disfluencies: uh, um, repeated "
                       "and abandoned words), disf,punc (both at once) or none; a task that is off leaves its "
                       "part of the text alone. Without --model_path: the shipped model that can do them",
        parse=parse_tasks, default_text=format_tasks(DEFAULT_TASKS))
    min_error_probability: float | None = flag(
        None, "leave a line alone when no word's error probability reaches this, and skip any edit below it",
        min=0, max=1, default_text=THE_MODELS)
    additional_confidence: float | None = flag(
        None, "added to the $KEEP probability of the punctuation head: higher = fewer marks", default_text=THE_MODELS)
    exclamation: float | None = flag(None, "a ! the tagger chooses stays only when at least this probable, else "
                                           "it becomes . (0 keeps every !)", min=0, max=1, default_text=THE_MODELS)
    question_opening: float | None = flag(
        None, "a line is Spanish where a word is at least this likely to open a question with ¿ or an exclamation "
              "with ¡ (or where it asks with a Spanish question word): then every question and exclamation of it "
              "opens (1.1: only those of a question word)", min=0, default_text="the model's, 0.5")
    deletion_threshold: float | None = flag(
        None, "with disf: delete a word when its $DELETE probability exceeds this; higher = fewer, surer "
              "deletions", min=0, max=1, default_text="the model's, 0.5")
    written: float | None = flag(
        None, "a line that opens with a capital, ends with . ? or ! and whose marks are at least this complete "
              "(its marks over those and the marks the model expects still missing) is taken as written: no mark "
              "is added to it, so restored text given again comes back unchanged (1.1: off)", min=0,
        default_text="the model's, 0.5")
    case_confidence: float | None = flag(
        None, "added to the $KEEP probability of the case head: higher = fewer case changes, negative = more",
        default_text=THE_MODELS)
    iteration_count: int = flag(1, "tagging passes over lines that changed", min=1)
    # how lines are read, and how many words are restored at a time
    fragments: bool = flag(
        False, "input lines are pieces of a stream cut anywhere (not utterances): nothing is forced at a line's "
               "edges. Off: each line (with --stream, each utterance up to an empty line) is a whole utterance, "
               "as recognisers emit them: it starts with a capital and ends with the sentence mark the model "
               "likes best (? for a question)")
    existing: str = flag(
        "weigh", "marks and case already in the input (a recogniser's): weigh = per line (per stretch of a stream), "
                 "keep where the model agrees with its marks, else strip (a line without marks: keep); keep = given "
                 "(never doubled or removed; capitalised words keep their case; ALL CAPS / Title Case lines are "
                 "re-cased); strip = removed and restored afresh",
        choices=MODES)
    chunk_words: int = flag(DEFAULT_CHUNK_WORDS, "words read, predicted and written at a time; bounds memory on "
                                                 "any file size", min=1)
    lookahead: int = flag(8, "live captions (a stream): words to wait for before a word is final", min=0)
    typography: str = flag(
        "auto", "how marks are spaced: auto = a line whose words are French takes a no-break space before ? ! : ; » "
                "and after «, as French text writes them; french = every line (a French text); plain = none",
        choices=TYPOGRAPHY)
    numbers: str = flag("words", NUMBERS_HELP, choices=NUMBERS)
    # what is said of each word
    review_share: float = flag(
        0.1, "words flagged for review (--format jsonl / json, the service's \"words\": true): those below the "
             "confidence under which this share of the model's dev words fell (about this share on text like the "
             "dev's; 0: none)", min=0, max=1)

    def prediction_settings(self) -> PredictionSettings:
        """These settings as a plain ``PredictionSettings`` (of a subclass that adds a script's own flags)."""
        return PredictionSettings(**{f.name: getattr(self, f.name) for f in fields(PredictionSettings)})


DEFAULTS = PredictionSettings()
