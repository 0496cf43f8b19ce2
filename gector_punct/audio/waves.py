"""Audio in: files -> 16 kHz mono float32 waves, audio lists, and a disk cache of acoustic features.

* ``parse_spec("a.wav:16000:32000") -> AudioSpec(path, offset, frames)``: a whole file, or ``frames``
  samples (of the file's own rate) from ``offset``, as UniPunc's manifests write it. A path that itself
  contains ':' is fine as long as it does not end in ``:int:int``.
* ``load_audio(spec) -> np.ndarray``: read with soundfile, mixed down to mono, resampled with soxr to
  ``SAMPLE_RATE``. A missing, unreadable or empty file raises ``AudioError`` (an ``InputError``) naming it.
* ``read_audio_list(path, text_lines=None, text_path) -> list[AudioSpec | None]``: line i names the audio of
  text line i, or is empty (no audio); ``check_audio_count`` is the one rule that the list has a line for
  each text line. Relative paths are relative to the list file's folder. ``read_jsonl(path)``:
  UniPunc-style JSON lines ``{"audio": "x.wav" | "x.wav:offset:frames" | null, "tgt_text": "..."}``.
* ``bad_audio(origin, err, skip_bad)``: the one policy for audio that cannot be used, wherever it is found
  (``check_audio_list`` before a run, ``audio_data.AudioLines`` during one): stop naming ``list:line``, or
  warn and go on with the text alone.
* ``FeatureCache(directory)``: ``get(spec, extractor_id)`` / ``put(...)`` of one feature matrix as a
  safetensors file keyed by a hash of (path, size, mtime, offset, frames, extractor id), so that a changed
  file or another extractor never reads a stale entry. Writes (``write_wav`` too) go through
  ``files.atomic_write`` (safe with several processes; a failed write leaves nothing).
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gector_punct.text.files import InputError, atomic_write, read_json_objects, read_lines

if TYPE_CHECKING:
    import torch  # the feature cache's tensors; importing torch is left to the code that makes them

SAMPLE_RATE = 16000
_RANGE = re.compile(r"^(.*):(\d+):(\d+)$")


class AudioError(InputError):
    """A missing, unreadable or empty audio file; the message names it (and the list line)."""


@dataclass(frozen=True)
class AudioSpec:
    path: str
    offset: int = 0
    frames: int = -1  # -1: to the end of the file

    def __str__(self) -> str:
        return self.path if self.frames < 0 and not self.offset else f"{self.path}:{self.offset}:{self.frames}"


def parse_spec(text: str, base_dir: str = "") -> AudioSpec:
    def full(path: str) -> str:
        return os.path.normpath(os.path.join(base_dir, path)) if base_dir and not os.path.isabs(path) else path

    match = _RANGE.match(text) if not os.path.isfile(full(text)) else None
    if match:
        return AudioSpec(full(match.group(1)), int(match.group(2)), int(match.group(3)))
    return AudioSpec(full(text))


def resample(wave: np.ndarray, rate: int) -> np.ndarray:
    import soxr

    wave = np.ascontiguousarray(wave, dtype=np.float32)
    return wave if rate == SAMPLE_RATE else soxr.resample(wave, rate, SAMPLE_RATE).astype(np.float32)


def load_audio(spec: AudioSpec | str) -> np.ndarray:
    """16 kHz mono float32 samples of ``spec``; ``AudioError`` for a missing, unreadable or empty file."""
    import soundfile

    spec = parse_spec(spec) if isinstance(spec, str) else spec
    if not os.path.isfile(spec.path):
        raise AudioError(f"{spec.path}: audio file not found")
    try:
        wave, rate = soundfile.read(spec.path, start=spec.offset, frames=spec.frames, dtype="float32", always_2d=True)
    except (RuntimeError, ValueError, soundfile.LibsndfileError) as err:  # not audio, truncated, bad range
        raise AudioError(f"{spec}: cannot read audio ({err})") from None
    if wave.size == 0:
        raise AudioError(f"{spec}: no audio samples (empty file or range)")
    return resample(wave.mean(axis=1), rate)


def check_audio(spec: AudioSpec) -> None:
    """Cheap check (header only) that ``spec`` names readable, non-empty audio; ``AudioError`` if not."""
    import soundfile

    if not os.path.isfile(spec.path):
        raise AudioError(f"{spec.path}: audio file not found")
    try:
        frames = soundfile.info(spec.path).frames
    except (RuntimeError, ValueError, soundfile.LibsndfileError) as err:
        raise AudioError(f"{spec}: cannot read audio ({err})") from None
    available = frames - spec.offset if spec.frames < 0 else min(spec.frames, frames - spec.offset)
    if available <= 0:
        raise AudioError(f"{spec}: no audio samples (empty file or range)")


def bad_audio(origin: str, err: AudioError, skip_bad: bool) -> None:
    """The one policy for audio that cannot be used, wherever it is found: stop with an ``AudioError``
    naming where it was listed (``origin``: ``list:line``), or, with ``skip_bad``, warn on stderr and let
    the caller go on with the line's text alone."""
    if not skip_bad:
        raise AudioError(f"{origin}: {err}") from None
    print(f"warning: {origin}: {err}; the line is used without audio", file=sys.stderr)


