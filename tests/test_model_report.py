"""utils/report/model_report.py's --edges figures: what cutting lines anywhere costs, scored with the reference's
first-word case and last-word marks given, and the cased dev file as one stream."""
import os
import sys

from conftest import ROOT
from gector_punct.model.config import DecodeConfig
from gector_punct.scoring.metrics import IWSLT_CLASSES, labels_from_words
from gector_punct.prediction.punctuator import Punctuator

sys.path.insert(0, os.path.join(ROOT, "utils"))
import model_report  # noqa: E402


def test_edges_given_are_the_references_first_case_and_last_marks(trained_tiny, learnable_data):
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu")
    dev = model_report.DevSets(punctuator, learnable_data["dev"], learnable_data["dev"])
    nothing = DecodeConfig(min_error_probability=1.01)  # every line stays as it is: all tags $KEEP
    result = model_report.edge_scores(dev, nothing)
    given = result["cased_lines_edges_given"]["punct"]["overall"]
    # The only marks are the reference's own on each line's last word: all right, and as many as there are.
    last_marks = sum(labels_from_words([t.apply(w) for w, t in zip(i.words, i.tags)], False)[-1].punct
                     in IWSLT_CLASSES for i in dev.cased)
    assert last_marks > 0 and given["precision"] == 100
    assert round(given["recall"] * given["support"] / 100) == last_marks < given["support"]
    assert result["cased_stream"]["words"] == sum(len(i.words) for i in dev.cased)
    assert result["cased_stream"]["punct"]["overall"]["f1"] == 0


def test_tuning_keeps_the_model_s_other_decoding_settings(trained_tiny, learnable_data):
    """--tune grids three knobs; it built a fresh DecodeConfig, so storing its result reset the model's
    ``exclamation`` (default_en's 0.95) and ``deletion_threshold`` to their defaults."""
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu")
    dev = model_report.DevSets(punctuator, learnable_data["dev"], learnable_data["dev"])
    base = DecodeConfig(exclamation=0.95, deletion_threshold=0.7, question_opening=0.4)
    tuned, _ = model_report.tune(dev, base)
    assert (tuned.exclamation, tuned.deletion_threshold, tuned.question_opening) == (0.95, 0.7, 0.4)
    assert tuned.min_error_probability in model_report.GRID_MIN_ERROR


def test_model_report_measures_idempotence_as_utterances_and_as_fragments(trained_tiny, learnable_data):
    """Restored lines read again: as utterances (predict.py's default) a line that reads as written takes no
    new mark, so no word changes; the figure is the share of words whose tag is an edit."""
    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu")
    dev = model_report.DevSets(punctuator, learnable_data["dev"], learnable_data["dev"])
    eager = DecodeConfig(additional_confidence=-0.9, case_confidence=0.0)  # a second pass would add marks
    tags = punctuator.decode([i.words for i in dev.cased], dev.cased_probs, eager, whole=True)
    assert model_report.idempotence(punctuator, dev.cased, tags, eager, whole=True) == 0
    no_line_written = DecodeConfig(additional_confidence=-0.9, case_confidence=0.0, written=1.1)
    assert model_report.idempotence(punctuator, dev.cased, tags, no_line_written, whole=True) > 0


def test_rule_ablation_shows_the_lines_a_rule_changes():
    import rule_ablation
    from gector_punct.dataset.reader import Instance
    from gector_punct.text.tags import Tag

    instance = Instance(["so", "we", "went", "home"], [Tag(case="$TRANSFORM_CASE_CAPITAL"), Tag(), Tag(),
                                                       Tag(append=".")])
    with_rule = [[Tag(append=","), Tag(), Tag(), Tag(append=".")]]
    shown = rule_ablation.changes([instance, instance], with_rule * 2, [instance.tags] * 2, most=1)
    assert shown.splitlines()[:3] == ["  with     so, we went home.", "  without  So we went home.",
                                      "  ref      So we went home."]
    assert shown.endswith("2 lines changed by the rule") and shown.count("with ") == 1


def test_written_report_tells_restored_lines_from_raw_ones(trained_tiny, learnable_data, tmp_path):
    """utils/report/written_report.py: the model's own output is read as written (each line opens, closes and is
    complete), the raw lines it came from never are."""
    import written_report

    punctuator = Punctuator.load(trained_tiny["dir"], device="cpu", decode=DecodeConfig(case_confidence=0.0))
    raw = [s for s, _ in learnable_data["dev_pairs"]]
    (tmp_path / "raw.txt").write_text("\n".join(raw) + "\n")
    once = punctuator.predict(raw)
    (tmp_path / "once.txt").write_text("\n".join(once) + "\n")
    (tmp_path / "open.txt").write_text("\n".join(line[:-1] for line in once) + "\n")  # its last mark gone
    once, open_end, plain = (written_report.file_report(punctuator, str(tmp_path / name))
                             for name in ("once.txt", "open.txt", "raw.txt"))
    assert "opens and closes 100.0%" in once and "read as written (>= 0.5) 100.0%" in once
    assert "opens and closes 0.0%" in open_end and "read as written (>= 0.5) 0.0%" in open_end
    assert "opens and closes 0.0%" in plain and "read as written (>= 0.5) 0.0%" in plain
