"""The prediction flags that ``predict.py`` and ``utils/predict_ray.py`` share, and the ``Punctuator`` they describe.

``add_model_flags`` (which model, which engine runs it, how it batches), ``add_decoding_flags`` (what the taggers are asked to do,
and how boldly), ``add_text_flags`` (how lines are read and cut into chunks) add them to a parser, each with
its help text and a checking ``type`` (``argtypes``); ``choose_model(args)`` fills in the shipped model for
``--tasks`` when no ``--model_path`` is given; ``prediction.loading.load_punctuator(args)`` builds the ``Punctuator``.
"""
from __future__ import annotations

import argparse

from gector_punct.engines.choice import DEFAULT_ENGINE, ENGINE_HELP, ENGINES
from gector_punct.options.argtypes import finite_float, nonnegative_float, positive_int, probability, task_set
from gector_punct.prediction.chunks import DEFAULT_CHUNK_WORDS
from gector_punct.prediction.punctuator import shipped_model
from gector_punct.text.tasks import DEFAULT_TASKS


def add_model_flags(p: argparse.ArgumentParser) -> None:
    """Which model, which engine runs it, and how it batches its windows."""
    p.add_argument("--model_path", nargs="+", default=None,
                   help="model folder(s); several = an ensemble averaging per-word probabilities, as an ensemble folder "
                        "(models/ensemble_en) stores one (default: the shipped model for --tasks: models/switch_en "
                        "when disf is asked, else models/default_en)")
    p.add_argument("--vocab_path", default=None, help="vocabulary folder overriding the model's own")
    p.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE, help=f"{ENGINE_HELP} (default {DEFAULT_ENGINE})")
    p.add_argument("--batch_size", type=positive_int, default=32, help="encoder windows per batch (default 32)")
    p.add_argument("--max_len", type=positive_int, default=None, help="subwords per window (default: the model's)")
    p.add_argument("--special_tokens_fix", type=int, choices=(0, 1), default=None,
                   help="GECToR's flag: a model folder records its own setting; given, it must match every model's")


def add_decoding_flags(p: argparse.ArgumentParser) -> None:
    """What the taggers are asked to do, and how boldly."""
    p.add_argument("--tasks", type=task_set, default=DEFAULT_TASKS,
                   help="what to convert: punc (punctuation and case), disf (delete disfluencies: uh, um, repeated "
                        "and abandoned words), disf,punc (both at once) or none; a task that is off leaves its part "
                        "of the text alone. Without --model_path: the shipped model that can do them (default punc)")
    p.add_argument("--min_error_probability", type=probability, default=None,
                   help="leave a line alone when no word's error probability reaches this, and skip any edit below it (default: the model's)")
    p.add_argument("--additional_confidence", type=finite_float, default=None,
                   help="added to the $KEEP probability of the punctuation head: higher = fewer marks (default: the model's)")
    p.add_argument("--exclamation", type=probability, default=None,
                   help="a ! the tagger chooses stays only when at least this probable, else it becomes . "
                        "(default: the model's; 0 keeps every !)")
    p.add_argument("--question_opening", type=nonnegative_float, default=None,
                   help="open a question the tagger closes with ? with ¿ where that is at least this probable "
                        "(Spanish; default: the model's, 0.5; 1.1: never add one)")
    p.add_argument("--deletion_threshold", type=probability, default=None,
                   help="with disf: delete a word when its $DELETE probability exceeds this; higher = fewer, surer "
                        "deletions (default: the model's, 0.5)")
    p.add_argument("--case_confidence", type=finite_float, default=None,
                   help="added to the $KEEP probability of the case head: higher = fewer case changes, negative = "
                        "more (default: the model's)")
    p.add_argument("--iteration_count", type=positive_int, default=1,
                   help="tagging passes over lines that changed (default 1)")



def add_text_flags(p: argparse.ArgumentParser) -> None:
    """How input lines are read, and how many words are restored at a time."""
    p.add_argument("--chunk_words", type=positive_int, default=DEFAULT_CHUNK_WORDS,
                   help="words read, predicted and written at a time; bounds memory on any file size (default "
                        f"{DEFAULT_CHUNK_WORDS})")
    p.add_argument("--fragments", action="store_true",
                   help="input lines are pieces of a stream cut anywhere (not utterances): nothing is forced at a "
                        "line's edges. Default: each line (with --stream, each utterance up to an empty line) is a "
                        "whole utterance, as recognisers emit them: it starts with a capital and ends with the "
                        "sentence mark the model likes best (? for a question)")
    p.add_argument("--existing", choices=["keep", "strip"], default="keep",
                   help="marks and case already in the input: keep = given (never doubled or removed; capitalised "
                        "words keep their case; ALL CAPS / Title Case lines are re-cased), strip = removed and "
                        "restored afresh (default keep)")


def choose_model(args: argparse.Namespace) -> None:
    """``args.model_path`` as given, else the shipped model that can do ``args.tasks``."""
    if args.model_path is None:
        args.model_path = [shipped_model(args.tasks)]


