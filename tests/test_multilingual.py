"""Many languages: multilingual-e5-small built from its pip packages (a real encoder, not noise), a tagger on
an XLM-R-architecture encoder (the path hub names such as xlm-roberta-base take) that learns marks after
Chinese characters and writes them full-width with no spaces, and the shipped models/multilingual."""
import os
import random
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, write_tagged
from gector_punct.encoders.registry import resolve_encoder
from gector_punct.model.windows import load_tokenizer
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.text.tags import make_source
from gector_punct.model.vocabulary import DETECT_HEAD, PUNCT_HEAD

TINY_XLMR = {"model_type": "xlm-roberta", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 64, "vocab_size": 250002, "max_position_embeddings": 130, "pad_token_id": 1}
CHARS = "我你他们好吗的是在有天人大中国学生今明来去说看"


@pytest.fixture(scope="session")
def e5_path() -> str:
    return resolve_encoder("multilingual-e5-small")


def test_converted_e5_is_the_real_encoder(e5_path):
    """e5 embeds a sentence and its translation close together, an unrelated sentence far: random or
    mis-read weights would not."""
    from transformers import AutoModel

    tokenizer, model = load_tokenizer(e5_path), AutoModel.from_pretrained(e5_path).eval()
    texts = ["query: the weather is nice today", "query: das Wetter ist heute schön", "query: 今天天气很好",
             "query: the stock market fell sharply"]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    emb = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)
    sim = emb @ emb.T
    assert min(sim[0, 1], sim[0, 2]) > sim[0, 3] + 0.05, sim


def chinese_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    """Learnable Chinese: a full-width comma after 好, a question mark after 吗, a full stop after 们."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        out = ""
        for ch in (rng.choice(CHARS) for _ in range(rng.randint(8, 30))):
            out += ch + {"好": "，", "吗": "？", "们": "。"}.get(ch, "")
        pairs.append((make_source(out), out))
    return pairs


@pytest.fixture(scope="module")
def xlmr_tagger(e5_path, tmp_path_factory):
    from gector_punct.training.trainer import TrainOptions, train

    work = tmp_path_factory.mktemp("zh")
    paths = {name: write_tagged(work, name, chinese_pairs(n, seed)) for name, n, seed in (("train", 300, 1), ("dev", 40, 2))}
    model_dir = str(work / "model")
    train(TrainOptions(train_set=paths["train"], dev_set=paths["dev"], model_dir=model_dir, transformer_model=e5_path,
                       encoder_config=TINY_XLMR, n_epoch=5, lr=3e-3, batch_size=16, max_len=64, patience=5,
                       progress=False, seed=3))
    return Punctuator.load(model_dir, device="cpu", fragments=True)


def test_marks_land_after_characters_full_width_without_spaces(xlmr_tagger):
    pairs = chinese_pairs(30, 5)
    out = xlmr_tagger.predict([s for s, _ in pairs])
    assert all(" " not in line for line in out)
    assert all(not any(mark in line for mark in ",.?") for line in out)
    right = sum(o == t for o, (_, t) in zip(out, pairs))
    assert right >= 24, list(zip(out, [t for _, t in pairs]))[:5]
    # A Latin word inside Chinese text stays one unit, spaced as the input had it, but no space after a
    # full-width mark (it holds its own).
    (out,) = xlmr_tagger.predict(["我们用 iPhone 好"])
    assert "".join(ch for ch in out if ch not in "，。？") == ("我们用 iPhone好" if "iPhone，" in out else "我们用 iPhone 好")
    assert out.startswith("我们用 iPhone") and "， " not in out, out


def test_a_run_of_characters_is_read_as_the_encoder_pieces_it_makes(e5_path):
    """``北京`` is one piece of e5's vocabulary: 京 reads it, 北 shares it and is owned by no window (no mark
    inside a piece), and the window holds the pieces the tokenizer makes of the unsplit text, without the
    lone word-boundary piece."""
    from gector_punct.model.windows import TextEncoder

    encoder = TextEncoder(load_tokenizer(e5_path), 64, 5)
    words = list("我想去北京")
    (pieces,) = encoder.word_pieces([words])
    tokens = [encoder.tokenizer.convert_ids_to_tokens(p) for p in pieces]
    assert tokens[3:] == [[], ["北京"]], tokens
    assert all(t[0] != "\u2581" for t in tokens if t), tokens
    (window,) = encoder.windows_for(0, pieces)
    natural = encoder.tokenizer("我想去北京", add_special_tokens=False)["input_ids"]
    assert [i for i in window.input_ids if i not in encoder.prefix + encoder.suffix] == [
        i for i in natural if i != encoder.boundary_id]
    assert window.word_starts[3] == window.word_starts[4] and window.owned == [bool(p) for p in pieces]


def test_a_character_inside_a_piece_gets_no_mark(xlmr_tagger):
    """No window owns 北 of 北京: it decodes as it is, whatever the model would say of its piece."""
    words = list("我们去北京好")
    probabilities = xlmr_tagger.probabilities([words])
    labels, detect = probabilities[PUNCT_HEAD.name], probabilities[DETECT_HEAD.name]
    keep = xlmr_tagger.names[PUNCT_HEAD.name].index("$KEEP")
    assert labels[3, keep] == 1.0 and labels[3].sum() == 1.0
    assert detect[3, xlmr_tagger.names[DETECT_HEAD.name].index("CORRECT")] == 1.0


MULTI = os.path.join(ROOT, "models", "multilingual")


def test_shipped_multilingual_model_is_small_and_restores_six_languages(tmp_path):
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(MULTI) for f in files)
    assert size <= 10 * 2 ** 20, size
    lines = ["首先我要用最快的速度为大家演示一些新技术的基础研究成果", "bonjour à tous merci d'être venus ce soir",
             "ich weiß nicht ob er heute kommt", "dónde está la estación de tren", "ciao come stai oggi",
             "so i went to new york last tuesday did you", "ok how did we get on to putin"]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    subprocess.run([sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", MULTI, "--input_file", str(src),
                    "--output_file", str(out)], check=True, capture_output=True)
    restored = out.read_text(encoding="utf-8").splitlines()
    assert len(restored) == len(lines)
    assert " " not in restored[0] and restored[0][-1] in "。？！，" and "，" in restored[0]
    assert restored[3].startswith("¿") and restored[3].endswith("?"), restored[3]
    assert "I went to New York" in restored[5], restored[5]
    assert "?" in restored[6] and "¿" not in restored[6], restored[6]  # ¿ is Spanish's: rarely half-likely elsewhere
    for line in restored[1:5]:  # a whole utterance: a capital first, a sentence mark last
        assert next(ch for ch in line if ch.isalpha()).isupper() and line[-1] in ".?!", line
