"""Switchboard disfluency reading (gector_punct_data.corpora.switchboard), the disfluency statistics and generator
(gector_punct_data.corpora.disfluency) and utils/report/disfluency_stats.py, on a tiny fake deep-disfluency sdist built here
in the real file's format (no download)."""
import importlib.util
import json
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gector_punct.scoring.metrics import deletion_prf
from gector_punct_data.corpora import disfluency, switchboard
from gector_punct_data.corpora.fetch import TarPackage
from test_prepare_data import make_tgz

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = "deep_disfluency-0.0.1/deep_disfluency/"
OTHER = "experiments/021/epoch_40/swbd_disf_test_data_output_final.text"  # another member, never read


def line(start, end, word, gold, pred="<f/><cc/>"):
    return f"{start}\t{end}\t{word}\t{gold}@{pred}\n\n"


def da(tag, boundary="cc", act="sd"):
    return f'{tag}<{boundary}/><diact type="{act}"/>'


# Invented words in the real format. Side 4008A: "is it far away" (question) | "we um we said" (repetition,
# interregnum um) | "uh you know the $unc$zebras" | "a b- uh a bus" (substitution with a partial word) |
# "but t- apart from" (deletion) | "he ran he ran he sat" (nested: id 2 repetition inside id 7's reparandum) |
# "my my car" (id 2 reused; laughed).
SIDE_A = "Speaker: 4008A\n" + "".join([
    line(0.26, 0.56, "is", da("<f/>", "tc", "qy")), line(0.56, 0.61, "it", da("<f/>", "cc", "qy")),
    line(0.61, 0.64, "far", da("<f/>", "cc", "qy")), line(0.64, 0.71, "away", da("<f/>", "ct", "qy")),
    line(1.0, 1.1, "we", da('<rms id="4"/>', "tc")), line(1.1, 1.2, "um", da('<i id="4"/><e/>')),
    line(1.2, 1.3, "we", da('<rps id="4"/><rpnrep id="4"/>')), line(1.3, 1.4, "said", da("<f/>", "ct")),
    line(2.0, 2.1, "uh", da("<e/>", "tc")), line(2.1, 2.2, "you", da("<e/>")), line(2.2, 2.3, "know", da("<e/>")),
    line(2.3, 2.4, "the", da("<f/>")), line(2.4, 2.5, "$unc$zebras", da("<f/>", "ct")),
    line(3.0, 3.1, "a", da('<rms id="6"/>', "tc")), line(3.1, 3.2, "b-", da('<rm id="6"/>')),
    line(3.2, 3.3, "uh", da('<e/><i id="6"/>')), line(3.3, 3.4, "a", da('<rps id="6"/>')),
    line(3.4, 3.5, "bus", da('<rpnsub id="6"/>', "ct")),
    line(4.0, 4.1, "but", da('<rms id="8"/>', "tc")), line(4.1, 4.2, "t-", da('<rm id="8"/>')),
    line(4.2, 4.3, "apart", da('<rps id="8"/><rpndel id="8"/>')), line(4.3, 4.4, "from", da("<f/>", "ct")),
    line(5.0, 5.1, "he", da('<rms id="2"/><rms id="7"/>', "tc")), line(5.1, 5.2, "ran", da('<rm id="2"/><rm id="7"/>')),
    line(5.2, 5.3, "he", da('<rps id="2"/><rm id="7"/>')), line(5.3, 5.4, "ran", da('<rm id="7"/><rpnrep id="2"/>')),
    line(5.4, 5.5, "he", da('<rps id="7"/>')), line(5.5, 5.6, "sat", da('<rpnsub id="7"/>', "ct")),
    line(6.0, 6.1, "my", da('<rms id="2"/>', "tc")), line(6.1, 6.2, "my", da('<rps id="2"/><rpnrep id="2"/>')),
    line(6.2, 6.3, "car", da("<f/><speechLaugh/>", "ct")),
]) + "\n"
SIDE_B = "Speaker: 4008B\n" + "".join([
    line(1.81, 2.11, "yes", da("<f/>", "tt", "ny"), "<e/><tt/>"),
    line(2.2, 2.3, "well", da("<e/>", "tc", "^q")), line(2.3, 2.4, "right", da("<f/>", "ct", "^q")),
]) + "\n"
TEXT = SIDE_A + SIDE_B


def sides():
    return switchboard.parse(TEXT)


def fake_sdist(tmp_path):
    return make_tgz(tmp_path / "deep_disfluency-0.0.1.tar.gz", {
        TOP + switchboard.MEMBER: TEXT,
        TOP + OTHER: "Speaker: 9999A\n" + line(0, 1, "other", da("<f/>", "tt")),
        TOP + "data/lm_corpora/swbd_disf_test_clean.text": "not this one\n"})


