"""The edges of the word confidence that issue 58's review found untested: each decision's kind, the two
largest punctuation probabilities in order, a calibration file of another format refused."""
import json

import pytest

from gector_punct import Punctuator
from gector_punct.prediction.confidence import (AT, CALIBRATION_FILE, FEATURES, FORMAT, KINDS, decision_kind,
                                                read_calibration)
from gector_punct.text.tags import Tag


@pytest.mark.parametrize("label, kind", [("$KEEP", "keep"), ("$APPEND_,", "comma"), ("$APPEND_.", "period"),
                                         ("$APPEND_?", "question"), ("$APPEND_!", "other"), ("$DELETE", "delete")])
def test_each_decision_has_its_kind(label, kind):
    assert KINDS[decision_kind(Tag.parse(label))] == kind


def test_the_top_probability_comes_before_the_second():
    punctuator = Punctuator.load("default_en")
    units = [unit for word in punctuator.read_units("so did you go to the game or not".split()) for unit in word]
    _, (features,) = punctuator.predict_tags_scored([punctuator.tagger_line(units)])
    top, second = features[:, AT["top"]], features[:, AT["second"]]
    assert len(top) == 9 and (top >= second).all() and (top > second).any()


def test_a_calibration_of_another_format_or_features_is_refused(tmp_path):
    good = {"format": FORMAT, "features": list(FEATURES),
            "weights": {kind: [0.0] * (len(FEATURES) + 1) for kind in KINDS}, "review_thresholds": [0.1, 0.5]}
    (tmp_path / CALIBRATION_FILE).write_text(json.dumps(good))
    assert read_calibration(str(tmp_path)).review_thresholds == (0.1, 0.5)
    for bad in ({**good, "format": "gector-punct-confidence/3"}, {**good, "features": list(FEATURES)[::-1]}):
        (tmp_path / CALIBRATION_FILE).write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=f"not a {FORMAT} file"):
            read_calibration(str(tmp_path))
