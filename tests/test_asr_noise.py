"""ASR-like noise (gector_punct.dataset.asr_noise): a noised copy's tags write its noised target, the copy depends
on the line and the settings alone, the edits come at the rates asked, a deletion hands its marks and its
capital on as an editor would, and the trainer and the soft-label writer make the same copies."""
import json
import os
import random
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from gector_punct.dataset.asr_noise import (INSERTED, NOISED, AsrNoise, confusions, noised_copy, noised_forms,
                                            target_forms)
from gector_punct.dataset.reader import DatasetReader, Instance, given_contexts
from gector_punct.model.vocabulary import HEADS
from gector_punct.text.files import InputError
from gector_punct.text.sentences import ends_sentence_after
from gector_punct.text.tags import CASE_UNKNOWN, apply_tags, make_source, tags_from_pair
from gector_punct.text.units import join_units, split_edges, split_units, starts_lower
from conftest import ROOT, learnable_pairs, write_tagged

NOUNS = "time people house water table music river chair window garden coffee letter morning winter".split()
NAMES = ["Paris", "London", "Maria", "NASA"]
WORDS = NOUNS + "the a and to of we they you went saw there their know no right write is it".split()
MARKS = ["", "", "", "", ",", ".", "?", "!", ";"]
LOUD = AsrNoise(asr_noise_share=1.0, asr_substitution=0.3, asr_deletion=0.2, asr_insertion=0.2)


def instance(text: str, cased: bool = True) -> Instance:
    words = split_units(make_source(text))
    return Instance(words, tags_from_pair(words, text, cased), origin="x:1")


def random_line(rng: random.Random) -> str:
    """A written line: sentences of words, names and acronyms, ended by . ? or !, commas inside."""
    out, capital = [], True
    for k in range(rng.randint(1, 16)):
        word = rng.choice(NAMES) if rng.random() < 0.1 else rng.choice(WORDS)
        word = "U.S." if rng.random() < 0.03 else word
        word = word[:1].upper() + word[1:] if capital else word
        mark = rng.choice(MARKS)
        out.append(word + mark)
        capital = ends_sentence_after(word + mark)
    return " ".join(out)


