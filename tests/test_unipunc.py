"""UniPunc in the tagger: mixed batches (audio and none) give each sample the same output whatever the others
have, the virtual embedding stands in exactly for missing audio, text-only models are unchanged, audio
models save and load, train with cached features, and predict.py takes --audio_list."""
import json
import os
import shutil
import sys

import numpy as np
import pytest
import torch
from safetensors import safe_open

from conftest import ROOT, TINY_ENCODER, tiny_tagger, write_pairs
from gector_punct.audio.waves import parse_spec
from gector_punct.model.audio_windows import AudioLines
from gector_punct.model.batch import Batch
from gector_punct.audio.bootstrapper import text_fractions
from gector_punct.audio.config import AcousticConfig
from gector_punct.model.windows import collate
from gector_punct.model.tagger import Seq2Labels
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.dataset.preprocess import preprocess_files
from gector_punct.training.fine_tuning import adjust
from gector_punct.training.trainer import TrainOptions, train
from gector_punct.model.vocabulary import Vocabulary

WAV = os.path.join(ROOT, "tests", "data", "speech.wav")
SMALL = {"extractor": "fbank", "dim": 16, "attention_dim": 16, "heads": 2, "layers": 2, "dropout": 0.0}
VOCAB = Vocabulary({"labels": ["$KEEP", "$APPEND_,", "$APPEND_.", "$APPEND_?"], "case_tags": ["$KEEP", "$TRANSFORM_CASE_CAPITAL"],
                    "d_tags": ["CORRECT", "INCORRECT"]})


def audio_model(encoder_name, settings=SMALL, seed=0):
    torch.manual_seed(seed)
    model = tiny_tagger(VOCAB, acoustic=AcousticConfig.from_json(settings)).eval()
    for layer in model.bootstrapper.layers:  # zero output projections would make every test trivially pass
        for att in (layer.self_att, layer.cross_att):
            torch.nn.init.normal_(att.out.weight, std=0.2)
    return model


def outputs(model, lines, specs, order=None):
    """Per line, per word label probabilities, running all lines in one padded batch (in ``order``)."""
    words = [line.split() for line in lines]
    windows = model.text_encoder(64).encode_lines(words)
    audio = AudioLines(model.acoustic, specs)
    indices = order or list(range(len(windows)))
    batch = collate([windows[i] for i in indices])
    batch.update(audio.batch(windows, indices, [text_fractions(w) for w in words]))
    with torch.no_grad():
        probs = model(Batch.of(batch))["probs_labels"]
    return {windows[i].line: probs[row, : len(windows[i].word_starts)] for row, i in enumerate(indices)}


def test_mixed_batch_sample_does_not_depend_on_others(encoder_name):
    model = audio_model(encoder_name)
    lines = ["yes we can can we", "so i went to new york last tuesday did you go there too", "hello"]
    wav, part = parse_spec(WAV), parse_spec(f"{WAV}:0:12000")
    base = outputs(model, lines, [wav, None, part])
    # The others gain or lose audio (so the padded audio width changes), or the batch order changes.
    for specs in ([wav, wav, None], [wav, None, None], [wav, part, wav]):
        other = outputs(model, lines, specs)
        assert torch.allclose(other[0], base[0], atol=1e-5)
    alone = outputs(model, lines[:1], [wav])
    assert torch.allclose(alone[0], base[0], atol=1e-5)
    # Audio-free samples: the same with or without audio elsewhere in the batch, and in a batch with none.
    no_audio = outputs(model, lines, [None, None, None])
    assert torch.allclose(no_audio[1], base[1], atol=1e-5)
    assert torch.allclose(outputs(model, lines, [wav, None, wav], order=[2, 1, 0])[1], base[1], atol=1e-5)
    # ... and the audio does matter for the sample that has it.
    assert not torch.allclose(no_audio[0], base[0], atol=1e-3)


def test_fine_tuned_extractor_reads_waves_per_batch(encoder_name):
    from test_audio import TINY_W2V

    model = audio_model(encoder_name, dict(SMALL, extractor="wav2vec2", extractor_config=TINY_W2V, freeze_extractor=False))
    words = [["yes", "we", "can"], ["can", "we"]]
    windows = model.text_encoder(64).encode_lines(words)
    audio = AudioLines(model.acoustic, [parse_spec(WAV), None])
    batch = collate(windows)
    batch.update(audio.batch(windows, [0, 1], [text_fractions(w) for w in words]))
    assert batch["acoustic"].dim() == 2 and audio.computed == 0 and not audio.memory  # raw waves, nothing kept
    model(Batch.of(batch))["logits_labels"][0].sum().backward()
    assert model.acoustic.extractor.model.feature_projection.projection.weight.grad.abs().sum() > 0