def test_each_tag_kind_parsed_with_times_and_the_unknown_prefix_removed():
    a = sides()["4008A"]
    kinds = {(w.word, round(w.start, 2)): w.kind for w in a}
    assert [(w.word, w.kind) for w in a[4:8]] == [("we", "reparandum"), ("um", "edit"), ("we", "repair"),
                                                  ("said", "fluent")]
    assert a[5].interregnum and a[15].interregnum and not a[8].interregnum  # <i/> either side of <e/>
    assert [w.disfluent for w in a[8:13]] == [True, True, True, False, False]  # uh you know: edit terms
    assert a[12].word == "zebras" and (a[12].start, a[12].end) == (2.4, 2.5)
    assert kinds[("b-", 3.1)] == "reparandum" and a[14].partial and not a[13].partial
    assert [w.kind for w in a[22:28]] == ["reparandum"] * 4 + ["repair"] * 2  # rm wins over rps on one word
    assert a[30].laughed and a[30].kind == "fluent" and a[30].side == "4008A"
    assert [w.utterance_end for w in a[:4]] == [False, False, False, True]
    assert sum(w.disfluent for w in a) == 15


def test_question_from_the_dialogue_act():
    s = sides()
    assert [w.question for w in s["4008A"][:5]] == [True] * 4 + [False]  # qy, then sd
    assert s["4008A"][0].act == "qy"
    assert not any(w.question for w in s["4008B"])  # ny, ^q (a quotation, not a question)


def test_the_gold_tag_is_the_part_before_the_at_sign():
    yes = sides()["4008B"][0]  # gold <f/>, prediction <e/>
    assert yes.kind == "fluent" and not yes.disfluent


def test_read_switchboard_reads_only_the_chosen_member_and_load_uses_the_cache(tmp_path):
    package = TarPackage(fake_sdist(tmp_path))
    assert list(switchboard.read_switchboard(package)) == ["4008A", "4008B"]
    assert list(switchboard.load(str(tmp_path))) == ["4008A", "4008B"]  # found in the cache: no network


def test_parse_rejects_malformed_lines_and_repeated_sides():
    with pytest.raises(ValueError):  # a time missing
        switchboard.parse("Speaker: 1A\n0.1\tword\t<f/><tt/>@<f/><tt/>\n")
    with pytest.raises(ValueError):  # no gold tag
        switchboard.parse("Speaker: 1A\n0.1\t0.2\tword\tf@f\n")
    with pytest.raises(ValueError):  # a word before any side
        switchboard.parse("0.1\t0.2\tword\t<f/>@<f/>\n")
    with pytest.raises(ValueError):
        switchboard.parse(TEXT + SIDE_B)
    assert switchboard.parse_word("uh\t<e/><tt/>@<e/>", "x").start is None  # no times: None


def test_pair_target_is_the_words_minus_the_disfluent_ones():
    source, target = switchboard.pair(sides()["4008A"])
    assert source == [w.word for w in sides()["4008A"]]
    assert " ".join(target) == ("is it far away we said the zebras a bus apart from he sat my car")


def test_repairs_follow_ids_that_are_reused_and_nested():
    found = switchboard.repairs(sides()["4008A"])
    assert [(r.id, r.type, len(r.reparandum), bool(r.interregnum)) for r in found] == [
        ("4", "repetition", 1, True), ("6", "substitution", 2, True), ("8", "deletion", 2, False),
        ("2", "repetition", 2, False), ("7", "substitution", 4, False), ("2", "repetition", 1, False)]
    assert switchboard.repair_anomalies(sides()["4008A"]) == {"stray": 0, "open": 0}


def test_split_keeps_every_side_in_one_part_and_conversations_together():
    ids = [f"{4000 + k}{s}" for k in range(50) for s in "AB"] + ["5000A"]  # one side without its partner
    random.Random(1).shuffle(ids)
    parts = switchboard.split_sides(ids)
    assert sorted(parts["train"] + parts["dev"] + parts["test"]) == sorted(ids)  # each side exactly once
    convs = {name: {switchboard.conversation(s) for s in ids} for name, ids in parts.items()}
    assert not (convs["train"] & convs["dev"] or convs["train"] & convs["test"] or convs["dev"] & convs["test"])
    assert [len(parts[p]) for p in ("train", "dev", "test")] == [72, 14, 15]  # 36/7/8 of 51 conversations
    assert parts["train"][:2] == ["4000A", "4000B"] and switchboard.split_sides(sorted(ids)) == parts


