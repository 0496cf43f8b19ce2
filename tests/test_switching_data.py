"""utils/data/prepare_switching_data.py and gector_punct_data.corpora.switching on a tiny fake deep-disfluency sdist (ten
conversations built from test_disfluency's invented sides, no download) and tiny fluent text files."""
import importlib.util
import json
import os
import random
import re

import pytest

from gector_punct.text.tags import make_source
from gector_punct_data.corpora import switchboard
from gector_punct_data.corpora import switching as sw
from test_disfluency import SIDE_A, SIDE_B, STATS, TOP
from test_prepare_data import make_tgz

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONVERSATIONS = [str(4000 + k) for k in range(10)]  # split_sides: 7 train, 1 dev (4007), 2 test (4008, 4009)
HELD_OUT_FILLER = "zzz"  # an edit term only the dev and test sides have
SETS = ["swbd.train", "swbd.dev", "swbd.test", "swbd_sides.dev", "swbd_sides.test", "gen.train", "none.train",
        "gen.dev", "joint.dev"]
TRAIN_TEXT = [
    "So, we went to New York last Tuesday, and it rained -- all day.",
    "Did you see the game? I didn't; I was working late again.",
    "The cat sat on the mat, then it slept until noon!",
    "\"Well,\" she said, \"that's not what I meant at all.\"",
    "We'll fix the roof next spring if the weather holds.",
    "Nobody knew where the old road went after the bridge.",
]
DEV_TEXT = ["I'm going to the bank on my lunch break. Do you want a sandwich?",
            "My neighbor Frank has a vegetable garden -- it could feed the whole street.",
            "The meeting ran over by an hour, so I missed my train."]


def fake_text():
    out = []
    for k, conv in enumerate(CONVERSATIONS):
        text = (SIDE_A + SIDE_B).replace("4008A", conv + "A").replace("4008B", conv + "B")
        if k >= 7:
            text = text.replace("\twell\t", f"\t{HELD_OUT_FILLER}\t")
        out.append(text)
    return "".join(out)


