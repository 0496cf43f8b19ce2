"""Per-word confidence (issue 50): what the heads said of each decision, calibrated per model folder; the
``--format jsonl`` lines, the typed Python result and the stream's words written by one writer."""
import json
import os
import shutil

import numpy as np
import pytest

from conftest import ROOT
from test_cli import run

from gector_punct import Punctuator
from gector_punct.model.vocabulary import CASE_HEAD, DETECT_HEAD, PUNCT_HEAD
from gector_punct.prediction.confidence import FORMAT as CONFIDENCE_FORMAT
from gector_punct.prediction.confidence import (AT, CALIBRATION_FILE, FEATURES, KINDS, Calibration, read_calibration,
                                                unit_features)
from gector_punct.prediction.decoding import mean_probabilities
from gector_punct.prediction.loading import ModelLoadError, load_punctuator
from gector_punct.prediction.restored import RestoredLine, RestoredWord
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.dataset.reader import Instance
from gector_punct.prediction.streaming import Captions, StreamingPunctuator
from gector_punct.text.tags import Tag, make_source, tags_from_pair

LINES = ["so i went to new york last tuesday did you", "", "   ", "hello there how are you doing today",
         "we met at the cafe on main street and then we walked to the park it was sunny", "我们明天见 ok",
         "um so yeah i think the the meeting is at three"]


@pytest.fixture(scope="module")
def default_en():
    return Punctuator.load("default_en")


