"""The service's refusals: one-line JSON ``{"error": MESSAGE}`` responses."""
from __future__ import annotations

from starlette.responses import JSONResponse

RETRY_AFTER_SECONDS = 1  # what a 503 asks the client to wait


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": message}`` with ``status``; the message's whitespace folded onto one line."""
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status, headers=headers)


def busy(reason: str, close: bool = False) -> JSONResponse:
    """503 with ``Retry-After``: the model queue is full, or the server is shutting down (``close``: the
    connection is closed after it)."""
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} | ({"Connection": "close"} if close else {})
    return error(503, f"busy: {reason}; retry after {RETRY_AFTER_SECONDS} s", headers=headers)
