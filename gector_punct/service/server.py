"""``serve(settings, punctuator)``: the service on uvicorn until SIGTERM or Ctrl-C.

On SIGTERM uvicorn stops accepting connections and waits for the requests in flight; before that,
``GracefulServer`` lets every open stream end its utterance (``StreamSessions.drain``: the rest of its
words, ``"end": true``, close 1001). The model worker stops once the server has.
"""
from __future__ import annotations

import logging

import uvicorn

from gector_punct.prediction.punctuator import Punctuator
from gector_punct.service.app import Service
from gector_punct.service.settings import ServiceSettings

log = logging.getLogger("gector_punct.service")


class GracefulServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, service: Service):
        super().__init__(config)
        self.service = service

    async def shutdown(self, sockets=None) -> None:
        await self.service.streams.drain(self.service.settings.shutdown_seconds)
        await super().shutdown(sockets)


def serve(settings: ServiceSettings, punctuator: Punctuator) -> None:
    """Serve until stopped. uvicorn raises the signal that stopped it again once it is done: the caller's
    SIGTERM handler decides the exit status."""
    service = Service(settings, punctuator)
    config = uvicorn.Config(service.app, host=settings.host, port=settings.port, access_log=False,
                            lifespan="off", ws_max_size=settings.max_body_bytes,
                            timeout_graceful_shutdown=int(settings.shutdown_seconds) or 1, log_level="warning")
    log.info("serving %s on http://%s:%d/", service.model_name, settings.host, settings.port)
    try:
        GracefulServer(config, service).run()
    finally:
        service.queue.close(settings.shutdown_seconds)
