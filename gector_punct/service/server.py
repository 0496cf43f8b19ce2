"""``serve(settings, punctuator)``: the service on uvicorn until SIGTERM or Ctrl-C.

On SIGTERM, ``GracefulServer`` first closes the gate (``admission``: every new request, connection or
stream gets 503) while it still listens, lets every open stream end its utterance
(``StreamSessions.drain``: the rest of its words, ``"end": true``, close 1001) and waits for the requests
in flight, all within ``--shutdown_seconds``; then uvicorn stops listening and closes what is left. The
model workers stop once the server has.
"""
from __future__ import annotations

import logging
import socket
import time

import uvicorn

from gector_punct.prediction.punctuator import Punctuator
from gector_punct.service.app import Service
from gector_punct.service.settings import ServiceSettings

log = logging.getLogger("gector_punct.service")


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, service: Service):
        super().__init__(config)
        self.service = service

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        if self.started:  # listening: said only now (a busy port logged "serving" before failing)
            s = self.service.settings
            log.info("serving %s on http://%s:%d/", self.service.model_name, s.host, s.port)

    async def shutdown(self, sockets=None) -> None:
        start, seconds = time.monotonic(), self.service.settings.shutdown_seconds
        self.service.gate.close()
        await self.service.streams.drain(seconds)
        if not await self.service.gate.idle(max(0.0, seconds - (time.monotonic() - start))):
            log.error("%d request(s) and stream(s) still in flight after %.0f s of shutdown",
                      self.service.gate.in_flight, seconds)
        await super().shutdown(sockets)


def address_in_use(host: str, port: int) -> bool:
    """Whether ``host:port`` cannot be listened on now (checked before the model loads: uvicorn's own
    failure is a log line with an errno and exit 1, after the model has loaded)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def serve(settings: ServiceSettings, punctuator: Punctuator) -> None:
    """Serve until stopped. uvicorn raises the signal that stopped it again once it is done: the caller's
    SIGTERM handler decides the exit status."""
    service = Service(settings, punctuator)
    config = uvicorn.Config(service.app, host=settings.host, port=settings.port, access_log=False,
                            lifespan="off", ws_max_size=settings.max_body_bytes,
                            timeout_graceful_shutdown=1, log_level="warning")
    try:
        GracefulServer(config, service).run()
    finally:
        service.queue.close()
