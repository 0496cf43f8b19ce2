"""Dev scoring of a predictor on tagged instances: what training selects checkpoints by and what the model
reports print.

``score_tags(instances, predicted) -> metrics.score dict``: the gold tags and the predicted tags of the same
words are both written out by the one writer (``tags.written_forms``, as ``predict`` writes) and compared word
by word over the words the gold keeps, as ``utils/evaluate.py`` compares texts; case is scored only on
instances whose corpus has case. ``evaluate_instances(punctuator, instances)``
predicts the tags first (with the instances' audio, if any) and scores them with ``score_conversion`` when
the punctuator's tasks include ``disf``. Decoding is the punctuator's own; training and
compression pass ``DecodeConfig.neutral()`` so that models are compared by their probabilities alone.
``evaluate_dev_sets(model, {path: instances})``: the same over several dev files, each with its tasks.
``consistency(instances, predicted) -> counts``: what a reader sees as contradictions in the written output.
``score_conversion(instances, predicted) -> dict``: disfluency deletion and punctuation together (seed
001): ``deletion`` (per-word precision / recall / F1 of ``$DELETE``) and the ``score`` groups over the
words the reference keeps (a kept word the prediction deleted counts as unpunctuated, in its source case).
"""
from __future__ import annotations

from gector_punct.model.config import DecodeConfig
from gector_punct.scoring.metrics import deletion_prf, labels_from_words, score
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.dataset.reader import Instance
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.tags import CASE_UNKNOWN, END_CONTEXT, Tag, mark_context, split_edges, starts_lower, written_forms


def score_tags(instances: list[Instance], predicted: list[list[Tag]]) -> dict:
    return score(*_kept_labels(instances, [written_forms(i.words, tags) for i, tags in zip(instances, predicted)]))


def evaluate_instances(punctuator: Punctuator, instances: list[Instance], use_audio: bool = True,
                       decode: DecodeConfig | None = None) -> dict:
    audio = [i.audio for i in instances] if use_audio and any(i.audio for i in instances) else None
    words = [i.words for i in instances]
    predicted = punctuator.decode(words, punctuator.probabilities(words, audio), decode)
    return score_conversion(instances, predicted) if "disf" in punctuator.tasks else score_tags(instances, predicted)


def evaluate_dev_sets(model, dev_sets: dict[str, list[Instance]], **options) -> dict:
    """Dev files (path -> instances) scored with argmax decoding (``DecodeConfig.neutral()``), each predicted
    with its own tasks (those the model can do); ``options`` go to the ``Punctuator``. One file: its result;
    several: the first's plus ``sets`` (each file's, by path), whose selection F1s ``metrics.selection_f1``
    averages. What training selects checkpoints by and compression compares ranks by."""
    results = {}
    for path, instances in dev_sets.items():
        punctuator = Punctuator([model], DecodeConfig.neutral(), tasks=instances[0].tasks & model.tasks, **options)
        results[path] = evaluate_instances(punctuator, instances)
    first = next(iter(results.values()))
    return first if len(results) == 1 else dict(first, sets=results)


def consistency(instances: list[Instance], predicted: list[list[Tag]]) -> dict:
    """Contradictions between the predicted case and punctuation, counted over the written output
    (``tags.written_forms``; deleted words left out): ``lower_after_end``: words starting lower-case after a
    sentence end (``sentences.ends_sentence_after`` as the writer reads it: . ? !, not the period of ``Mr.``
    or ``U.S.``; 0 by design for the marks the tagger adds); ``capital_after_pause``: words the tagger
    capitalised after a comma-like mark or no mark whose gold form starts lower-case (cased instances only:
    common words, not names);
    ``unbalanced_quote_lines``: lines with an odd number of straight double quotes."""
    out = {"words": 0, "lower_after_end": 0, "capital_after_pause": 0, "lines": len(instances),
           "unbalanced_quote_lines": 0}
    for instance, tags in zip(instances, predicted):
        written, gold = written_forms(instance.words, tags), written_forms(instance.words, instance.tags)
        kept = [k for k, form in enumerate(written) if form is not None]
        cased = not any(t.case == CASE_UNKNOWN for t in instance.tags)
        out["words"] += len(kept)
        out["unbalanced_quote_lines"] += sum(written[k].count('"') for k in kept) % 2
        for before, k in zip(kept, kept[1:]):
            if ends_sentence_after(written[before]) and starts_lower(written[k]):
                out["lower_after_end"] += 1
            elif cased and mark_context(written[before]) != END_CONTEXT and not starts_lower(written[k]) \
                    and gold[k] is not None and starts_lower(gold[k]):
                out["capital_after_pause"] += 1
    return out


def score_conversion(instances: list[Instance], predicted: list[list[Tag]]) -> dict:
    return score_forms(instances, [written_forms(i.words, tags) for i, tags in zip(instances, predicted)])


def score_forms(instances: list[Instance], predicted: list[list[str | None]]) -> dict:
    """``score_conversion`` of predicted written forms (per source word: as written, or None: deleted), as
    ``tags.written_forms`` gives them or a cascade of taggers leaves them."""
    gold_flags = [t.deletes for i in instances for t in i.tags]
    pred_flags = [form is None for forms in predicted for form in forms]
    return {"deletion": deletion_prf(gold_flags, pred_flags), **score(*_kept_labels(instances, predicted))}


def _kept_labels(instances: list[Instance], predicted: list[list[str | None]]) -> tuple[list, list]:
    """(reference, prediction) ``metrics.WordLabel`` lists over the words the gold tags keep, both written by
    ``tags.written_forms``; a kept word the prediction deleted counts as unpunctuated, in its source case."""
    ref, pred = [], []
    for instance, pred_forms in zip(instances, predicted):
        cased = not any(t.case == CASE_UNKNOWN for t in instance.tags)
        gold_forms = written_forms(instance.words, instance.tags)
        kept = [k for k, form in enumerate(gold_forms) if form is not None]
        ref.extend(labels_from_words([gold_forms[k] for k in kept], cased))
        pred.extend(labels_from_words([pred_forms[k] if pred_forms[k] is not None else split_edges(instance.words[k])[1]
                                       for k in kept], cased))
    return ref, pred
