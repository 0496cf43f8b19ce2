"""utils/report/mark_rates.py: marks per 1,000 words, and the label colons (after a sentence's first or second
word) that issue 49 traces to the Italian training text."""
import mark_rates  # utils/report/, importable by its name (conftest)


def test_rates_count_full_width_marks_as_their_ascii_forms():
    per_thousand, units = mark_rates.rates(["Hello, world.", "你好，世界。"])
    assert units == 6 and per_thousand[","] == per_thousand["."] == 1000 * 2 / 6


def test_a_colon_after_a_sentences_first_or_second_word_is_a_labels():
    lines = ["Mi: chiamo Marco.", "Memoria: La probabilità. Dunque: niente.", "Ecco la lista che ti ho detto: pane."]
    assert mark_rates.early_colons(lines) == 1000 * 3 / 16  # 16 words, the last colon a sentence's seventh
