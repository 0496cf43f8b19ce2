"""utils/prepare_default_data.py: cleaning of the default model's training text (no download: a fake
fortunes package folder)."""
import importlib.util
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("prepare_default_data", os.path.join(ROOT, "utils", "prepare_default_data.py"))
prepare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare)

FORTUNES = """A bore is a man who talks so much about himself that you can't talk about
yourself.
\t\t-- Anonymous
%
Roses are red,
Violets are blue,
Sugar is sweet,
And so are you.
%
Q: Why did the chicken cross the road?
A: To get to the other side.
%
while (1) { fork(); }
%
too short.
%
A bore is a man who talks so much about himself that you can't talk about
yourself.
%
"""


def test_fortunes_keep_prose_and_drop_verse_code_and_attributions(tmp_path):
    folder = tmp_path / "usr" / "share" / "games" / "fortunes"
    folder.mkdir(parents=True)
    for name in prepare.FORTUNE_FILES:
        (folder / name).write_text(FORTUNES if name == "people" else "", encoding="utf-8")
    docs = prepare.read_fortunes(str(tmp_path))
    assert docs == ["A bore is a man who talks so much about himself that you can't talk about yourself. "
                    "Why did the chicken cross the road? To get to the other side."]


def test_clean_text_becomes_words_and_lines():
    words = prepare.words_of(prepare.clean("SMITH: Well \u2014 thank you (Applause.) all! It\u2019s fine."))
    assert words == ["Well,", "thank", "you", "all!", "It's", "fine."]
    lines = prepare.cut_lines(words * 10, random.Random(1), 3, 7)
    assert " ".join(lines).split() == words * 10 and all(3 <= len(ln.split()) <= 7 for ln in lines[:-1])
