"""The shared tail of the ``utils/`` scripts: ``run_script(main)`` runs a script's ``main`` and turns what
a user can get wrong into one ``error:`` line and exit status 2, as ``predict.py`` does: a model that
cannot be loaded (``ModelLoadError``, ``ModelFolderError``: a wrong name says the shipped ones), an input
that cannot be read or a place that cannot be written (``InputError``; a missing file, a folder, a
permission: ``files.error_text``, without errno text). Ctrl-C exits 130 without a traceback. ``main`` returns the exit status (None: 0).
``named_values(values, flag)``: the ``NAME=VALUE`` items of a flag (``--set fr=W/fr.dev``) as pairs, in order.
"""
from __future__ import annotations

import sys
from collections.abc import Callable

from gector_punct.model.config import ModelFolderError
from gector_punct.prediction.loading import ModelLoadError
from gector_punct.text.files import InputError, error_text


def run_script(main: Callable[[], int | None]) -> None:
    try:
        status = main()
    except (ModelLoadError, ModelFolderError, InputError) as err:
        print(f"error: {err}", file=sys.stderr)
        status = 2
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as err:
        print(f"error: {error_text(err, 'a file')}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        status = 130
    sys.exit(status or 0)


def named_values(values: list[str], flag: str) -> list[tuple[str, str]]:
    """``NAME=VALUE`` items as (name, value) pairs, in order; InputError naming the flag for an item without one."""
    pairs = []
    for item in values:
        name, sep, value = item.partition("=")
        if not (sep and name and value):
            raise InputError(f"{flag} {item!r}: give NAME=VALUE")
        pairs.append((name, value))
    return pairs
