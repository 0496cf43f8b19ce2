#!/usr/bin/env python
"""Serve punctuation restoration over HTTP and WebSocket (docs/service.md).

    python serve.py                                   # http://127.0.0.1:8000/ : the page; the API under /v1
    python serve.py --port 9000 --token "$TOKEN"      # every endpoint but /health needs 'Bearer TOKEN'
    python serve.py --tasks disf,punc                 # switch_en: requests may ask for "tasks": "disf,punc"
    python serve.py --workers 4                       # 4 model processes, the cores shared out among them
    curl -s localhost:8000/v1/restore -d '{"lines": ["so i went to new york did you"]}'

POST /v1/restore {"lines": [...], "tasks": "punc", "existing": "keep", "fragments": false} -> {"lines": [...]},
exactly what predict.py --chunk_words N writes for them; WebSocket /v1/stream?lookahead=K: {"words": "..."} and
{"end": true} in, {"final": "..."} out, as predict.py --stream --lookahead K. SIGTERM: new requests get 503,
the requests in flight are answered, every open stream gets its last words, exit status 0.
"""
from __future__ import annotations

import logging
import signal
import sys

from gector_punct.options.flags import FlagParser, add_flags
from gector_punct.prediction.loading import ModelLoadError, load_punctuator
from gector_punct.service.server import address_in_use, serve
from gector_punct.service.settings import ServiceSettings


def build_parser() -> FlagParser:
    """One flag per ``ServiceSettings`` field, with its help, checks and default."""
    parser = FlagParser(__doc__)
    add_flags(parser, ServiceSettings)
    return parser


def parse_settings(argv=None) -> ServiceSettings:
    parser = build_parser()
    return parser.settings(ServiceSettings, parser.parse_args(argv))


def stop_quietly(signum, frame) -> None:
    """SIGTERM: exit 0. Before the server runs it stops the start; after uvicorn's graceful shutdown it is
    the signal uvicorn raises again."""
    sys.exit(0)


def main(argv=None) -> int:
    """Exit status: 0 stopped by SIGTERM, 2 bad flags or model, 130 Ctrl-C."""
    settings = parse_settings(argv)
    if address_in_use(settings.host, settings.port):
        print(f"error: cannot listen on {settings.host}:{settings.port}: the address is in use or not this "
              "machine's (--port, --host)", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, stop_quietly)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        # each model worker process loads its own alike; this one serves with --workers 1
        punctuator = load_punctuator(settings.prediction(), threads=settings.worker_threads or None)
    except ModelLoadError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        serve(settings, punctuator)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
