"""``WebSocket /v1/stream``: live captions, one ``streaming.Captions`` per connection, held by one model
worker (``workers``: the ``open`` / ``push`` / ``end`` steps).

The client sends text frames ``{"words": "a few new words"}`` and ``{"end": true}`` at an utterance's end;
the server answers ``{"final": TEXT}`` whenever words become final and, after an end, ``{"final": TEXT,
"end": true}`` with the rest; with ``words=true`` in the query each of those also carries ``"words"``: the
final words, each ``{"text", "confidence", "review"}`` as ``predict.py --format jsonl`` writes them. TEXT is what ``streaming.Captions`` gives: the text that follows what was sent
before on the utterance's line (it starts with a space after an earlier word), so the finals of an
utterance concatenated are the line ``predict.py --stream --lookahead K`` writes for it. ``{"words": ""}``
changes nothing (in ``predict.py`` an empty line ends an utterance; here only ``{"end": true}`` does).

With a token, the handshake carries ``Authorization: Bearer TOKEN`` (refused with 401 before it is
accepted) or, from a browser, which cannot set that header, the first message is ``{"token": TOKEN}``:
anything else first (a wrong token, another message, bad JSON), or nothing within ``--auth_seconds``, gets
an error message and close code 1008. A bad query is refused with 422, a full model queue with 503 and
Retry-After; ``admission`` bounds how many streams are open.

Frames are read as they come, while the model works on earlier ones, so a client that leaves is seen at
once: its stream stops (the update on the model, if one runs, is its last). A bad message gets
``{"error": ...}`` and the stream goes on; so does a message over ``--max_frame_words`` words (or
``CHARS_PER_WORD`` characters a word), and one that would make the words waiting for the model more than
that (the client sends faster than the model restores): those are dropped, the error naming the limit.
Every update waits for a place on the model queue (a stream's words are never dropped for a busy queue).
When the server shuts down (``StreamSessions.drain``), each open stream gets the rest of its utterance with
``"end": true`` and is closed with 1001 (going away).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
from collections import Counter

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from gector_punct.service.contract import ClientError, StreamRequest, read_stream_message, read_stream_query
from gector_punct.service.limits import check_words
from gector_punct.service.replies import busy, error

log = logging.getLogger("gector_punct.service")
GOING_AWAY, POLICY_VIOLATION, INTERNAL_ERROR = 1001, 1008, 1011
CLOSING = ("closing", None, 0)  # put in a stream's inbox when the server shuts down


class StreamSessions:
    """The open streams of a service, and their endpoint (``serve``)."""

    def __init__(self, service):
        self.service = service
        self.open: set[StreamSession] = set()
        self.idle = asyncio.Event()
        self.idle.set()
        self.ids = itertools.count()
        self.per_worker: Counter[int] = Counter()  # open streams held by each worker
        self.background: set[asyncio.Task] = set()  # the workers forgetting closed streams

    async def serve(self, ws: WebSocket) -> None:
        service = self.service
        header = ws.headers.get("authorization")
        if header is not None and not service.authorised(header):
            return await ws.send_denial_response(error(401, "unauthorised: wrong token"))
        try:
            request = read_stream_query(dict(ws.query_params), service.settings.max_lookahead)
            service.reader(request.reading)
        except ClientError as err:
            return await ws.send_denial_response(error(err.status, err.message))
        if service.queue.full():
            return await ws.send_denial_response(busy("the model queue is full"))
        await ws.accept()
        worker = min(range(len(service.queue.workers)), key=self.per_worker.__getitem__)
        session = StreamSession(ws, service, request, next(self.ids), worker,
                                authorised=service.settings.token is None or header is not None)
        self.open.add(session)
        self.per_worker[worker] += 1
        self.idle.clear()
        try:
            await session.run()
        finally:
            self.open.discard(session)
            self.per_worker[worker] -= 1
            if session.opened:
                self.forget(session)
            if not self.open:
                self.idle.set()

    def forget(self, session: StreamSession) -> None:
        """Drop the stream's state from its worker, in the background."""
        task = asyncio.ensure_future(self.service.queue.run([("forget", (session.id,))], wait=True,
                                                            worker=session.worker))
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def drain(self, timeout: float) -> None:
        """Shutdown: every open stream ends its utterance and closes; waits up to ``timeout`` seconds."""
        for session in list(self.open):
            session.stop()
        try:
            await asyncio.wait_for(self.idle.wait(), timeout)
        except TimeoutError:
            log.error("%d stream(s) still open after %.0f s of shutdown", len(self.open), timeout)


