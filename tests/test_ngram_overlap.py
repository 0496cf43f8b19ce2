"""utils/report/ngram_overlap.py: the fraction of a dev file's word n-grams that occur in the training text."""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("ngram_overlap", os.path.join(ROOT, "utils", "report", "ngram_overlap.py"))
ngram_overlap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ngram_overlap)


def test_overlap_per_dev_file_ignores_case_and_marks_and_spans_lines(tmp_path, capsys):
    train = tmp_path / "train.tgt"
    train.write_text("So I went to New York,\nlast Tuesday. Did you?\nUnrelated words here.\n", encoding="utf-8")
    seen = tmp_path / "seen.tgt"  # 6 words -> four 3-grams, all in the training text (n-grams run across line ends)
    seen.write_text("so i went\nto new york\n", encoding="utf-8")
    half = tmp_path / "half.tgt"  # "york last tuesday" is in, "last tuesday never" and "tuesday never again" are not
    half.write_text("York. Last Tuesday never again!\n", encoding="utf-8")
    result = ngram_overlap.overlap([str(train)], [str(seen), str(half)], n=3)
    assert result[str(seen)] == {"ngrams": 4, "in_train": 4, "fraction": 1.0}
    assert result[str(half)]["ngrams"] == 3 and result[str(half)]["in_train"] == 1
    assert ngram_overlap.main(["--train", str(train), "--dev", str(half), "-n", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[str(half)]["fraction"] == 1 / 3
