"""The folder where encoders built from pip packages on first use are kept, and how they get there.

``cache_root()``: ``$GECTOR_PUNCT_CACHE``, default ``~/.cache/gector_punct``. ``built_folder(name, build,
what)`` -> ``<cache>/encoders/<name>``: the folder if it is there, else ``build(tmp)`` writes it into a
temporary folder beside it (``files.temporary_dir``), which is then put in place (``files.place_dir``), so a
folder appears whole or not at all (an interrupted build leaves only a ``.<name>.*.tmp`` folder that no
build reads). Two processes that build the same folder at once both succeed: the first one's folder stays,
the other uses it and removes its own.
"""
from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable

from gector_punct.text.files import place_dir, temporary_dir

BUILT_MARK = "config.json"  # a built folder has it: a Hugging Face encoder folder


def cache_root() -> str:
    return os.environ.get("GECTOR_PUNCT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gector_punct")


def built_folder(name: str, build: Callable[[str], None], what: str) -> str:
    out = os.path.join(cache_root(), "encoders", name)
    if os.path.isfile(os.path.join(out, BUILT_MARK)):
        return out
    print(f"gector-punct: building {what} into {out} (once)", file=sys.stderr)
    tmp = temporary_dir(out)
    try:
        build(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if not place_dir(tmp, out) and not os.path.isfile(os.path.join(out, BUILT_MARK)):
        raise FileExistsError(f"{out} is in the way of the built {what} and is no encoder folder: remove it")
    return out
