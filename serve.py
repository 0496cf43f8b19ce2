#!/usr/bin/env python
"""Serve punctuation restoration over HTTP and WebSocket (docs/service.md).

    python serve.py                                   # http://127.0.0.1:8000/ : the page; the API under /v1
    python serve.py --port 9000 --token "$TOKEN"      # every endpoint but /health needs 'Bearer TOKEN'
    curl -s localhost:8000/v1/restore -d '{"lines": ["so i went to new york did you"]}'

POST /v1/restore {"lines": [...], "tasks": "punc", "existing": "keep", "fragments": false} -> {"lines": [...]},
exactly what predict.py writes for those lines; WebSocket /v1/stream?lookahead=K: {"words": "..."} and
{"end": true} in, {"final": "..."} out, as predict.py --stream --lookahead K. SIGTERM: the requests in flight
are answered, every open stream gets its last words, exit status 0.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
from dataclasses import fields

from gector_punct.prediction.punctuator import Punctuator
from gector_punct.service.server import serve
from gector_punct.service.settings import ServiceSettings


def build_parser() -> argparse.ArgumentParser:
    """One flag per ``ServiceSettings`` field, with its help, type and default."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = ServiceSettings()
    for f in fields(ServiceSettings):
        default = getattr(defaults, f.name)
        shown = " ".join(default) if isinstance(default, list) else default
        p.add_argument(f"--{f.name}", type=f.metadata["type"], default=default,
                       nargs="+" if f.metadata["many"] else None,
                       help=f"{f.metadata['help']} (default: {'none' if shown in (None, '') else shown})")
    return p


def parse_settings(argv=None) -> ServiceSettings:
    return ServiceSettings(**vars(build_parser().parse_args(argv)))


def stop_quietly(signum, frame) -> None:
    """SIGTERM: exit 0. Before the server runs it stops the start; after uvicorn's graceful shutdown it is
    the signal uvicorn raises again."""
    sys.exit(0)


def main(argv=None) -> int:
    """Exit status: 0 stopped by SIGTERM, 2 bad flags or model, 130 Ctrl-C."""
    settings = parse_settings(argv)
    signal.signal(signal.SIGTERM, stop_quietly)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        punctuator = Punctuator.load(settings.model_path, device=settings.device, engine=settings.engine)
    except (OSError, ValueError) as err:
        print(f"error: cannot load model {' '.join(settings.model_path)}: {err}", file=sys.stderr)
        return 2
    try:
        serve(settings, punctuator)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
