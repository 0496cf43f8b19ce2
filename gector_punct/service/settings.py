"""``ServiceSettings``: every option of the restoration service, the one place that names, types, bounds and
documents them. Each field is an ``options.flags.flag`` (its help, default and checks) and ``serve.py`` makes
one flag per field from them; the model's (``model_path``, ``tasks``, ``device``, ``batch_size``) are
``PredictionSettings``' own fields, reused, so they read and default as ``predict.py``'s, and
``prediction()`` gives the settings ``loading.load_punctuator`` loads the model from. ``queue_size``,
``max_lines`` and ``max_body_mb`` bound what a client can make the server hold; ``token`` None means no
authentication; ``allow_origin`` empty means no CORS headers at all.
"""
from __future__ import annotations

from dataclasses import dataclass

from gector_punct.options.flags import Settings, flag, reused
from gector_punct.prediction.settings import PredictionSettings

MODEL_FIELDS = ("model_path", "tasks", "device", "batch_size")  # PredictionSettings' fields the service takes


@dataclass(kw_only=True)
class ServiceSettings(Settings):
    host: str = flag("127.0.0.1", "address to listen on (0.0.0.0: every interface; only behind a token and a "
                                  "proxy you trust)")
    port: int = flag(8000, "TCP port to listen on (0: any free port)", min=0)
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    tasks: frozenset[str] = reused(PredictionSettings, "tasks", help=(
        "the tasks the service must be able to do (punc, disf, disf,punc or none; a request asks for its own): "
        "without --model_path they choose the shipped model, switch_en when disf is among them"))
    device: str | None = reused(PredictionSettings, "device")
    batch_size: int = reused(PredictionSettings, "batch_size")
    token: str | None = flag(None, "require 'Authorization: Bearer TOKEN' on every endpoint but /health",
                             default_text="none, no token asked")
    allow_origin: list[str] = flag([], "browser origins allowed to call the API from other pages (CORS), e.g. "
                                       "https://captions.example.org", default_text="none, no CORS headers")
    max_lines: int = flag(1000, "most lines in one /v1/restore request (more: 413)", min=1)
    max_body_mb: float = flag(1.0, "largest request body, and WebSocket message, in megabytes (more: 413)", above=0)
    queue_size: int = flag(32, "model jobs admitted at once (running or waiting); a request beyond them gets 503 "
                               "with Retry-After at once", min=1)
    max_lookahead: int = flag(1000, "largest ?lookahead= of a stream (words a stream may hold back)", min=0)
    shutdown_seconds: float = flag(30.0, "on SIGTERM, how long to wait for open streams and requests to finish "
                                         "before closing them", above=0)

    def prediction(self) -> PredictionSettings:
        """The settings of the service's model (``loading.load_punctuator``'s)."""
        return PredictionSettings(**{name: getattr(self, name) for name in MODEL_FIELDS})

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)
