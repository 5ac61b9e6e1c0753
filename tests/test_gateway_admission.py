"""A gateway process's admission (gateway/admission.py) and its listening socket
(gateway/server.py), in this process: beyond its sockets a new one is closed with 1013
and /readyz answers 503 with Retry-After; beyond its requests in flight a request gets
503 with Retry-After; /healthz always passes; two processes may bind one port with
``reuse_port``. (The same against real gateway processes: tests/test_gateway_scale.py.)"""

from __future__ import annotations

import asyncio
import json
import resource
import socket
from typing import Any

import pytest

from gateway.admission import RETRY_AFTER_S, Admission
from gateway.server import bind, raise_open_files

pytestmark = pytest.mark.unit


class Held:
    """An app whose every call waits until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls += 1
        await self.release.wait()
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})


async def call(app: Any, scope: dict[str, Any], incoming: list[Any]) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def receive() -> Any:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def http(path: str) -> dict[str, Any]:
    return {"type": "http", "path": path, "method": "GET", "headers": []}


def status_of(sent: list[dict[str, Any]]) -> tuple[int, dict[bytes, bytes], Any]:
    start = sent[0]
    headers = dict(start["headers"])
    body = json.loads(sent[1]["body"]) if start["status"] == 503 else sent[1]["body"]
    return start["status"], headers, body


async def test_beyond_its_sockets_a_new_one_is_closed_1013_and_readyz_says_503() -> None:
    inner = Held()
    admission = Admission(inner, max_sockets=1, max_requests=10)
    connect = [{"type": "websocket.connect"}]
    held = asyncio.create_task(call(admission, {"type": "websocket", "path": "/x"}, connect))
    await asyncio.sleep(0)
    assert admission.sockets == 1 and inner.calls == 1
    refused = await call(admission, {"type": "websocket", "path": "/x"}, list(connect))
    assert refused == [
        {"type": "websocket.accept"},
        {"type": "websocket.close", "code": 1013, "reason": "at_capacity"},
    ]
    assert inner.calls == 1  # the app never saw it
    status, headers, body = status_of(await call(admission, http("/readyz"), []))
    assert status == 503 and body["error"] == "at_capacity" and body["message"]
    assert headers[b"retry-after"] == str(RETRY_AFTER_S).encode()
    assert headers[b"x-content-type-options"] == b"nosniff"
    inner.release.set()  # /healthz passes, full or not
    status, _, _ = status_of(await call(admission, http("/healthz"), []))
    assert status == 200
    await held
    assert admission.sockets == 0
    assert status_of(await call(admission, http("/readyz"), []))[0] == 200


async def test_beyond_its_requests_in_flight_a_request_gets_503_with_retry_after() -> None:
    inner = Held()
    admission = Admission(inner, max_sockets=10, max_requests=2)
    busy = [asyncio.create_task(call(admission, http("/v1/tables"), [])) for _ in range(2)]
    await asyncio.sleep(0)
    assert admission.requests == 2
    status, headers, body = status_of(await call(admission, http("/v1/tables"), []))
    assert (status, body["error"]) == (503, "at_capacity")
    assert headers[b"retry-after"] == b"5" and headers[b"cache-control"] == b"no-store"
    inner.release.set()
    for task in busy:
        assert status_of(await task)[0] == 200
    assert admission.requests == 0
    assert status_of(await call(admission, http("/v1/tables"), []))[0] == 200


def test_two_sockets_bind_one_port_with_reuse_port_and_not_without() -> None:
    first = bind("127.0.0.1", 0, reuse_port=True)
    try:
        port = first.getsockname()[1]
        second = bind("127.0.0.1", port, reuse_port=True)
        second.close()
        with pytest.raises(OSError):
            bind("127.0.0.1", port).close()
    finally:
        first.close()
    assert first.type == socket.SOCK_STREAM


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        if soft == hard and hard > 256:
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        now = raise_open_files()
        assert now == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert now == hard or hard == resource.RLIM_INFINITY
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
