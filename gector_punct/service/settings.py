"""``ServiceSettings``: every option of the restoration service, the one place that names, types, bounds and
documents them. Each field is an ``options.flags.flag`` (its help, default and checks) and ``serve.py`` makes
one flag per field from them; the model's (``model_path``, ``tasks``, ``device``, ``batch_size``) are
``PredictionSettings``' own fields, reused, so they read and default as ``predict.py``'s, and
``prediction()`` gives the settings ``loading.load_punctuator`` loads the model from (in every model
worker). ``queue_size``, ``max_lines``, ``max_words``, ``max_frame_words``, ``max_body_mb`` and the
connection bounds bound what a client can make the server hold and compute (``limits``, ``admission``);
``chunk_words`` (``predict.py``'s flag, reused) is the unit of model work others' requests run between
(``model_queue``); ``token`` None means no authentication; ``allow_origin`` empty means no CORS headers.
"""
from __future__ import annotations

from dataclasses import dataclass

from gector_punct.options.flags import Settings, flag, reused
from gector_punct.prediction.settings import PredictionSettings
from gector_punct.prediction.shipped import shipped_model

MODEL_FIELDS = ("model_path", "tasks", "engine", "device", "batch_size")  # PredictionSettings' fields the service takes

# Characters a request or message may carry per word of its word limit. Scripts without spaces are counted per
# character already (units.split_units); this bounds the rest, e.g. one 'word' of 100,000 letters, which the
# encoder reads as thousands of subwords.
CHARS_PER_WORD = 10
TURN_CHUNK_WORDS = 500  # the most words of a long request's model work a short request waits behind


@dataclass(kw_only=True)
class ServiceSettings(Settings):
    host: str = flag("127.0.0.1", "address to listen on (0.0.0.0: every interface; only behind a token and a "
                                  "proxy you trust)")
    port: int = flag(8000, "TCP port to listen on (0: any free port)", min=0)
    model_path: list[str] | None = reused(PredictionSettings, "model_path")
    tasks: frozenset[str] = reused(PredictionSettings, "tasks", help=(
        "the tasks the service must be able to do (punc, disf, disf,punc or none; a request asks for its own): "
        "without --model_path they choose the shipped model: switch_en when disf is among them, else the fast "
        "default_en (live words: ensemble_en takes five to eight times its CPU per word)"))
    engine: str = reused(PredictionSettings, "engine")
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
    max_words: int = flag(20000, "most words in one /v1/restore request, counted as predict.py counts them "
                                 "(scripts without spaces: characters); more, or more than "
                                 f"{CHARS_PER_WORD} characters a word: 413", min=1)
    max_frame_words: int = flag(2000, f"most words in one stream message (and at most {CHARS_PER_WORD} characters "
                                      "a word), and most words a stream may have waiting for the model (more: that "
                                      "message is refused)", min=1)
    # predict.py's flag (its checks, its chunks) with the service's default: predict.py's is a memory bound as
    # large as --max_words, which would make every request one turn and a short one wait for all of a long one.
    chunk_words: int = reused(PredictionSettings, "chunk_words", default=TURN_CHUNK_WORDS, help=(
        "a request's lines go to the model in groups of this many words, as predict.py --chunk_words cuts them "
        "(a line is never cut), other requests' work running between them"))
    workers: int = flag(1, "model workers: 1 runs the model on a thread of the server; more start as many "
                           "processes, each loading its own copy of the model and running its own threads", min=1)
    worker_threads: int = flag(0, "the engine's threads in each model worker", min=0,
                               default_text="0, the engine's default with one worker, the machine's cores shared "
                                            "out with several")
    max_connections: int = flag(512, "requests in flight and streams open at once; one more gets 503 at once",
                                min=1)
    max_client_connections: int = flag(32, "requests in flight and streams open at once from one client address; "
                                           "one more gets 429 at once", min=1)
    auth_seconds: float = flag(5.0, "with --token: how long a stream may stay open without having shown the token "
                                    "(then it is closed, 1008)", above=0)
    shutdown_seconds: float = flag(30.0, "on SIGTERM new requests and streams get 503; how long the open streams "
                                         "and requests in flight may take to finish before they are closed", above=0)

    def prediction(self) -> PredictionSettings:
        """The settings of the service's model (``loading.load_punctuator``'s); without ``model_path``, the
        shipped model for its tasks and live words (``shipped.shipped_model``: default_en for ``punc``)."""
        settings = PredictionSettings(**{name: getattr(self, name) for name in MODEL_FIELDS})
        if settings.model_path is None:
            settings.model_path = [shipped_model(settings.tasks, live=True)]
        return settings

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)
