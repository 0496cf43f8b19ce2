"""The restoration service as an ASGI app: ``Service(settings, punctuator).app`` (Starlette).

Routes: ``GET /`` the page (``static/page.html``), ``GET /health`` (no token: ``{"status": "ok", "model":
NAME}``), ``POST /v1/restore`` (``contract.read_restore``, at most ``--max_words`` words (``limits``) ->
``{"lines": [...]}``: exactly the lines ``predict.py --chunk_words N`` writes for them (``"words": true``: the
objects ``--format jsonl`` writes), each request
restored on its own in ``chunks.word_chunks`` groups of ``--chunk_words``, each group one step of its job;
a group of more words, one long line, in steps of about ``--chunk_words`` words of model work: ``restore_steps``)
and ``WebSocket /v1/stream`` (``streams.StreamSession``). No other path: ``/health/`` is a 404, never a
redirect. Every model call goes through one ``ModelQueue`` (its workers: ``workers.start_workers``); a
full queue answers 503 with ``Retry-After`` at once. ``admission`` refuses what comes beyond the
connection bounds, or after SIGTERM. A request whose client leaves before its answer runs no further
chunk (logged, status 499); a client that leaves in the middle of its body likewise.

Every refusal is a one-line JSON ``{"error": ...}`` with a 4xx status (``contract.ClientError``); an
unexpected exception is logged with its traceback and answered 500 in the same form, and the server stays
up. ``AccessLog`` writes one line per request: method, path, status, lines, milliseconds; never the text.
"""
from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import os
import time
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from gector_punct.prediction.chunks import word_chunks
from gector_punct.prediction.punctuator import Punctuator
from gector_punct.prediction.shipped import model_paths
from gector_punct.service.admission import Admission, Gate
from gector_punct.service.contract import ClientError, Reading, read_restore
from gector_punct.service.limits import check_count, check_size
from gector_punct.service.model_queue import ModelQueue, QueueFull
from gector_punct.service.replies import busy, error
from gector_punct.service.settings import ServiceSettings
from gector_punct.service.streams import StreamSessions
from gector_punct.service.workers import WorkerError, start_workers

log = logging.getLogger("gector_punct.service")
CLIENT_LEFT = 499  # the status logged for a request whose client left before its answer (nginx's code)


class ClientGone(Exception):
    """The client closed its connection before its answer."""