def test_cut_side_lines_cover_the_side_in_order():
    words = sides()["4008A"] * 5
    lines = switchboard.cut_side(words, random.Random(3), 10, 20)
    assert [w for l in lines for w in l] == words
    assert all(10 <= len(l) <= 20 for l in lines[:-1])


def test_statistics_of_the_fake_sides():
    s = disfluency.statistics(sides())
    assert (s["words"], s["disfluent_words"], s["edit_words"]) == (34, 16, 6)
    assert s["fillers"]["phrases"] == {"uh": 1 / 3, "you know": 1 / 3, "well": 1 / 3}  # "you know" one phrase
    assert s["fillers"]["runs"] == {"uh you know": 0.5, "well": 0.5} and s["fillers"]["rate"] == 2 / 18
    assert s["interregnum"]["runs"] == {"uh": 0.5, "um": 0.5} and s["interregnum"]["share"] == 2 / 6
    r = s["repairs"]
    assert r["reparandum_length"] == {"1": 2 / 6, "2": 3 / 6, "4": 1 / 6}
    assert r["types"]["repetition"]["count"] == 3 and r["types"]["deletion"]["partial"] == 1.0
    assert s["partial_words"] == {"count": 2, "rate": 2 / 34, "in_reparandum": 1.0, "letters": {"1": 1.0}}
    json.dumps(s)


STATS = disfluency.statistics(switchboard.parse(TEXT))
WORD = st.text(alphabet="abcXYZ'.,?!-\u00e9", min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(WORD, max_size=40), seed=st.integers(0, 2 ** 32 - 1))
def test_deleting_the_inserted_words_gives_the_input_back(words, seed):
    out, inserted = disfluency.insert_disfluencies(words, STATS, random.Random(seed))
    assert len(out) == len(inserted) and disfluency.fluent(out, inserted) == words
    again = disfluency.insert_disfluencies(words, STATS, random.Random(seed))
    assert again == (out, inserted)  # deterministic given the rng
    for w, flag in zip(out, inserted):
        if flag:
            assert w and w == w.lower() and disfluency.bare(w) == w  # bare, lower case


def test_generator_event_rate_follows_the_stats_and_zero_rates_insert_nothing():
    stats = json.loads(json.dumps(STATS))  # as read back from the JSON file
    words = "The cat sat on the mat. Then it slept, quietly, until noon!".split() * 300
    out, inserted = disfluency.insert_disfluencies(words, stats, random.Random(0))
    spans = [k for k in range(len(out)) if inserted[k] and (k == 0 or not inserted[k - 1])]
    rate = stats["fillers"]["rate"] + stats["repairs"]["rate"]  # at most one event (one span) per input word
    assert abs(len(spans) / len(words) - rate) < 0.03
    assert {"uh", "you", "know", "well"} <= {w for w, f in zip(out, inserted) if f}
    repeated = [k for k in spans if not inserted[k + 1] and out[k] == disfluency.bare(out[k + 1])]
    assert len(repeated) > 100  # one-word repetitions ("the The")
    stats["fillers"]["rate"] = 0.0
    for t in disfluency.TYPES:
        stats["repairs"]["types"][t]["rate"] = 0.0
    assert disfluency.insert_disfluencies(words, stats, random.Random(0)) == (words, [False] * len(words))


def test_deletion_prf_and_the_uh_um_rule_on_a_hand_made_case():
    words = ["uh", "i", "i", "think", "um", "you", "know", "it", "uh", "works"]
    gold = [True, True, False, False, True, True, True, False, False, False]  # the last uh: kept (say)
    pred = switchboard.drop_uh_um(words)
    assert pred == [True, False, False, False, True, False, False, False, True, False]
    m = deletion_prf(gold, pred)
    assert (m["tp"], m["fp"], m["fn"]) == (2, 1, 3)
    assert m["precision"] == pytest.approx(200 / 3) and m["recall"] == pytest.approx(40.0)
    assert m["f1"] == pytest.approx(50.0)
    sklearn = pytest.importorskip("sklearn.metrics")
    assert m["f1"] == pytest.approx(100 * sklearn.f1_score(gold, pred))
    assert deletion_prf([False], [False])["f1"] == 0.0


def test_disfluency_stats_script_writes_json_from_the_train_sides(tmp_path, capsys):
    fake_sdist(tmp_path)
    path = os.path.join(ROOT, "utils", "report", "disfluency_stats.py")
    spec = importlib.util.spec_from_file_location("disfluency_stats", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "stats.json"
    assert script.main(["--cache_dir", str(tmp_path), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["split"]["train"]["sides"] == ["4008A", "4008B"]  # one conversation: all in train
    assert doc["train"]["words"] == 34 and doc["baseline"]["all"]["tp"] == 3
    assert "drop uh/um on all" in capsys.readouterr().out