class StreamSession:
    """One connection: its id and worker (which holds its ``Captions``), the messages waiting for the model
    (``inbox``, ``waiting``: their words), and whether the client has shown the token."""

    def __init__(self, ws: WebSocket, service, request: StreamRequest, stream_id: int, worker: int,
                 authorised: bool):
        self.ws, self.service, self.request, self.id, self.worker = ws, service, request, stream_id, worker
        self.settings = service.settings
        self.authorised, self.opened, self.stopping = authorised, False, asyncio.Event()
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.waiting = 0
        self.sending = asyncio.Lock()
        self.state = ws.scope.setdefault("state", {})
        self.state["lines"] = 0

    def stop(self) -> None:
        """The server is shutting down: finish the utterance after the messages already read, then close."""
        self.stopping.set()
        self.inbox.put_nowait(CLOSING)

    async def run(self) -> None:
        try:
            if not await self.authenticate():
                return
            reader, worker = asyncio.ensure_future(self.read()), asyncio.ensure_future(self.work())
            try:
                done, _ = await asyncio.wait({reader, worker}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                reader.cancel()
                worker.cancel()  # the client left: its update on the model queue is dropped
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()
        except WebSocketDisconnect:
            return  # the client left while words were being sent
        except Exception:  # noqa: BLE001 - logged; the stream closes, the server stays up
            log.exception("stream failed")
            if self.ws.application_state == WebSocketState.CONNECTED:
                await self.send({"error": "internal error (logged by the server)"})
                await self.ws.close(INTERNAL_ERROR)

    async def authenticate(self) -> bool:
        """With a token and no Authorization header: the first message must be the token, within
        ``--auth_seconds``; anything else closes the stream (1008). Whether the stream goes on."""
        if self.authorised:
            return True
        receive, stop = asyncio.ensure_future(self.ws.receive()), asyncio.ensure_future(self.stopping.wait())
        done, _ = await asyncio.wait({receive, stop}, timeout=self.settings.auth_seconds,
                                     return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if receive not in done:
            receive.cancel()
            if self.stopping.is_set():
                await self.ws.close(GOING_AWAY, "server shutting down")
                return False
            problem = f"no token within {self.settings.auth_seconds:g} s"
        else:
            message = receive.result()
            if message["type"] == "websocket.disconnect":
                return False
            problem = self.token_problem(message.get("text"))
            if problem is None:
                self.authorised = True
                return True
        await self.send({"error": f"unauthorised: {problem}; the first message must be {{\"token\": TOKEN}}"})
        await self.ws.close(POLICY_VIOLATION, "unauthorised")
        return False

    def token_problem(self, text: str | None) -> str | None:
        """Why a first message is not the token (None: it is)."""
        try:
            kind, value = read_stream_message(text) if text else ("binary", None)
        except ClientError:
            return "the first message is not a token"
        if kind != "token":
            return "the first message is not a token"
        return None if self.service.token_matches(value) else "wrong token"

    async def read(self) -> None:
        """Read frames into the inbox until the client leaves (then return)."""
        while True:
            message = await self.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            try:
                item = self.admit(message.get("text"))
            except ClientError as err:
                await self.send({"error": err.message})
                continue
            if item is not None:
                self.inbox.put_nowait(item)

    def admit(self, text: str | None) -> tuple[str, list[str] | None, int] | None:
        """A frame as an inbox item: (kind, words, its weight in ``waiting``: its words, at least 1), or None:
        nothing to do; ClientError when bad or over the limits."""
        if not text:
            raise ClientError(422, "send text frames of JSON, not binary ones")
        kind, value = read_stream_message(text)
        if kind == "token":
            return None  # a token once authorised changes nothing
        limit = self.settings.max_frame_words
        words = check_words(value, limit, "max_frame_words", "one message") if kind == "words" else 0
        weight = max(words, 1)
        if self.waiting + weight > limit:
            raise ClientError(413, f"{self.waiting} words of this stream wait for the model already: at most "
                                   f"{limit} may wait (--max_frame_words); this message was dropped")
        self.waiting += weight
        return kind, value, weight

    async def work(self) -> None:
        """The inbox's messages, one model update each, until the server shuts down."""
        while (item := await self.inbox.get()) is not CLOSING:
            kind, words, weight = item
            self.waiting -= weight
            if kind == "words" and words:
                message = await self.model("push", words)
                if message["final"]:
                    await self.send(message)
            elif kind == "end":
                await self.finish()
        if self.opened and (message := await self.model("end_open")) is not None:
            await self.ended(message)
        await self.ws.close(GOING_AWAY, "server shutting down")

    async def model(self, step: str, *args):
        """One step of this stream on its worker; waits for a place in the queue. The first one opens the
        stream there in the same job: a stream takes no place in the queue before it has words."""
        steps = [(step, (self.id, *args))]
        if not self.opened:
            steps.insert(0, ("open", (self.id, self.request.reading, self.request.lookahead, self.request.words)))
            self.opened = True  # from now on the worker may hold its state: forgotten when the stream closes
        *_, result = await self.service.queue.run(steps, wait=True, worker=self.worker)
        return result

    async def finish(self) -> None:
        """End the utterance: its last words, with ``"end": true``."""
        await self.ended(await self.model("end"))

    async def ended(self, message: dict) -> None:
        await self.send({**message, "end": True})
        self.state["lines"] += 1

    async def send(self, message: dict) -> None:
        async with self.sending:
            await self.ws.send_json(message)