def test_virtual_embedding_used_exactly_without_audio(encoder_name):
    model = audio_model(encoder_name)
    seen = []
    hook = model.bootstrapper.register_forward_hook(lambda m, args, out: seen.append(args[2].detach().clone()))
    outputs(model, ["yes we can", "can we", "hello there"], [parse_spec(WAV), None, parse_spec(WAV)])
    hook.remove()
    memory = seen[0]
    virtual = model.acoustic.virtual
    assert torch.equal(memory[1, : len(virtual)], virtual)
    assert not torch.equal(memory[0, : len(virtual)], virtual) and not torch.equal(memory[2, : len(virtual)], virtual)


def test_new_bootstrapper_keeps_text_model_predictions(encoder_name, tmp_path):
    torch.manual_seed(0)
    text_only = tiny_tagger(VOCAB).eval()
    text_only.save(str(tmp_path / "text"))
    config = json.load(open(tmp_path / "text" / "config.json"))
    assert "acoustic" not in config or config["acoustic"] is None
    with safe_open(str(tmp_path / "text" / "model.safetensors"), "pt") as f:
        assert not any(k.startswith(("acoustic.", "bootstrapper.")) for k in f.keys())
    with_audio = Seq2Labels.load(str(tmp_path / "text"))
    adjust(with_audio, acoustic=AcousticConfig.from_json(SMALL))  # zero output projections: the identity
    with_audio.eval()
    lines = ["so i went to new york", "yes we can can we"]
    expected = Punctuator([text_only], device="cpu").probabilities([line.split() for line in lines])
    got = Punctuator([with_audio], device="cpu").probabilities([line.split() for line in lines], [parse_spec(WAV), None])
    assert expected.keys() == got.keys() and all(np.allclose(expected[h], got[h], atol=1e-6) for h in expected)


def test_audio_model_save_load_and_frozen_encoder_not_stored(encoder_name, tmp_path):
    model = audio_model(encoder_name)
    model.save(str(tmp_path / "m"))
    again = Seq2Labels.load(str(tmp_path / "m"))
    lines, specs = ["yes we can can we", "hello there"], [parse_spec(WAV), None]
    a = Punctuator([model], device="cpu").probabilities([line.split() for line in lines], specs)
    b = Punctuator([again], device="cpu").probabilities([line.split() for line in lines], specs)
    assert a.keys() == b.keys() and all(np.array_equal(a[h], b[h]) for h in a)


WHISPER = os.path.join(os.environ.get("GECTOR_PUNCT_ENCODERS", os.path.expanduser("~/.cache/punct-encoders")),
                       "whisper-tiny.en")


@pytest.mark.skipif(not os.path.isdir(WHISPER), reason=f"no Whisper tiny.en encoder at {WHISPER} "
                    "(../shared/tools/encoders/prepare.sh builds it; GECTOR_PUNCT_ENCODERS names its folder)")
def test_frozen_pretrained_speech_encoder_is_not_stored(encoder_name, tmp_path):
    big = audio_model(encoder_name, dict(SMALL, extractor="whisper", extractor_model="whisper-tiny.en"))
    big.save(str(tmp_path / "w"))
    with safe_open(str(tmp_path / "w" / "model.safetensors"), "pt") as f:
        keys = list(f.keys())
    assert any(k.startswith("acoustic.downsample.") for k in keys)
    assert not any(k.startswith("acoustic.extractor.") for k in keys)
    loaded = Seq2Labels.load(str(tmp_path / "w"))
    assert torch.equal(loaded.acoustic.virtual, big.acoustic.virtual)


