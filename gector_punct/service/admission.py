"""Which requests and streams the service takes on, decided before any route sees them.

``Gate(settings)`` counts what is in flight: HTTP requests until their response is sent, streams until
they close, in all and per client address (``scope["client"]``: behind a proxy, the address it forwards,
see docs/service.md). ``Admission`` (ASGI middleware, ``Middleware(Admission, gate=gate)``) asks it about
each new request or stream handshake and refuses at once, with a one-line JSON error, one that would be
over ``max_connections`` (503 with Retry-After) or over ``max_client_connections`` for its address (429
with Retry-After); after ``gate.close()`` (SIGTERM) every new one gets 503 and ``Connection: close``, while
what is in flight goes on. ``await gate.idle(timeout)`` waits until nothing is in flight.
"""
from __future__ import annotations

import asyncio
from collections import Counter

from starlette.responses import Response
from starlette.websockets import WebSocket

from gector_punct.service.replies import RETRY_AFTER_SECONDS, busy, error


class Gate:
    def __init__(self, settings):
        self.settings = settings
        self.closing = False
        self.in_flight = 0
        self.per_client: Counter[str] = Counter()
        self._idle = asyncio.Event()
        self._idle.set()

    def refusal(self, client: str) -> Response | None:
        """The answer to a new request or stream from ``client``, when it is refused."""
        if self.closing:
            return busy("the server is shutting down", close=True)
        if self.in_flight >= self.settings.max_connections:
            return busy(f"{self.in_flight} requests and streams are open, the most this server holds "
                        "(--max_connections)")
        if self.per_client[client] >= self.settings.max_client_connections:
            return error(429, f"too many requests and streams open from {client}: at most "
                              f"{self.settings.max_client_connections} (--max_client_connections)",
                         headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        return None

    def enter(self, client: str) -> None:
        self.in_flight += 1
        self.per_client[client] += 1
        self._idle.clear()

    def leave(self, client: str) -> None:
        self.in_flight -= 1
        self.per_client[client] -= 1
        if not self.per_client[client]:
            del self.per_client[client]
        if not self.in_flight:
            self._idle.set()

    def close(self) -> None:
        self.closing = True

    async def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until nothing is in flight; whether that happened."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False


class Admission:
    def __init__(self, app, gate: Gate):
        self.app, self.gate = app, gate

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        client = (scope.get("client") or ("unknown",))[0]
        refusal = self.gate.refusal(client)
        if refusal is not None:
            if scope["type"] == "websocket":
                return await WebSocket(scope, receive, send).send_denial_response(refusal)
            return await refusal(scope, receive, send)
        self.gate.enter(client)
        try:
            await self.app(scope, receive, send)
        finally:
            self.gate.leave(client)
