"""``ServiceSettings``: every option of the restoration service, the one place that names, types, bounds and
documents them. Each field's ``metadata`` holds its ``help`` text, its command-line ``type`` (an
``argtypes`` function; a list field is one flag taking several values) and ``serve.py`` makes one flag per
field from them. ``queue_size``, ``max_lines`` and ``max_body_mb`` bound what a client can make the server
hold; ``token`` None means no authentication; ``allow_origin`` empty means no CORS headers at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gector_punct.engines.choice import DEFAULT_ENGINE, ENGINE_HELP
from gector_punct.options.argtypes import engine_name, nonnegative_int, positive_float, positive_int
from gector_punct.prediction.punctuator import DEFAULT_MODEL


def option(default, help: str, type=str, many: bool = False):
    """A ``ServiceSettings`` field: its default, help text, flag type and whether the flag takes a list."""
    if many:
        return field(default_factory=lambda: list(default), metadata={"help": help, "type": type, "many": True})
    return field(default=default, metadata={"help": help, "type": type, "many": False})


@dataclass
class ServiceSettings:
    host: str = option("127.0.0.1", "address to listen on (0.0.0.0: every interface; only behind a token and a "
                                    "proxy you trust)")
    port: int = option(8000, "TCP port to listen on (0: any free port)", type=nonnegative_int)
    model_path: list[str] = option([DEFAULT_MODEL], "model folder(s), as predict.py's --model_path (several: an "
                                                    "ensemble); loaded once at start", many=True)
    engine: str = option(DEFAULT_ENGINE, ENGINE_HELP, type=engine_name)
    device: str | None = option(None, "cpu, cuda ... (default: the CPU on the onnx engine; on torch, cuda when "
                                      "available)")
    token: str | None = option(None, "require 'Authorization: Bearer TOKEN' on every endpoint but /health "
                                     "(default: none)")
    allow_origin: list[str] = option([], "browser origins allowed to call the API from other pages (CORS), e.g. "
                                         "https://captions.example.org (default: none, no CORS headers)", many=True)
    max_lines: int = option(1000, "most lines in one /v1/restore request (more: 413)", type=positive_int)
    max_body_mb: float = option(1.0, "largest request body, and WebSocket message, in megabytes (more: 413)",
                                type=positive_float)
    queue_size: int = option(32, "model jobs admitted at once (running or waiting); a request beyond them gets "
                                 "503 with Retry-After at once", type=positive_int)
    max_lookahead: int = option(1000, "largest ?lookahead= of a stream (words a stream may hold back)",
                                type=nonnegative_int)
    shutdown_seconds: float = option(30.0, "on SIGTERM, how long to wait for open streams and requests to "
                                           "finish before closing them", type=positive_float)

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)
