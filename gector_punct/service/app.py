"""The restoration service as an ASGI app: ``Service(settings, punctuator).app`` (Starlette).

Routes: ``GET /`` the page (``static/page.html``), ``GET /health`` (no token: ``{"status": "ok", "model":
NAME}``), ``POST /v1/restore`` (``contract.read_restore`` -> ``{"lines": [...]}``: exactly the lines
``predict.py`` writes for them, each request restored on its own in ``chunks.word_chunks`` groups, as
``predict.py`` restores a file) and ``WebSocket /v1/stream`` (``streams.StreamSession``). Every model call
goes through one ``ModelQueue``; a full queue answers 503 with ``Retry-After`` at once.

Every refusal is a one-line JSON ``{"error": ...}`` with a 4xx status (``contract.ClientError``); an
unexpected exception is logged with its traceback and answered 500 in the same form, and the server stays
up. ``AccessLog`` writes one line per request: method, path, status, lines, milliseconds; never the text.
"""
from __future__ import annotations

import hmac
import logging
import os
import time
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from gector_punct.prediction.chunks import DEFAULT_CHUNK_WORDS, word_chunks
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.shipped import model_paths
from gector_punct.service.contract import ClientError, Reading, RestoreRequest, read_restore
from gector_punct.service.model_queue import ModelQueue, QueueFull
from gector_punct.service.replies import busy, error
from gector_punct.service.settings import ServiceSettings
from gector_punct.service.streams import StreamSessions

log = logging.getLogger("gector_punct.service")


class Service:
    """The app and what it shares between requests: the settings, the loaded punctuator (one configured
    view per ``Reading``, ``Punctuator.reading``), the model queue and the open streams."""

    def __init__(self, settings: ServiceSettings, punctuator: Punctuator):
        self.settings, self.punctuator = settings, punctuator
        self.model_name = ", ".join(os.path.basename(os.path.normpath(p))
                                    for p in model_paths(settings.model_path, settings.tasks))
        self.queue = ModelQueue(settings.queue_size)
        self.streams = StreamSessions(self)
        self._readers: dict[Reading, Punctuator] = {}
        self.page = resources.files(__package__).joinpath("static", "page.html").read_text(encoding="utf-8")
        middleware = [Middleware(AccessLog)]
        if settings.allow_origin:
            middleware.append(Middleware(CORSMiddleware, allow_origins=settings.allow_origin,
                                         allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type"]))
        self.app = Starlette(routes=[Route("/", self.page_route), Route("/health", self.health),
                                     Route("/v1/restore", self.restore, methods=["POST"]),
                                     WebSocketRoute("/v1/stream", self.streams.serve)],
                             middleware=middleware,
                             exception_handlers={HTTPException: self.http_error, Exception: self.crash})

    def reader(self, reading: Reading) -> Punctuator:
        """The punctuator reading lines as ``reading`` says (422 when the model cannot, e.g. disf)."""
        if reading not in self._readers:
            try:
                self._readers[reading] = self.punctuator.reading(reading.tasks, reading.existing, reading.fragments)
            except ValueError as err:
                raise ClientError(422, str(err)) from None
        return self._readers[reading]

    def authorised(self, header: str | None) -> bool:
        """Whether an ``Authorization`` header value carries the token (always, when none is set)."""
        if self.settings.token is None:
            return True
        scheme, _, token = (header or "").partition(" ")
        return scheme.lower() == "bearer" and self.token_matches(token.strip())

    def token_matches(self, token: str) -> bool:
        expected = self.settings.token
        return expected is not None and hmac.compare_digest(token.encode("utf-8", "replace"),
                                                            expected.encode("utf-8"))

    async def page_route(self, request: Request) -> Response:
        return HTMLResponse(self.page)

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "model": self.model_name})

    async def restore(self, request: Request) -> Response:
        if not self.authorised(request.headers.get("authorization")):
            return error(401, "unauthorised: send 'Authorization: Bearer TOKEN'",
                         headers={"WWW-Authenticate": "Bearer"})
        try:
            job = read_restore(await self.read_body(request), self.settings.max_lines)
            request.state.lines = len(job.lines)
            reader = self.reader(job.reading)
            lines = await self.queue.run(restore_lines, reader, job)
        except ClientError as err:
            return error(err.status, err.message)
        except QueueFull as err:
            return busy(str(err))
        return JSONResponse({"lines": lines})

    async def read_body(self, request: Request) -> bytes:
        """The body, refused with 413 as soon as it is known to exceed the limit (Content-Length, else as
        it streams in)."""
        limit = self.settings.max_body_bytes
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            raise ClientError(413 if length.isdigit() else 400, f"a body of at most {limit} bytes, not {length}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ClientError(413, f"a body of at most {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def http_error(self, request: Request, err: HTTPException) -> Response:
        return error(err.status_code, err.detail, headers=err.headers)

    async def crash(self, request: Request, err: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, "internal error (logged by the server)")


def restore_lines(punctuator: Punctuator, job: RestoreRequest) -> list[str]:
    """The model job of one restore request: its lines in ``predict.py``'s groups."""
    return [line for chunk, _ in word_chunks(job.lines, DEFAULT_CHUNK_WORDS) for line in punctuator.predict(chunk)]


class AccessLog:
    """ASGI middleware: one log line per HTTP request or stream when it ends: ``METHOD PATH STATUS lines=N
    ms=T`` (a stream: ``WS``, 101 once accepted, N its utterances). ``lines`` is what the route put in
    ``scope["state"]["lines"]``, else 0."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        start, status = time.perf_counter(), [500]

        async def recorded(message):
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                status[0] = message["status"]
            elif message["type"] == "websocket.accept":
                status[0] = 101
            elif message["type"] == "websocket.close" and status[0] != 101:
                status[0] = 403  # closed before the handshake: uvicorn answers 403
            await send(message)

        try:
            await self.app(scope, receive, recorded)
        finally:
            method = scope.get("method", "WS")
            lines = scope.get("state", {}).get("lines", 0)
            log.info("%s %s %d lines=%d ms=%.1f", method, scope["path"], status[0], lines,
                     (time.perf_counter() - start) * 1000)