def test_jsonl_text_is_the_plain_line_and_its_words_join_to_it(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(("\n".join(LINES[:-1]) + "\r\n" + LINES[-1] + "\n").encode())
    plain = run("predict.py", "--input_file", str(source), "--output_file", "-").stdout.splitlines()
    scored = [json.loads(line) for line in run("predict.py", "--input_file", str(source), "--output_file", "-",
                                               "--format", "jsonl").stdout.splitlines()]
    assert [line["text"] for line in scored] == plain and len(plain) == len(LINES)
    for line in scored:
        if line["text"].strip():
            assert " ".join(word["text"] for word in line["words"]) == line["text"]
        else:
            assert line["words"] == []
        assert all(0 <= word["confidence"] <= 1 and isinstance(word["review"], bool) for word in line["words"])


def test_review_flags_the_words_below_the_threshold_of_the_share(tmp_path, default_en):
    source = tmp_path / "in.txt"
    source.write_text("\n".join(LINES) + "\n")

    def flagged(share: str) -> list[bool]:
        out = run("predict.py", "--input_file", str(source), "--output_file", "-", "--format", "jsonl",
                  "--review_share", share, "--model_path", "default_en").stdout
        return [word["review"] for line in out.splitlines() for word in json.loads(line)["words"]]

    assert not any(flagged("0")) and all(flagged("1"))
    some = flagged("0.3")
    assert 0 < sum(some) < len(some)
    threshold = default_en.calibration.review_threshold(0.3)
    words = [w for line in default_en.predict_scored(LINES) for w in line.words]
    assert some == [w.confidence < threshold for w in words]


def test_the_python_result_is_typed_and_says_what_predict_says(default_en):
    scored = default_en.predict_scored(LINES)
    assert [line.text for line in scored] == default_en.predict(LINES)
    assert all(isinstance(line, RestoredLine) and all(isinstance(w, RestoredWord) for w in line.words)
               for line in scored)
    assert default_en.calibration.calibrated  # models/default_en/confidence.json


def test_a_stream_gives_each_final_word_its_confidence(default_en):
    words = " ".join(LINES).split()
    plain, scored = Captions(StreamingPunctuator(default_en, 4)), Captions(StreamingPunctuator(default_en, 4))
    texts, finals = [], []
    for k in range(0, len(words), 3):
        texts.append(plain.push(words[k:k + 3]))
        text, final = scored.push_scored(words[k:k + 3])
        finals.append((text, final))
    texts.append(plain.finish())
    finals.append(scored.finish_scored())
    assert [text for text, _ in finals] == texts
    for text, final in finals:
        assert [w.text for w in final] == text.split()
        assert all(0 < w.confidence < 1 for w in final)


def test_a_folder_without_a_calibration_says_so_and_a_broken_one_is_refused(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(os.path.join(ROOT, "models", "default_en"), folder)
    os.remove(folder / CALIBRATION_FILE)
    loose = Punctuator.load(str(folder))
    assert not loose.calibration.calibrated
    (line,) = loose.predict_scored(["so i went to new york"])
    assert all(0 <= w.confidence <= 1 for w in line.words)
    said = run("predict.py", "--model_path", str(folder), "--input_file", "examples/review.txt", "--output_file",
               "-", "--format", "jsonl").stderr
    assert f"has no {CALIBRATION_FILE}" in said and "uncalibrated" in said
    for broken in ('{"format": "something else"}', "{", '{"format": "%s", "features": %s}'
                   % (CONFIDENCE_FORMAT, json.dumps(list(FEATURES)))):  # the last without weights
        (folder / CALIBRATION_FILE).write_text(broken)
        with pytest.raises(ModelLoadError, match=CALIBRATION_FILE):
            load_punctuator(PredictionSettings(model_path=[str(folder)]))


def scripted_probabilities(names, rows):
    """Probabilities of one line: per word, {head: {label: p}} (the rest of each row at 0)."""
    out = {PUNCT_HEAD.name: np.zeros((len(rows), len(names[PUNCT_HEAD.name])), np.float32),
           CASE_HEAD.name: np.zeros((len(rows), 4, len(names[CASE_HEAD.name])), np.float32),
           DETECT_HEAD.name: np.zeros((len(rows), len(names[DETECT_HEAD.name])), np.float32)}
    for k, row in enumerate(rows):
        for label, p in row[PUNCT_HEAD.name].items():
            out[PUNCT_HEAD.name][k, names[PUNCT_HEAD.name].index(label)] = p
        for context, labels in row[CASE_HEAD.name].items():
            for label, p in labels.items():
                out[CASE_HEAD.name][k, context, names[CASE_HEAD.name].index(label)] = p
        out[DETECT_HEAD.name][k, names[DETECT_HEAD.name].index("CORRECT")] = row.get("correct", 0.9)
    return out


def test_features_read_the_decided_labels_in_the_context_the_tags_give(default_en):
    names = default_en.names
    capital = "$TRANSFORM_CASE_CAPITAL"
    rows = [{PUNCT_HEAD.name: {"$APPEND_.": 0.7, "$KEEP": 0.3}, CASE_HEAD.name: {0: {"$KEEP": 1.0}}},
            # the second word's case: sure of a capital after a sentence end (context 3), unsure after none (1)
            {PUNCT_HEAD.name: {"$KEEP": 0.95, "$APPEND_,": 0.05},
             CASE_HEAD.name: {3: {capital: 0.98, "$KEEP": 0.02}, 1: {capital: 0.4, "$KEEP": 0.6}}}]
    probabilities = scripted_probabilities(names, rows)
    ended = [[Tag(append="."), Tag(case=capital)]]
    (features,) = unit_features([["yes", "we"]], probabilities, names, ended)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    at = {name: i for i, name in enumerate(FEATURES)}
    assert features[0, at["punct"]] == pytest.approx(logit(0.7), abs=1e-4)
    assert features[1, at["case"]] == pytest.approx(logit(0.98), abs=1e-3)  # read after the period
    assert features[1, at["boundary_before"]] == pytest.approx(logit(0.7), abs=1e-3)
    assert features[1, at["last"]] == 1 and features[0, at["last"]] == 0
    assert [KINDS[int(k)] for k in features[:, -1]] == ["period", "keep"]
    (open_features,) = unit_features([["yes", "we"]], probabilities, names, [[Tag(), Tag(case=capital)]])
    assert open_features[1, at["case"]] == pytest.approx(logit(0.4), abs=1e-3)  # no mark before it


def test_an_ensembles_features_read_each_members_view_of_the_decision(default_en):
    """Two members that disagree on a word's mark: the features hold the least and the surest member's
    probability of the label decided, that their likeliest labels differ and how far apart their sentence ends
    are; where they agree the split is 0; one model's features repeat its own probabilities."""
    names = default_en.names
    keep = {CASE_HEAD.name: {c: {"$KEEP": 1.0} for c in range(4)}}
    sure = [{PUNCT_HEAD.name: {"$APPEND_.": 0.9, "$KEEP": 0.1}, **keep}, {PUNCT_HEAD.name: {"$KEEP": 1.0}, **keep}]
    unsure = [{PUNCT_HEAD.name: {"$APPEND_.": 0.2, "$KEEP": 0.8}, **keep}, {PUNCT_HEAD.name: {"$KEEP": 1.0}, **keep}]
    members = [scripted_probabilities(names, rows) for rows in (sure, unsure)]
    probabilities = mean_probabilities(members)
    tags = [[Tag(append="."), Tag()]]
    (features,) = unit_features([["yes", "we"]], probabilities, names, tags)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    assert features[0, AT["punct"]] == pytest.approx(logit(0.55), abs=1e-4)  # the mean decides
    assert features[0, AT["punct_low"]] == pytest.approx(logit(0.2), abs=1e-4)
    assert features[0, AT["punct_high"]] == pytest.approx(logit(0.9), abs=1e-4)
    assert features[0, AT["boundary_spread"]] == pytest.approx(0.7, abs=1e-4)
    assert list(features[:, AT["members_split"]]) == [1, 0]
    (alone,) = unit_features([["yes", "we"]], members[0], names, tags)
    assert alone[0, AT["punct_low"]] == alone[0, AT["punct_high"]] == alone[0, AT["punct"]]
    assert list(alone[:, AT["members_split"]]) == [0, 0] and list(alone[:, AT["boundary_spread"]]) == [0, 0]


def test_the_least_confident_words_hold_most_of_the_errors(default_en):
    """On the repository's example texts (2,098 words, none used to fit), the least confident fifth of the
    words holds most of the wrong ones (a ranking that says nothing would hold a fifth)."""
    import fit_confidence  # utils/report/

    instances = []
    for path in ("examples/dev.tgt", "examples/test.tgt"):
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            for target in f.read().splitlines():
                words = make_source(target).split()
                instances.append(Instance(words, tags_from_pair(words, target)))
    scored = fit_confidence.score_instances(default_en, instances)
    confidence = default_en.calibration.confidence(scored.features)
    assert (~scored.right).sum() >= 50 and fit_confidence.caught(confidence, scored.right, 0.2) >= 0.6


def test_review_thresholds_are_the_dev_quantiles():
    calibration = read_calibration(os.path.join(ROOT, "models", "default_en"))
    thresholds = calibration.review_thresholds
    assert list(thresholds) == sorted(thresholds) and len(thresholds) == 101
    assert calibration.review_threshold(0.1) == pytest.approx(thresholds[10])
    assert calibration.review_threshold(0) == 0 and calibration.review_threshold(1) > 1
    assert Calibration.uncalibrated().confidence(np.array([[0.0, 0.0] + [9.0] * (len(FEATURES) - 1)]))[0] == \
        pytest.approx(0.25)


def test_the_examples_of_docs_review_are_what_predict_writes():
    from test_doc_examples import quoted_output
    jsonl = run("predict.py", "--input_file", "examples/review.txt", "--output_file", "-", "--format", "jsonl").stdout
    written = [json.loads(line) for line in jsonl.splitlines()]
    quoted = json.loads("[" + quoted_output("docs/review.md", "--input_file examples/review.txt").replace("} {", "}, {")
                        .replace("]} {", "]}, {") + "]")
    assert [line["text"] for line in quoted] == [line["text"] for line in written]
    for doc, out in zip(quoted, written):  # confidences quoted to two decimals: the third differs by CPU
        assert [(w["text"], w["review"]) for w in doc["words"]] == [(w["text"], w["review"]) for w in out["words"]]
        assert all(abs(w["confidence"] - v["confidence"]) <= 0.011 for w, v in zip(doc["words"], out["words"]))
        assert all(round(w["confidence"], 2) == w["confidence"] for w in doc["words"])
    srt = run("predict.py", "--input_file", "examples/talk.json", "--output_file", "-", "--format", "srt").stdout
    with open(os.path.join(ROOT, "docs", "review.md"), encoding="utf-8") as f:
        text = f.read()
    quoted = text[text.index("--input_file examples/talk.json"):].split("```", 1)[1].split("An SRT")[0]
    cues = [line.strip() for line in quoted.splitlines() if line.strip()]
    assert cues and [line for line in srt.splitlines() if line.strip()][:len(cues)] == cues


def test_a_word_of_several_units_is_as_sure_as_all_of_them_and_flagged_by_its_least_sure():
    from gector_punct.prediction.restored import restored_line, restored_word
    long_run = restored_word("今天天气很好", [0.97] * 6, threshold=0.9)
    assert long_run.confidence == pytest.approx(0.97 ** 6) and not long_run.review  # not flagged for its length
    assert restored_word("你好", [0.95, 0.85], threshold=0.9).review
    line = restored_line(["今", "天", "OK", "好"], [False, False, True, True], [0.9, 0.8, 0.7, 0.6], 0.75)
    assert [(w.text, w.review) for w in line.words] == [("今天", False), ("OK", True), ("好", True)]
    assert line.text == "今天 OK 好"