def test_training_mixed_data_with_cached_features(encoder_name, tmp_path, capsys):
    from conftest import learnable_pairs

    pairs = learnable_pairs(40, 5)
    src, tgt = write_pairs(tmp_path, "mix", pairs)
    shutil.copy(WAV, tmp_path / "a.wav")
    lines, _ = preprocess_files(src, tgt)
    with open(tmp_path / "mix.tagged", "w") as f:
        f.writelines(line + "\n" for line in lines)
    (tmp_path / "mix.tagged.audio").write_text("".join("a.wav\n" if i % 2 else "\n" for i in range(len(pairs))))
    options = TrainOptions(train_set=str(tmp_path / "mix.tagged"), dev_set=str(tmp_path / "mix.tagged"),
                           model_dir=str(tmp_path / "run"), transformer_model=encoder_name, encoder_config=TINY_ENCODER,
                           acoustic=SMALL, audio_cache=str(tmp_path / "cache"), n_epoch=2, lr=3e-3, batch_size=8,
                           max_len=64, progress=False)
    train(options)
    cached = [f for _, _, files in os.walk(tmp_path / "cache") for f in files if f.endswith(".safetensors")]
    assert len(cached) == 1  # one audio file, extracted once for both epochs and both data sets
    records = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert len(records) == 2 and records[1]["audio_extracted"] == 0
    model = Seq2Labels.load(str(tmp_path / "run"))
    assert model.acoustic is not None and model.config.acoustic.dim == 16
    # predict.py with an audio list; a bad audio line stops before any output, or is skipped.
    sys.path.insert(0, ROOT)
    import predict

    (tmp_path / "in.txt").write_text("alpha beta omega\ntime paris\n")
    (tmp_path / "in.list").write_text("a.wav\n\n")
    (tmp_path / "bad.list").write_text("\nnope.wav\n")
    args = ["--model_path", str(tmp_path / "run"), "--input_file", str(tmp_path / "in.txt"), "--output_file",
            str(tmp_path / "out.txt"), "--device", "cpu"]
    assert predict.main(args + ["--audio_list", str(tmp_path / "in.list")]) == 0
    assert len((tmp_path / "out.txt").read_text().splitlines()) == 2
    os.unlink(tmp_path / "out.txt")
    assert predict.main(args + ["--audio_list", str(tmp_path / "bad.list")]) == 2
    err = capsys.readouterr().err
    assert "bad.list:2" in err and "nope.wav" in err and not (tmp_path / "out.txt").exists()
    assert predict.main(args + ["--audio_list", str(tmp_path / "bad.list"), "--skip_bad"]) == 0
    assert "nope.wav" in capsys.readouterr().err and len((tmp_path / "out.txt").read_text().splitlines()) == 2


def test_shipped_audio_model_listens_to_the_example():
    from gector_punct.audio.waves import read_audio_list

    folder = os.path.join(ROOT, "models", "audio_en")
    assert sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder) for f in files) < 10 * 2**20
    punctuator = Punctuator.load(folder, device="cpu")
    examples = os.path.join(ROOT, "examples", "audio")
    lines = open(os.path.join(examples, "talk.txt"), encoding="utf-8").read().splitlines()
    audio = read_audio_list(os.path.join(examples, "talk.list"), len(lines))
    heard, read = punctuator.predict(lines, audio), punctuator.predict(lines)
    assert "ran over, so I missed my train. I'll be home" in heard[1]  # the pauses decide
    assert "ran over. So I missed my train, I'll" in read[1]
    assert heard[2] == read[2]  # no audio for the third line
    assert [line.text for line in punctuator.predict_scored(lines, audio)] == heard  # the words' confidence hears too


def test_predict_with_a_bad_audio_file_names_it_or_skips_it(tmp_path):
    import subprocess

    (tmp_path / "in.txt").write_text("yes we can\ncan we\n")
    (tmp_path / "a.list").write_text(f"{WAV}\ngone.wav\n")
    command = [sys.executable, os.path.join(ROOT, "predict.py"), "--model_path", os.path.join(ROOT, "models", "audio_en"),
               "--input_file", str(tmp_path / "in.txt"), "--audio_list", str(tmp_path / "a.list"),
               "--output_file", str(tmp_path / "out.txt"), "--device", "cpu"]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and "a.list:2" in done.stderr and "gone.wav" in done.stderr
    assert not (tmp_path / "out.txt").exists()  # nothing written before the check
    done = subprocess.run(command + ["--skip_bad"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and "a.list:2" in done.stderr
    assert len((tmp_path / "out.txt").read_text().splitlines()) == 2
