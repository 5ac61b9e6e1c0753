"""Admission: a gateway process refuses new work beyond its capacity, before the
connections it already holds degrade.

An ASGI middleware in front of the whole app (gateway/server.py puts it there):

* a WebSocket opened while the process holds ``max_sockets`` of them is accepted and
  closed at once with code 1013 ("try again later", RFC 6455) and the reason
  ``at_capacity``: a browser's script sees the code (a refused handshake would show it
  only a 1006), and a client backs off and reconnects, landing on another gateway when
  there is one;
* an HTTP request arriving while ``max_requests`` are in flight is answered ``503`` with
  ``Retry-After`` and the error ``at_capacity``;
* ``/readyz`` answers ``503 at_capacity`` while the sockets are full, so a load balancer
  (a Kubernetes readiness probe) sends new connections to another gateway; ``/healthz``
  always passes (the process is alive, only full).

The counts are per process: ``orrery serve --gateways N`` runs N of them on one port.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog

from gateway.headers import headers_for

log = structlog.get_logger("orrery.gateway")

RETRY_AFTER_S = 5
WS_TRY_AGAIN_LATER = 1013  # RFC 6455: "Try Again Later"
AT_CAPACITY = "at_capacity"
_ALWAYS_ADMITTED = ("/healthz",)


def _refusal(message: str) -> bytes:
    return msgspec.json.encode({"error": AT_CAPACITY, "message": message})


class Admission:
    """Counts the open WebSockets and HTTP requests in flight, and refuses beyond the
    limits (see the module docstring)."""

    def __init__(self, app: Any, *, max_sockets: int, max_requests: int) -> None:
        self.app = app
        self.max_sockets = max_sockets
        self.max_requests = max_requests
        self.sockets = 0
        self.requests = 0
        self.refused = 0

    def full(self) -> bool:
        return self.sockets >= self.max_sockets

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "websocket":
            if self.full():
                await self._refuse_socket(receive, send)
                return
            self.sockets += 1
            try:
                await self.app(scope, receive, send)
            finally:
                self.sockets -= 1
            return
        if kind != "http":
            await self.app(scope, receive, send)  # lifespan
            return
        path = scope.get("path", "")
        if path not in _ALWAYS_ADMITTED:
            if path == "/readyz" and self.full():
                await self._refuse_request(scope, send, "this gateway holds all the sockets it may")
                return
            if self.requests >= self.max_requests:
                await self._refuse_request(scope, send, "this gateway is busy: try again later")
                return
        self.requests += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.requests -= 1

    async def _refuse_socket(self, receive: Any, send: Any) -> None:
        self.refused += 1
        if self.refused % 1000 == 1:  # one line per thousand, not a flood when full
            log.warning("socket_refused_at_capacity", sockets=self.sockets, refused=self.refused)
        message = await receive()
        if message.get("type") != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": WS_TRY_AGAIN_LATER, "reason": AT_CAPACITY})

    async def _refuse_request(self, scope: Any, send: Any, message: str) -> None:
        self.refused += 1
        body = _refusal(message)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(RETRY_AFTER_S).encode()),
            *headers_for(scope.get("path", "")),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