def lines(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [random_line(rng) for _ in range(n)]


def test_a_noised_copy_s_tags_write_its_noised_target():
    table = confusions()
    made = unknown = 0
    for k, text in enumerate(lines(600)):
        cased = k % 3 != 0  # every third line case-unknown
        line = instance(text if cased else text.lower(), cased)
        copy = noised_copy(line, LOUD, table)
        target = join_units(noised_forms(target_forms(line), LOUD, table))
        if copy is None:
            assert target == apply_tags(line.words, line.tags)  # no copy only where nothing changed
            continue
        made += 1
        assert apply_tags(copy.words, copy.tags) == target and copy.origin == "x:1" + NOISED
        assert copy.words == split_units(make_source(target))
        if not cased:
            unknown += 1
            assert all(t.case == CASE_UNKNOWN for t in copy.tags) and target == target.lower()
            continue
        written = target.split()
        for before, word in zip(written, written[1:]):  # an editor's text: a capital after each sentence end
            assert not (ends_sentence_after(before, word) and starts_lower(word)), target
        assert not starts_lower(written[0]) or starts_lower(text.split()[0])
    assert made > 500 and unknown > 150


def test_the_copy_depends_on_the_line_and_the_settings_alone():
    texts = lines(200, seed=3)
    half = replace(LOUD, asr_noise_share=0.5)
    first = DatasetReader.with_asr_noise([instance(t) for t in texts], half)
    shuffled = texts[100:] + ["Another line, not in the first file."] + texts[:100]
    random.Random(1).shuffle(shuffled)
    second = DatasetReader.with_asr_noise([instance(t) for t in shuffled], half)
    copies = {(tuple(c.words), tuple(map(str, c.tags))) for c in first[len(texts):]}
    assert 50 < len(copies) < 150  # about half the lines
    assert copies <= {(tuple(c.words), tuple(map(str, c.tags))) for c in second[len(shuffled):]}
    share = DatasetReader.with_asr_noise([instance(t) for t in texts[:60]], half)
    assert {(tuple(c.words), tuple(map(str, c.tags))) for c in share[60:]} <= copies  # a share: its own copies
    reseeded = DatasetReader.with_asr_noise([instance(t) for t in texts], replace(half, asr_noise_seed=2))
    assert {(tuple(c.words), tuple(map(str, c.tags))) for c in reseeded[len(texts):]} != copies
    off = [instance(t) for t in texts]
    assert DatasetReader.with_asr_noise(off, AsrNoise()) is off  # off: the same list, nothing added


def test_the_edits_come_at_the_rates_asked():
    """Bare words, each with one made-up sound-alike: what a word became says which edit it took."""
    rng = random.Random(5)
    vocabulary = sorted({"".join(rng.choice("bcdfgklmnprst") + rng.choice("eiou") for _ in range(3))
                         for _ in range(300)})
    table = {w: (w + "x",) for w in vocabulary}
    settings = AsrNoise(asr_noise_share=1.0, asr_substitution=0.1, asr_deletion=0.05, asr_insertion=0.05)
    words = gaps = substituted = inserted = deleted = 0
    for _ in range(400):
        line = [rng.choice(vocabulary) for _ in range(50)]
        out = noised_forms(line, settings, table)
        added = sum(w in INSERTED for w in out)
        words, gaps = words + len(line), gaps + len(line) - 1
        substituted += sum(w.endswith("x") for w in out)
        inserted += added
        deleted += len(line) - (len(out) - added)
    assert 0.085 * words < substituted < 0.115 * words
    assert 0.04 * words < deleted < 0.06 * words
    assert 0.04 * gaps < inserted < 0.06 * gaps
    share = sum(noised_copy(instance(f"{w} {w}x, {w}."), AsrNoise(asr_noise_share=0.3, asr_substitution=1.0),
                            table) is not None for w in vocabulary)
    assert 0.2 * len(vocabulary) < share < 0.4 * len(vocabulary)


def deleted_only(text: str, gone: int, cased: bool = True) -> str:
    """The noised text of the first seed whose edits delete word ``gone`` of ``text`` and nothing else."""
    target = text.split()
    for seed in range(1, 5000):
        settings = AsrNoise(asr_noise_share=1.0, asr_substitution=0.0, asr_deletion=0.3, asr_insertion=0.0,
                            asr_noise_seed=seed)
        out = noised_forms(target, settings, {})
        if [split_edges(w)[1].lower() for w in out] == [split_edges(w)[1].lower() for k, w in enumerate(target)
                                                         if k != gone]:
            line = instance(text, cased)
            copy = noised_copy(line, settings, {})
            assert apply_tags(copy.words, copy.tags) == join_units(out)
            return join_units(out)
    raise AssertionError(f"no seed deletes word {gone} alone")


def test_a_deleted_word_hands_on_its_marks_and_its_capital():
    assert deleted_only("We went home. Then it rained.", 2) == "We went. Then it rained."
    assert deleted_only("We went home, today. Then it rained.", 3) == "We went home. Then it rained."
    assert deleted_only("We went home? Today. Then it rained.", 3) == "We went home? Then it rained."
    assert deleted_only("We went home. Then it rained.", 3) == "We went home. It rained."
    assert deleted_only("Well, we went home.", 0) == "We went home."
    assert deleted_only("well, we went home.", 0, cased=False) == "we went home."
    assert deleted_only("We saw Maria today.", 2) == "We saw today."
    kept = {"Home.": ["home"], "We met Mr. Smith.": ["mr", "smith"],  # what never goes (lower-cased cores)
            "They went to the U.S. Then we left.": ["u.s", "then"], "We said “no” then.": ["no"],
            "We said “no, not now” today.": ["no", "now"]}
    for text, stay in kept.items():
        for seed in range(1, 100):
            out = noised_forms(target_forms(instance(text)), AsrNoise(asr_deletion=1.0, asr_substitution=0.0,
                                                                      asr_insertion=0.0, asr_noise_seed=seed), {})
            cores = [split_edges(w)[1].lower() for w in out]
            assert [c for c in cores if c in stay] == stay, (text, out)


def test_lines_that_are_no_asr_source_get_no_copy():
    marked = Instance(["we", "went,", "home"], tags_from_pair(["we", "went,", "home"], "We went, home."))
    assert target_forms(marked) is None and noised_copy(marked, LOUD) is None
    with_deletion = instance("uh we went home.")
    with_deletion.tags[0] = type(with_deletion.tags[0])(deletes=True)
    assert noised_copy(with_deletion, LOUD) is None


def test_the_trainer_and_the_labeller_make_the_same_copies(tmp_path, monkeypatch):
    from gector_punct.training import soft_labels
    from gector_punct.training.options import TrainOptions
    from gector_punct.training.trainer import read_data

    train = write_tagged(tmp_path, "train", learnable_pairs(90, 4))
    dev = write_tagged(tmp_path, "dev", learnable_pairs(20, 5))
    noise = {"asr_noise_share": 0.5, "asr_substitution": 0.2}
    options = TrainOptions(train_set=train, dev_set=dev, model_dir=str(tmp_path / "m"), **noise)
    _, instances, dev_sets = read_data(options)
    copies = instances[90:]
    assert 25 < len(copies) < 65 and all(c.origin.endswith(NOISED) for c in copies)
    assert not any(i.origin.endswith(NOISED) for i in instances[:90])
    assert [len(v) for v in dev_sets.values()] == [20]  # dev lines are never noised

    class Teacher:
        names = {h.name: ["$KEEP"] for h in HEADS}

    labelled = []

    def shard_arrays(punctuator, part, k):  # what the labeller would label, recorded; the arrays' word count
        labelled.extend(part)
        return {"word_offsets": np.array([0, sum(len(i.words) for i in part)])}
    monkeypatch.setattr(soft_labels, "shard_arrays", shard_arrays)
    soft_labels.label_file(Teacher(), train, str(tmp_path / "t"), "stub", shard_lines=40, log=str,
                           noise=options.asr_noise())
    key = lambda i: soft_labels.line_key(i.words, given_contexts(i.words, i.tags))  # noqa: E731
    assert sorted(key(i) for i in labelled) == sorted(key(i) for i in copies)  # the copies alone, all of them
    manifest = json.load(open(tmp_path / "t" / "train.tagged.soft" / "manifest.json"))
    assert manifest["asr_noise"]["share"] == 0.5 and len(manifest["asr_noise"]["confusions_sha256"]) == 64
    with pytest.raises(InputError, match="asr_noise differ"):
        soft_labels.label_file(Teacher(), train, str(tmp_path / "t"), "stub", shard_lines=40, log=str,
                               noise=AsrNoise(asr_noise_share=0.5))
    labelled.clear()
    soft_labels.label_file(Teacher(), train, str(tmp_path / "off"), "stub", shard_lines=40, log=str, noise=AsrNoise())
    assert len(labelled) == 90  # noise off: the file's lines alone, and a manifest as before noise existed
    assert "asr_noise" not in json.load(open(tmp_path / "off" / "train.tagged.soft" / "manifest.json"))


def run_noise_data(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(ROOT, "utils", "data", "noise_data.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_noise_data_noises_every_line_and_refuses_a_bad_file(tmp_path):
    dev = write_tagged(tmp_path, "dev", learnable_pairs(30, 6), tasks="punc")
    out = str(tmp_path / "dev_asr.tagged")
    run = run_noise_data("--input", dev, "--output", out, "--asr_substitution", "0.3")
    assert run.returncode == 0, run.stderr
    noised = DatasetReader().read(out)
    original = DatasetReader().read(dev)
    settings = AsrNoise(asr_noise_share=1.0, asr_substitution=0.3)
    expected = [noised_copy(i, settings) or i for i in original]
    assert [(n.words, n.tags) for n in noised] == [(e.words, e.tags) for e in expected]
    assert sum(n.words != o.words for n, o in zip(noised, original)) > 20
    assert open(out + ".tasks").read() == "punc\n"
    bad = tmp_path / "bad.tagged"
    bad.write_text(open(dev).readline() + "hello\n")
    run = run_noise_data("--input", str(bad), "--output", str(tmp_path / "o.tagged"))
    assert run.returncode == 2 and run.stderr.startswith("error:") and len(run.stderr.splitlines()) == 1
    assert f"{bad}:2" in run.stderr and not os.path.exists(tmp_path / "o.tagged")
