"""Dev scoring of a predictor on tagged instances: what training selects checkpoints by and what the model
reports print.

``score_tags(instances, predicted) -> metrics.score dict``: the gold tags and the predicted tags of the same
words are both written out (``Tag.apply``) and compared word by word, as ``utils/evaluate.py`` compares
texts; case is scored only on instances whose corpus has case. ``evaluate_instances(punctuator, instances)``
predicts the tags first (with the instances' audio, if any). Decoding is the punctuator's own; training and
compression pass ``DecodeConfig.neutral()`` so that models are compared by their probabilities alone.
"""
from __future__ import annotations

from .metrics import labels_from_words, score
from .config import DecodeConfig
from .predictor import Punctuator
from .reader import Instance
from .tags import CASE_UNKNOWN, Tag


def score_tags(instances: list[Instance], predicted: list[list[Tag]]) -> dict:
    ref, pred = [], []
    for instance, tags in zip(instances, predicted):
        cased = not any(t.case == CASE_UNKNOWN for t in instance.tags)
        ref.extend(labels_from_words([t.apply(w) for w, t in zip(instance.words, instance.tags)], cased))
        pred.extend(labels_from_words([t.apply(w) for w, t in zip(instance.words, tags)], cased))
    return score(ref, pred)


def evaluate_instances(punctuator: Punctuator, instances: list[Instance], use_audio: bool = True,
                       decode: DecodeConfig | None = None) -> dict:
    audio = [i.audio for i in instances] if use_audio and any(i.audio for i in instances) else None
    words = [i.words for i in instances]
    return score_tags(instances, punctuator.decode(words, punctuator.probabilities(words, audio), decode))
