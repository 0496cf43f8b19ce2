"""``ServiceSettings``: every option of the restoration service, the one place that names, types, bounds and
documents them. Each field's ``metadata`` holds its ``help`` text, its command-line ``type`` (an
``argtypes`` function; a list field is one flag taking several values) and ``serve.py`` makes one flag per
field from them. ``queue_size``, ``max_lines``, ``max_words``, ``max_frame_words``, ``max_body_mb`` and the
connection bounds bound what a client can make the server hold and compute (``limits``, ``admission``);
``chunk_words`` is the unit of model work others' requests run between (``model_queue``); ``token`` None
means no authentication; ``allow_origin`` empty means no CORS headers at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gector_punct.options.argtypes import nonnegative_int, positive_float, positive_int
from gector_punct.prediction.punctuator import DEFAULT_MODEL

# Characters a request or message may carry per word of its word limit. Scripts without spaces are counted per
# character already (units.split_units); this bounds the rest, e.g. one 'word' of 100,000 letters, which the
# encoder reads as thousands of subwords.
CHARS_PER_WORD = 10


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
    device: str | None = option(None, "cpu, cuda ... (default: cuda when available)")
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
    max_words: int = option(20000, "most words in one /v1/restore request, counted as predict.py counts them "
                                   "(scripts without spaces: characters); more, or more than "
                                   f"{CHARS_PER_WORD} characters a word: 413", type=positive_int)
    max_frame_words: int = option(2000, "most words in one stream message (and at most "
                                        f"{CHARS_PER_WORD} characters a word), and most words a stream may have "
                                        "waiting for the model (more: that message is refused)", type=positive_int)
    chunk_words: int = option(500, "a request's lines go to the model in groups of this many words (predict.py's "
                                   "--chunk_words; a line is never cut), other requests' work running between "
                                   "them", type=positive_int)
    workers: int = option(1, "model workers: 1 runs the model on a thread of the server; more start as many "
                             "processes, each with its own copy of the model and its own threads",
                          type=positive_int)
    worker_threads: int = option(0, "torch threads of each model worker (0: torch's default with one worker, "
                                    "the machine's cores shared out with several)", type=nonnegative_int)
    max_connections: int = option(512, "requests in flight and streams open at once; one more gets 503 at once",
                                  type=positive_int)
    max_client_connections: int = option(32, "requests in flight and streams open at once from one client "
                                             "address; one more gets 429 at once", type=positive_int)
    auth_seconds: float = option(5.0, "with --token: how long a stream may stay open without having shown the "
                                      "token (then it is closed, 1008)", type=positive_float)
    shutdown_seconds: float = option(30.0, "on SIGTERM new requests and streams get 503; how long the "
                                           "open streams and requests in flight may take to finish before they "
                                           "are closed", type=positive_float)

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)