@pytest.fixture
def script():
    spec = importlib.util.spec_from_file_location("prepare_switching_data",
                                                  os.path.join(ROOT, "utils", "data", "prepare_switching_data.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def inputs(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    make_tgz(cache / "deep_disfluency-0.0.1.tar.gz", {TOP + switchboard.MEMBER: fake_text()})
    train, dev = tmp_path / "train.tgt", tmp_path / "dev.tgt"
    train.write_text("\n".join(TRAIN_TEXT * 20) + "\n")  # 1,320 words
    dev.write_text("\n".join(DEV_TEXT * 10) + "\n")
    return {"cache": str(cache), "train": str(train), "dev": str(dev), "tmp": tmp_path}


def run(script, inputs, out="out", seed=1, *extra):
    out = str(inputs["tmp"] / out)
    argv = ["--out", out, "--cache", inputs["cache"], "--fluent_train", inputs["train"], "--fluent_dev",
            inputs["dev"], "--gen_words", "700", "--none_words", "300", "--seed", str(seed), *extra]
    assert script.main(argv) == 0
    return out


def text(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def words_of(tokens):
    """An independent normaliser: lower case, punctuation at the edges stripped, empty tokens dropped."""
    out = [re.sub(r"^[^\w]+|[^\w]+$", "", t).lower() for t in tokens]
    return [w for w in out if w]


def test_every_set_has_aligned_masks_and_target_equal_to_source_minus_deleted(script, inputs):
    out = run(script, inputs)
    for name in SETS:
        src = text(out, name + ".src").splitlines()
        tgt = text(out, name + ".tgt").splitlines()
        dels = text(out, name + ".del").splitlines()
        assert len(src) == len(tgt) == len(dels) > 0, name
        for s, t, d in zip(src, tgt, dels):
            flags = d.split()
            assert len(flags) == len(s.split()) and set(flags) <= {"0", "1"}, (name, s, d)
            kept = [w for w, f in zip(s.split(), flags) if f == "0"]
            assert words_of(kept) == words_of(t.split()), (name, s, d, t)
    card = json.loads(text(out, "card.json"))
    assert set(card["sets"]) == set(SETS)
    assert card["sets"]["none.train"]["deleted_words"] == 0 and card["sets"]["gen.train"]["deleted_words"] > 0


def test_switchboard_sets_are_asr_like_and_split_by_conversation(script, inputs):
    out = run(script, inputs)
    dev_src = text(out, "swbd.dev.src")
    assert HELD_OUT_FILLER in dev_src and HELD_OUT_FILLER not in text(out, "swbd.train.src")
    for name in ("swbd.train", "swbd.dev", "swbd.test"):
        src = text(out, name + ".src")
        assert src == src.lower() and not re.search(r"[^\w\s'-]|-(\s|$)", src), name  # th- -> th
    assert text(out, "swbd_sides.test.src").count("\n") == 4  # 2 conversations, 2 sides
    sides = text(out, "swbd_sides.dev.src").splitlines()
    assert sides[0].split()[13:16] == ["a", "b", "uh"]  # the partial word b- lost its dash, kept its place
    assert text(out, "swbd_sides.dev.del").split("\n")[0].split()[13:16] == ["1"] * 3


def test_generator_statistics_come_from_the_train_sides_only(script, inputs, monkeypatch):
    seen = []
    real = script.disfluency.statistics
    monkeypatch.setattr(script.disfluency, "statistics", lambda sides: seen.append(sorted(sides)) or real(sides))
    out = run(script, inputs)
    train = [c + s for c in CONVERSATIONS[:7] for s in "AB"]
    assert seen == [train]
    stats = json.loads(text(out, "generator_stats.json"))
    assert stats["words"] == 7 * 34 and HELD_OUT_FILLER not in json.dumps(stats)
    card = json.loads(text(out, "card.json"))
    assert card["generator_statistics"]["train_sides"] == train
    assert not set(train) & set(card["split"]["dev"] + card["split"]["test"])


def test_joint_dev_shares_source_and_masks_with_gen_dev_and_keeps_the_restored_line(script, inputs):
    out = run(script, inputs, "out", 1, "--max_dev_lines", "25")
    read = {name: sw.read_rows(out, name) for name in ("gen.dev", "joint.dev")}
    assert len(read["gen.dev"]) == 25
    assert [(r.src, r.delete) for r in read["gen.dev"]] == [(r.src, r.delete) for r in read["joint.dev"]]
    lines = (DEV_TEXT * 10)[:25]
    assert [r.tgt for r in read["joint.dev"]] == lines
    assert [r.tgt for r in read["gen.dev"]] == [make_source(line) for line in lines]
    assert sum(sum(r.delete) for r in read["gen.dev"]) > 0


def test_gen_and_none_train_take_consecutive_lines_and_none_is_unchanged(script, inputs):
    out = run(script, inputs)
    lines = TRAIN_TEXT * 20
    gen_tgt = text(out, "gen.train.tgt").splitlines()
    none = sw.read_rows(out, "none.train")
    k = len(gen_tgt)
    assert gen_tgt == [make_source(line) for line in lines[:k]]
    assert sum(len(line.split()) for line in lines[:k - 1]) < 700 <= sum(len(line.split()) for line in lines[:k])
    assert [r.tgt for r in none] == lines[k: k + len(none)] and all(" ".join(r.src) == r.tgt for r in none)
    assert not any(any(r.delete) for r in none) and sum(len(r.src) for r in none) >= 300


def test_gen_punc_train_keeps_the_punctuation_lines_and_leaves_the_other_sets_alone(script, inputs):
    plain = run(script, inputs, "plain")
    out = run(script, inputs, "punc", 1, "--punc_fluent", inputs["dev"])
    rows = sw.read_rows(out, "gen_punc.train")
    assert [r.tgt for r in rows] == DEV_TEXT * 10  # the punctuation set's lines, cased and punctuated as they are
    assert sum(sum(r.delete) for r in rows) > 0 and all(" ".join(r.src) == make_source(" ".join(r.src)) for r in rows)
    assert [(r.src, r.delete) for r in rows] != [(r.src, r.delete) for r in sw.read_rows(out, "joint.dev")]
    for name in SETS:  # its own random stream: every other set is as without it
        assert text(out, f"{name}.src") == text(plain, f"{name}.src")
    assert not os.path.exists(os.path.join(plain, "gen_punc.train.src"))
    assert "gen_punc.train" in json.loads(text(out, "card.json"))["sets"]


def test_deterministic_for_a_seed_and_different_for_another(script, inputs):
    a, b, c = run(script, inputs, "a", 1), run(script, inputs, "b", 1), run(script, inputs, "c", 2)
    for name in SETS:
        for ext in ("src", "tgt", "del"):
            assert text(a, f"{name}.{ext}") == text(b, f"{name}.{ext}")
    assert text(a, "gen.train.src") != text(c, "gen.train.src")
    assert text(a, "swbd.train.src") != text(c, "swbd.train.src")


def test_bad_fluent_input_is_an_error_naming_file_and_line(script, inputs, capsys):
    empty, blank = inputs["tmp"] / "empty.tgt", inputs["tmp"] / "blank.tgt"
    empty.write_text("")
    blank.write_text("A line.\n\nAnother line.\n")
    base = ["--out", str(inputs["tmp"] / "x"), "--cache", inputs["cache"], "--fluent_dev", inputs["dev"]]
    assert script.main(base + ["--fluent_train", str(empty)]) == 2
    assert f"{empty}: the file is empty" in capsys.readouterr().err
    assert script.main(base + ["--fluent_train", str(blank)]) == 2
    assert f"{blank}:2:" in capsys.readouterr().err
    assert script.main(base + ["--fluent_train", inputs["train"], "--gen_words", "100000"]) == 2
    assert "no line left for none.train" in capsys.readouterr().err
    assert not os.path.exists(inputs["tmp"] / "x" / "card.json")


def test_write_set_refuses_a_row_whose_target_is_not_source_minus_deleted(tmp_path):
    good = sw.Row(("uh", "we", "we", "went"), (True, True, False, False), "We went.")
    sw.write_set(str(tmp_path), "ok", [good])
    assert sw.read_rows(str(tmp_path), "ok") == [good]
    for bad in (sw.Row(("uh", "we", "went"), (True, False, False), "We we went."),  # a deleted word kept
                sw.Row(("uh", "we", "went"), (False, False, False), "We went."),  # a kept word missing
                sw.Row(("uh", "we", "went"), (True, False), "we went")):  # one flag short
        with pytest.raises(sw.RowError):
            sw.write_set(str(tmp_path), "bad", [bad])
    assert not os.path.exists(tmp_path / "bad.src")


def test_asr_rows_drop_mark_only_tokens_with_their_flags():
    row = sw.asr_row(["uh", "Well,", "--", "th-", "Don't!"], [True, False, True, True, False], "")
    assert row.src == ("uh", "well", "th", "don't") and row.delete == (True, False, True, False)
    rows, _ = sw.generated_rows([(1, "So -- it WORKED, \"right\"?")], STATS, random.Random(0))
    assert "--" not in rows[0].src and rows[0].tgt == "so it worked right"