class Service:
    """The app and what it shares between requests: the settings, the loaded punctuator (one configured
    view per ``Reading``, ``Punctuator.reading``, to check what clients ask), the model queue and its
    workers (more than one: processes loading their own model from ``settings``), the gate and the open
    streams."""

    def __init__(self, settings: ServiceSettings, punctuator: Punctuator):
        self.settings, self.punctuator = settings, punctuator
        self.model_name = ", ".join(os.path.basename(os.path.normpath(p))
                                    for p in model_paths(settings.prediction().model_path, settings.tasks))
        self.queue = ModelQueue(start_workers(settings, punctuator), settings.queue_size)
        self.gate = Gate(settings)
        self.streams = StreamSessions(self)
        self._readers: dict[Reading, Punctuator] = {}
        self.job_ids = itertools.count()
        self.page = resources.files(__package__).joinpath("static", "page.html").read_text(encoding="utf-8")
        middleware = [Middleware(AccessLog), Middleware(Admission, gate=self.gate)]
        if settings.allow_origin:
            middleware.append(Middleware(CORSMiddleware, allow_origins=settings.allow_origin,
                                         allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type"]))
        app = Starlette(routes=[Route("/", self.page_route), Route("/health", self.health),
                                Route("/v1/restore", self.restore, methods=["POST"]),
                                WebSocketRoute("/v1/stream", self.streams.serve)],
                        middleware=middleware,
                        exception_handlers={HTTPException: self.http_error, Exception: self.crash})
        app.router.redirect_slashes = False  # a redirect would be built from the request's Host header
        self.app = AnsweredOnce(app)

    def reader(self, reading: Reading) -> Punctuator:
        """The punctuator reading lines as ``reading`` says (422 when the model cannot, e.g. disf)."""
        if reading not in self._readers:
            try:
                self._readers[reading] = self.punctuator.reading(
                    reading.tasks, reading.existing, reading.fragments, reading.numbers)
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
            limit = (self.settings.max_words, "max_words", "one request")
            check_size(job.lines, *limit)
            pieces = list(word_chunks(job.lines, self.settings.chunk_words))  # the lines split into units once
            check_count(sum(words for _, words in pieces), *limit)
            self.reader(job.reading)  # 422 before any model work when the model cannot read so
            self.queue.check_room()  # a 503 costs no task
            chunks = await self.run_restore(request, job.reading, pieces, job.words)
        except ClientError as err:
            return error(err.status, err.message)
        except QueueFull as err:
            return busy(str(err))
        except ClientGone as gone:
            log.info("%s %s: %s", request.method, request.url.path, gone)
            return Response(status_code=CLIENT_LEFT)  # for the log: no one reads it
        except WorkerError as err:  # logged where it happened
            log.error("%s %s: %s", request.method, request.url.path, err)
            return error(500, "internal error (logged by the server)")
        return JSONResponse({"lines": [line for chunk in chunks if chunk is not None for line in chunk]})

    async def run_restore(self, request: Request, reading: Reading, pieces: list[tuple[list[str], int]],
                          scored: bool = False) -> list:
        """The steps' results of a restore; a job restoring a long line in parts runs on one worker (which
        holds its state) and is dropped there if its client leaves."""
        part_words = self.settings.chunk_words
        job = next(self.job_ids) if any(words > part_words for _, words in pieces) else None
        worker = None if job is None else job % len(self.queue.workers)
        try:
            return await unless_client_leaves(
                request, self.queue.run(restore_steps(reading, pieces, part_words, job, scored), worker=worker))
        except BaseException:
            if job is not None:  # the worker may hold the job's state: forget it after its running step
                asyncio.ensure_future(self.queue.run([("drop", (job,))], wait=True, worker=worker))
            raise

    async def read_body(self, request: Request) -> bytes:
        """The body, refused with 413 as soon as it is known to exceed the limit (Content-Length, else as
        it streams in)."""
        limit = self.settings.max_body_bytes
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            raise ClientError(413 if length.isdigit() else 400, f"a body of at most {limit} bytes, not {length}")
        chunks, size = [], 0
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise ClientError(413, f"a body of at most {limit} bytes")
                chunks.append(chunk)
        except ClientDisconnect:
            raise ClientGone(f"the client left in the middle of its body, after {size} bytes") from None
        return b"".join(chunks)

    async def http_error(self, request: Request, err: HTTPException) -> Response:
        return error(err.status_code, err.detail, headers=err.headers)

    async def crash(self, request: Request, err: Exception) -> Response:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error(500, "internal error (logged by the server)")


def restore_steps(reading: Reading, pieces: list[tuple[list[str], int]], part_words: int, job: int | None,
                  scored: bool = False):
    """The model steps of a restore request (a generator sent each step's result): its lines in ``predict.py
    --chunk_words``'s groups (``chunks.word_chunks``), one step each; a group of more than ``part_words``
    words (one long line) in parts of about that many (``begin``, then ``advance`` until it gives the lines),
    so that no step of one request keeps another waiting long."""
    for chunk, words in pieces:
        if words <= part_words:
            yield "restore", (reading, chunk, scored)
            continue
        done = yield "begin", (job, reading, chunk, part_words, scored)
        while done is None:
            done = yield "advance", (job,)


async def unless_client_leaves(request: Request, work):
    """``work``'s result, or ClientGone (``work`` cancelled) as soon as the client closes its connection."""
    task, left = asyncio.ensure_future(work), asyncio.ensure_future(disconnected(request))
    try:
        await asyncio.wait({task, left}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        left.cancel()
    if not task.done():
        task.cancel()
        raise ClientGone("the client left before its answer; the rest of its work was dropped")
    return task.result()


async def disconnected(request: Request) -> None:
    """Returns once the client has gone (its body already read: the server's next message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class AnsweredOnce:
    """ASGI wrapper: an HTTP exception that Starlette has answered (500, logged by ``Service.crash``) goes no
    further; uvicorn would log its traceback a second time."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        answered = False

        async def tracked(message):
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            if scope["type"] != "http" or not answered:
                raise


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
