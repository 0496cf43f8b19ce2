"""``WebSocket /v1/stream``: live captions, one ``StreamingPunctuator`` per connection.

The client sends text frames ``{"words": "a few new words"}`` and ``{"end": true}`` at an utterance's end;
the server answers ``{"final": TEXT}`` whenever words become final and, after an end, ``{"final": TEXT,
"end": true}`` with the rest. TEXT is what ``streaming.Captions`` gives: the text that follows what was sent
before on the utterance's line (it starts with a space after an earlier word), so the finals of an
utterance concatenated are the line ``predict.py --stream --lookahead K`` writes for it. ``{"words": ""}``
changes nothing (in ``predict.py`` an empty line ends an utterance; here only ``{"end": true}`` does).

With a token, the handshake carries ``Authorization: Bearer TOKEN`` (refused with 401 before it is
accepted) or, from a browser, which cannot set that header, the first message is ``{"token": TOKEN}``
(a wrong one: an error message, then close code 1008). A bad query is refused with 422, a full model
queue with 503 and Retry-After; a bad message gets ``{"error": ...}`` and the stream goes on. Every push
and end runs on the model queue, waiting for a place (a stream's words are never dropped). When the
server shuts down (``StreamSessions.drain``), each open stream gets the rest of its utterance with
``"end": true`` and is closed with 1001 (going away).
"""
from __future__ import annotations

import asyncio
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from gector_punct.prediction.streaming import Captions, StreamingPunctuator
from gector_punct.service.contract import ClientError, read_stream_message, read_stream_query
from gector_punct.service.replies import busy, error

log = logging.getLogger("gector_punct.service")
GOING_AWAY, POLICY_VIOLATION, INTERNAL_ERROR = 1001, 1008, 1011


class StreamSessions:
    """The open streams of a service, and their endpoint (``serve``)."""

    def __init__(self, service):
        self.service = service
        self.closing = asyncio.Event()  # set once: the server is shutting down
        self.open: set[asyncio.Task] = set()
        self.idle = asyncio.Event()
        self.idle.set()

    async def serve(self, ws: WebSocket) -> None:
        service = self.service
        header = ws.headers.get("authorization")
        if header is not None and not service.authorised(header):
            return await ws.send_denial_response(error(401, "unauthorised: wrong token"))
        try:
            request = read_stream_query(dict(ws.query_params), service.settings.max_lookahead)
            reader = service.reader(request.reading)
        except ClientError as err:
            return await ws.send_denial_response(error(err.status, err.message))
        if self.closing.is_set():
            return await ws.send_denial_response(busy("the server is shutting down"))
        if service.queue.full():
            return await ws.send_denial_response(busy("the model queue is full"))
        await ws.accept()
        session = StreamSession(ws, Captions(StreamingPunctuator(reader, request.lookahead)), service,
                                authorised=service.settings.token is None or header is not None)
        self.open.add(asyncio.current_task())
        self.idle.clear()
        try:
            await session.run(self.closing)
        finally:
            self.open.discard(asyncio.current_task())
            if not self.open:
                self.idle.set()

    async def drain(self, timeout: float) -> None:
        """Shutdown: every open stream ends its utterance and closes; waits up to ``timeout`` seconds."""
        self.closing.set()
        try:
            await asyncio.wait_for(self.idle.wait(), timeout)
        except TimeoutError:
            log.error("%d stream(s) still open after %.0f s of shutdown", len(self.open), timeout)


class StreamSession:
    """One connection: its captions (``streaming.Captions``: the streamer and the current utterance's line)
    and whether the client has shown the token."""

    def __init__(self, ws: WebSocket, captions: Captions, service, authorised: bool):
        self.ws, self.captions, self.service, self.authorised = ws, captions, service, authorised
        self.state = ws.scope.setdefault("state", {})
        self.state["lines"] = 0

    async def run(self, closing: asyncio.Event) -> None:
        try:
            while (text := await self.next_text(closing)) is not None:
                if not await self.handle(text):
                    return
            if closing.is_set():
                if self.captions.open:
                    await self.finish()
                await self.ws.close(GOING_AWAY, "server shutting down")
        except WebSocketDisconnect:
            return  # the client left while words were being sent
        except Exception:  # noqa: BLE001 - logged; the stream closes, the server stays up
            log.exception("stream failed")
            if self.ws.application_state == WebSocketState.CONNECTED:
                await self.send({"error": "internal error (logged by the server)"})
                await self.ws.close(INTERNAL_ERROR)

    async def next_text(self, closing: asyncio.Event) -> str | None:
        """The next text frame (bytes frames: ``""``, refused by ``handle``); None once the client has left
        or the server is shutting down."""
        if closing.is_set():
            return None
        receive = asyncio.ensure_future(self.ws.receive())
        shutdown = asyncio.ensure_future(closing.wait())
        await asyncio.wait({receive, shutdown}, return_when=asyncio.FIRST_COMPLETED)
        shutdown.cancel()
        if not receive.done():
            receive.cancel()
            return None
        message = receive.result()
        if message["type"] == "websocket.disconnect":
            return None
        return message.get("text") or ""

    async def handle(self, text: str) -> bool:
        """Act on one frame; False when the stream must stop (closed for a wrong token)."""
        try:
            kind, value = read_stream_message(text) if text else (None, None)
            if kind is None:
                raise ClientError(422, "send text frames of JSON, not binary ones")
        except ClientError as err:
            await self.send({"error": err.message})
            return True
        if not self.authorised:
            if kind == "token" and self.service.token_matches(value):
                self.authorised = True
                return True
            await self.send({"error": "unauthorised: the first message must be {\"token\": TOKEN}"})
            await self.ws.close(POLICY_VIOLATION, "unauthorised")
            return False
        if kind == "words" and value:
            text = await self.service.queue.run(self.captions.push, value, wait=True)
            if text:
                await self.send({"final": text})
        elif kind == "end":
            await self.finish()
        return True  # a token once authorised changes nothing

    async def finish(self) -> None:
        """End the utterance: its last words, with ``"end": true``."""
        text = await self.service.queue.run(self.captions.finish, wait=True)
        await self.send({"final": text, "end": True})
        self.state["lines"] += 1

    async def send(self, message: dict) -> None:
        await self.ws.send_json(message)