def check_audio_list(specs: list[AudioSpec | None], list_path: str, skip_bad: bool, lines=None) -> int:
    """Check the audio of ``lines`` (1-based list lines; default all) before any work starts; a bad entry
    goes to ``bad_audio`` and, when skipped, becomes None. Returns the number of entries dropped."""
    dropped = 0
    for number in lines if lines is not None else range(1, len(specs) + 1):
        if specs[number - 1] is None:
            continue
        try:
            check_audio(specs[number - 1])
        except AudioError as err:
            bad_audio(f"{list_path}:{number}", err, skip_bad)
            specs[number - 1] = None
            dropped += 1
    return dropped


def write_wav(path: str, wave: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """16-bit PCM wav, written atomically (``files.atomic_write``)."""
    import soundfile

    with atomic_write(path, "wb") as out:
        soundfile.write(out, np.clip(wave, -1.0, 1.0), rate, subtype="PCM_16", format="WAV")


def read_audio_list(path: str, text_lines: int | None = None, text_path: str = "the text") -> list[AudioSpec | None]:
    """One entry per line (empty line: no audio); relative paths are taken from the list's folder. With
    ``text_lines``, the lines of ``text_path``, the counts are checked (``check_audio_count``)."""
    base = os.path.dirname(os.path.abspath(path))
    specs = [parse_spec(text.strip(), base) if text.strip() else None for _, text in read_lines(path)]
    if text_lines is not None:
        check_audio_count(path, len(specs), text_path, text_lines)
    return specs


def check_audio_count(list_path: str, audio_lines: int, text_path: str, text_lines: int) -> None:
    """The one rule of an audio list beside a text, wherever it is read (prediction, training data,
    preprocessing): line i is the audio of text line i, so both have as many lines; else ``InputError``."""
    if audio_lines != text_lines:
        raise InputError(f"{list_path} has {audio_lines} lines but {text_path} has {text_lines}: one audio line per "
                         "text line (an empty line for none)")


def read_jsonl(path: str) -> list[tuple[AudioSpec | None, str, int]]:
    """``(audio or None, tgt_text, line number)`` of each non-empty line of a UniPunc-style JSON-lines file."""
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for number, record in read_json_objects(path):
        try:
            audio, text = record.get("audio"), record["tgt_text"]
            if not isinstance(text, str) or not (audio is None or isinstance(audio, str)):
                raise ValueError("'tgt_text' must be a string and 'audio' a string or null")
        except (ValueError, KeyError, AttributeError) as err:
            raise InputError(f"{path}:{number}: not a UniPunc JSON line ({err})") from None
        out.append((parse_spec(audio, base) if audio else None, text, number))
    if not out:
        raise InputError(f"{path}: no records (empty file?)")
    return out


class FeatureCache:
    """Acoustic features on disk, one safetensors file per (audio, extractor)."""

    def __init__(self, directory: str):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)

    def key(self, spec: AudioSpec, extractor_id: str) -> str:
        try:
            stat = os.stat(spec.path)
        except OSError:
            raise AudioError(f"{spec.path}: audio file not found") from None
        text = f"{os.path.abspath(spec.path)}\0{stat.st_size}\0{stat.st_mtime_ns}\0{spec.offset}\0{spec.frames}\0{extractor_id}"
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".safetensors")

    def get(self, spec: AudioSpec, extractor_id: str) -> torch.Tensor | None:
        from safetensors.torch import load_file

        path = self._file(self.key(spec, extractor_id))
        if not os.path.exists(path):
            return None
        return load_file(path)["features"].float()

    def put(self, spec: AudioSpec, extractor_id: str, features: torch.Tensor) -> None:
        import torch

        from safetensors.torch import save

        # float16 halves the cache; features are normalised or layer-normed, well inside its range.
        data = save({"features": features.detach().to(torch.float16).contiguous()},
                    metadata={"audio": str(spec), "extractor": extractor_id})
        # Safe with several processes; not flushed to disk, as a lost entry is recomputed.
        with atomic_write(self._file(self.key(spec, extractor_id)), "wb", durable=False) as out:
            out.write(data)
