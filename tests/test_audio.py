"""UniPunc's audio side: reading and bad files, audio lists and JSON lines, the feature cache, the three
feature extractors on a real (espeak-ng) wav, the down-sampler's masking, the virtual embedding and the
coordinate bootstrapper."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import ROOT, write_tagged
from gector_punct.audio.acoustic import AcousticAssistant, DownSampler, mask_of, resolve_speech_encoder
from gector_punct.audio.config import AcousticConfig
from gector_punct.audio.waves import AudioError, AudioSpec, FeatureCache, check_audio, load_audio, parse_spec, read_audio_list, write_wav
from gector_punct.model.audio_windows import AudioLines
from gector_punct.audio.bootstrapper import CoordinateBootstrapper, text_fractions
from gector_punct.text.files import InputError, atomic_write
from gector_punct.dataset.reader import DatasetReader

WAV = os.path.join(ROOT, "tests", "data", "speech.wav")  # espeak-ng en-us, "Yes, we can. Can we?", 16 kHz
# A small random wav2vec 2.0 (no weights are to be had offline): 2 conv layers of stride 10 and 8 -> 200 frames/s.
TINY_W2V = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
            "conv_dim": [32, 32], "conv_stride": [10, 8], "conv_kernel": [10, 8], "num_conv_pos_embeddings": 16,
            "num_conv_pos_embedding_groups": 2, "feat_extract_norm": "layer"}
WHISPER = resolve_speech_encoder("whisper-tiny.en")


def test_read_and_resample_real_wav(tmp_path):
    wave = load_audio(WAV)
    assert wave.dtype == np.float32 and 1.5 < len(wave) / 16000 < 2.5 and np.abs(wave).max() > 0.05
    import soundfile
    import soxr

    soundfile.write(tmp_path / "st.wav", np.stack([soxr.resample(wave, 16000, 22050)] * 2, 1), 22050)
    again = load_audio(str(tmp_path / "st.wav"))  # stereo 22.05 kHz -> mono 16 kHz
    assert abs(len(again) - len(wave)) <= 2
    part = load_audio(f"{WAV}:1600:8000")  # path:offset:frames
    assert len(part) == 8000 and np.allclose(part, wave[1600:9600], atol=1e-4)
    assert parse_spec("a/b.wav:10:20") == AudioSpec("a/b.wav", 10, 20)
    assert parse_spec("b.wav", "/x") == AudioSpec("/x/b.wav")


def test_bad_audio_files_name_the_file(tmp_path):
    (tmp_path / "text.wav").write_text("not audio at all")
    write_wav(str(tmp_path / "empty.wav"), np.zeros(0, dtype=np.float32))
    for name, words in (("missing.wav", "not found"), ("text.wav", "cannot read"), ("empty.wav", "no audio")):
        with pytest.raises(AudioError, match=words) as err:
            load_audio(str(tmp_path / name))
        assert name in str(err.value)
        with pytest.raises(AudioError, match=words):
            check_audio(parse_spec(str(tmp_path / name)))
    with pytest.raises(AudioError, match="no audio"):
        check_audio(parse_spec(f"{WAV}:10000000:100"))
    # In a list: the list's file and line are named; skip_bad carries on without audio.
    (tmp_path / "list").write_text(f"{WAV}\n\nempty.wav\n")
    specs = read_audio_list(str(tmp_path / "list"), 3)
    assert specs[1] is None and specs[2].path == str(tmp_path / "empty.wav")
    assistant = AcousticAssistant(AcousticConfig(extractor="fbank"))
    with pytest.raises(AudioError, match=r"list:3: .*empty.wav"):
        AudioLines(assistant, specs, [f"{tmp_path / 'list'}:{i + 1}" for i in range(3)]).prepare([0, 1, 2])
    lines = AudioLines(assistant, specs, skip_bad=True)
    lines.prepare([0, 1, 2])
    assert lines.skipped == 1 and [lines.has(i) for i in range(3)] == [True, False, False]
    with pytest.raises(InputError, match="has 3 lines but the text has 2"):
        read_audio_list(str(tmp_path / "list"), 2)


def test_feature_cache_is_reused_and_keyed(tmp_path):
    assistant = AcousticAssistant(AcousticConfig(extractor="fbank"))
    wav = tmp_path / "a.wav"
    shutil.copy(WAV, wav)
    spec = parse_spec(str(wav))
    first = AudioLines(assistant, [spec], cache_dir=str(tmp_path / "cache"))
    first.prepare([0])
    assert first.computed == 1
    again = AudioLines(assistant, [spec], cache_dir=str(tmp_path / "cache"))  # a second epoch / run
    again.prepare([0])
    assert again.computed == 0 and torch.allclose(again.inputs(0), first.inputs(0), atol=1e-2)
    cache = FeatureCache(str(tmp_path / "cache"))
    assert cache.get(spec, "another-extractor") is None
    assert cache.get(parse_spec(f"{wav}:0:8000"), assistant.extractor.extractor_id) is None
    os.utime(wav, ns=(1, 1))  # the file changed: the old entry no longer matches
    assert cache.get(spec, assistant.extractor.extractor_id) is None


@pytest.mark.parametrize("settings", [
    {"extractor": "fbank"},
    {"extractor": "wav2vec2", "extractor_config": TINY_W2V},
    pytest.param({"extractor": "whisper", "extractor_model": "whisper-tiny.en"}, marks=pytest.mark.skipif(
        not os.path.isdir(WHISPER), reason="no whisper-tiny.en folder (prepare.sh; $GECTOR_PUNCT_ENCODERS)")),
])
def test_extractors_on_a_real_wav(settings):
    assistant = AcousticAssistant(AcousticConfig.from_json(settings))
    wave = load_audio(WAV)
    full, short = assistant.extract([wave, wave[:16000]])
    rate = assistant.extractor.frame_rate
    assert full.shape[1] == assistant.extractor.dim and abs(len(full) - len(wave) / 16000 * rate) <= 2
    assert abs(len(short) - rate) <= 2
    if settings["extractor"] != "wav2vec2":  # whisper and fbank: each sample on its own, padding changes nothing
        alone, = assistant.extract([wave[:16000]])
        assert torch.allclose(alone, short, atol=1e-4)
    memory, mask, _ = assistant(torch.nn.utils.rnn.pad_sequence([full, short], batch_first=True),
                                torch.tensor([len(full), len(short)]), torch.tensor([True, True]))
    assert memory.shape[0] == 2 and mask.sum(1).tolist()[0] > mask.sum(1).tolist()[1]


def test_fine_tuned_extractor_takes_waves_and_trains():
    settings = AcousticConfig(extractor="wav2vec2", extractor_config=TINY_W2V, freeze_extractor=False)
    assistant = AcousticAssistant(settings)
    assert assistant.wants_waves
    wave = torch.from_numpy(load_audio(WAV))
    memory, mask, _ = assistant(torch.stack([wave, wave]), torch.tensor([len(wave), 8000]), torch.tensor([True, True]))
    memory[mask].sum().backward()
    assert assistant.extractor.model.feature_projection.projection.weight.grad.abs().sum() > 0


def test_down_sampler_ignores_padding_and_counts_lengths():
    torch.manual_seed(0)
    down = DownSampler(8, 16, kernel=15, strides=(5, 5)).eval()
    x = torch.randn(1, 230, 8)
    alone, n_alone = down(x, torch.tensor([230]))
    assert n_alone.tolist() == [10] and alone.shape[1] == 10  # ceil(ceil(230 / 5) / 5)
    garbage = torch.cat([x, torch.randn(1, 400, 8) * 100], 1)  # padding full of noise must not leak in
    padded, n_padded = down(garbage, torch.tensor([230]))
    assert n_padded.tolist() == [10] and torch.allclose(padded[:, :10], alone, atol=1e-5)
    assert mask_of(torch.tensor([2, 0]), 3).tolist() == [[True, True, False], [False, False, False]]


def test_virtual_embedding_exactly_for_audio_free_samples():
    assistant = AcousticAssistant(AcousticConfig(extractor="fbank", dim=16)).eval()
    feats = torch.randn(3, 300, 80)
    has = torch.tensor([True, False, True])
    memory, mask, positions = assistant(feats, torch.tensor([300, 1, 120]), has)
    assert torch.equal(memory[1, :5], assistant.virtual) and mask[1].tolist() == [True] * 5 + [False] * (mask.shape[1] - 5)
    assert not any(torch.equal(memory[i, :5], assistant.virtual) for i in (0, 2))
    assert mask[0].sum() == 12 and mask[2].sum() == 5  # 300 -> 60 -> 12 frames; 120 -> 24 -> 5
    none, none_mask, _ = assistant(None, None, torch.tensor([False, False]))  # a batch with no audio at all
    assert torch.equal(none[0], assistant.virtual) and none_mask.all()


def test_bootstrapper_starts_as_identity_and_masks_padding():
    torch.manual_seed(0)
    boot = CoordinateBootstrapper(24, 16, layers=2, heads=2, attention_dim=16).eval()
    text, memory = torch.randn(2, 7, 24), torch.randn(2, 9, 16)
    text_mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3]).bool()
    mem_mask = torch.tensor([[1] * 9, [1] * 5 + [0] * 4]).bool()
    assert torch.equal(boot(text, text_mask, memory, mem_mask), text)  # zero output projections
    for p in boot.parameters():
        torch.nn.init.normal_(p, std=0.3)
    pos_t, pos_m = torch.rand(2, 7), torch.rand(2, 9)
    out = boot(text, text_mask, memory, mem_mask, pos_t, pos_m)
    text2, memory2 = text.clone(), memory.clone()
    text2[1, 4:], memory2[1, 5:] = 1e3, -1e3  # padded text and padded memory change nothing
    out2 = boot(text2, text_mask, memory2, mem_mask, pos_t, pos_m)
    assert torch.allclose(out[1, :4], out2[1, :4], atol=1e-5)
    assert text_fractions(["ab", "c"]) == [0.6, 1.0]


def test_audio_list_and_jsonl_readers(tmp_path):
    src, tgt = tmp_path / "t.src", tmp_path / "t.tgt"
    src.write_text("yes we can\n\ncan we\n")
    tgt.write_text("Yes, we can.\n\nCan we?\n")
    (tmp_path / "a.list").write_text(f"{WAV}\n\n\n")
    script = os.path.join(ROOT, "utils", "preprocess_data.py")
    run = subprocess.run([sys.executable, script, "-s", src, "-t", tgt, "-o", tmp_path / "t.tagged", "-a",
                          tmp_path / "a.list"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    instances = DatasetReader().read(str(tmp_path / "t.tagged"))
    assert [i.audio is not None for i in instances] == [True, False]
    assert os.path.samefile(instances[0].audio.path, WAV) and instances[0].restored().audio == instances[0].audio
    (tmp_path / "b.list").write_text("gone.wav\n\n\n")
    run = subprocess.run([sys.executable, script, "-s", src, "-t", tgt, "-o", tmp_path / "u.tagged", "-a",
                          tmp_path / "b.list"], capture_output=True, text=True)
    assert run.returncode == 2 and "b.list:1" in run.stderr and "gone.wav" in run.stderr
    run = subprocess.run([sys.executable, script, "-s", src, "-t", tgt, "-o", tmp_path / "u.tagged", "-a",
                          tmp_path / "b.list", "--skip_bad"], capture_output=True, text=True)
    assert run.returncode == 0 and (tmp_path / "u.tagged.audio").read_text() == "\n\n"
    records = [{"audio": f"{WAV}:0:16000", "tgt_text": "Yes, we can."}, {"audio": None, "tgt_text": "Can we?"}]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    got = DatasetReader().read(str(tmp_path / "d.jsonl"))
    assert got[0].words == ["yes", "we", "can"] and got[0].audio.frames == 16000 and got[1].audio is None
    assert got[1].tags[-1].append == "?" and got[1].tags[0].case == "$TRANSFORM_CASE_CAPITAL"
    (tmp_path / "e.jsonl").write_text('{"audio": 3, "tgt_text": "x"}\n')
    with pytest.raises(InputError, match=r"e.jsonl:1: not a UniPunc JSON line \('tgt_text' must be a string"):
        DatasetReader().read(str(tmp_path / "e.jsonl"))


def test_audio_list_beside_a_tagged_file_has_a_line_for_each_line(tmp_path):
    """The training reader counts as prediction does (``waves.check_audio_count``): one audio line per text
    line. A longer list was taken, its last lines silently unused, as if the lines were aligned."""
    tagged = write_tagged(tmp_path, "t", [("yes we can", "Yes, we can."), ("can we", "Can we?")])
    for entries in (f"{WAV}\n\n\n", f"{WAV}\n"):
        (tmp_path / "t.tagged.audio").write_text(entries)
        with pytest.raises(InputError, match=rf"t.tagged.audio has {entries.count(chr(10))} lines but .*t.tagged has 2: "
                                             "one audio line per text line"):
            DatasetReader().read(tagged)
    (tmp_path / "t.tagged.audio").write_text(f"{WAV}\n\n")
    assert [i.audio is not None for i in DatasetReader().read(tagged)] == [True, False]


def test_a_failed_feature_cache_write_leaves_no_file(tmp_path):
    cache = FeatureCache(str(tmp_path / "cache"))
    spec = parse_spec(WAV)
    with pytest.raises(NotImplementedError):  # a tensor without data fails while it is written
        cache.put(spec, "fbank", torch.empty(3, 4, device="meta"))
    assert [name for _, _, names in os.walk(tmp_path / "cache") for name in names] == []
    cache.put(spec, "fbank", torch.ones(3, 4))
    assert torch.equal(cache.get(spec, "fbank"), torch.ones(3, 4))


def test_a_cache_entry_is_not_flushed_to_disk_but_an_output_is(tmp_path, monkeypatch):
    """A cache entry lost in a crash is recomputed, so it skips the disk flush an output or checkpoint takes."""
    flushed = []
    monkeypatch.setattr(os, "fsync", flushed.append)
    FeatureCache(str(tmp_path / "cache")).put(parse_spec(WAV), "fbank", torch.ones(3, 4))
    assert flushed == []
    with atomic_write(str(tmp_path / "out.txt")) as out:
        out.write("x\n")
    assert len(flushed) == 1


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_synthesis_tool(tmp_path):
    (tmp_path / "t.tgt").write_text("Hello there, friend. How are you?\n-dash first.\nGood.\n")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "data", "synthesize_audio.py"), "--text", tmp_path / "t.tgt",
                          "--out_dir", tmp_path / "out", "--voices", "en-us", "en-gb", "--speeds", "160", "200",
                          "--audio_fraction", "0.7", "--seed", "2"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    entries = (tmp_path / "out" / "audio.list").read_text().split("\n")[:3]
    assert any(entries) and len(entries) == 3
    specs = read_audio_list(str(tmp_path / "out" / "audio.list"))
    for spec in filter(None, specs):
        wave = load_audio(spec)
        assert len(wave) > 8000 and np.abs(wave).max() > 0.05
    records = [json.loads(line) for line in (tmp_path / "out" / "data.jsonl").read_text().splitlines()]
    assert [r["audio"] for r in records] == [e or None for e in entries]
