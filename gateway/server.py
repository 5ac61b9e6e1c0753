"""Running the gateway under uvicorn on a socket bound here, so the URL printed is the
one really listened on (``--port 0``: a free port).

uvicorn logs some client faults with a traceback (a WebSocket text frame that is not
UTF-8: it closes the socket with 1007 and logs ``exception``). Its error log goes
through :class:`OneLine` instead: one structured line with the message and the error's
type, never a traceback (which could carry the frame's bytes).

A SIGTERM or SIGINT stops the gateway gracefully and the process exits 0, as a worker or
a projector does (:class:`Server`): uvicorn itself raises the signal again once it has
shut down, so the process died of it (exit 143 after a SIGTERM, which Kubernetes and
systemd report as a failure)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
from collections.abc import Callable, Generator
from typing import Any

import structlog
import uvicorn

log = structlog.get_logger("orrery.gateway")


class OneLine(logging.Filter):
    """Turns a uvicorn log record carrying an exception into one structured line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info:
            return True
        error = record.exc_info[1]
        log.warning(
            "server_refused",
            message=record.getMessage()[:200],
            error=type(error).__name__ if error is not None else "",
        )
        return False


class Server(uvicorn.Server):
    """uvicorn's server, whose stop on a signal ends the process normally: the signal
    starts the graceful shutdown (a second SIGINT forces it), and is not raised again
    after it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # (signals reach the main thread only)
            return
        stops = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in stops}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it a response written in two parts (head,
    # body) waits for the client's delayed ACK (~40 ms) on every keep-alive request.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def serve(
    app: Any,
    host: str,
    port: int,
    *,
    max_message_bytes: int,
    on_ready: Callable[[str], None],
) -> None:
    """Serve until SIGINT/SIGTERM; ``on_ready(url)`` once up."""
    sock = bind(host, port)
    url = base_url(host, sock.getsockname()[1])
    config = uvicorn.Config(
        app,
        lifespan="on",
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        ws_max_size=max_message_bytes,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
    )
    logging.getLogger("uvicorn.error").addFilter(OneLine())
    server = Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task  # startup failed: raise its error
            raise RuntimeError("the gateway stopped during its start")
        await asyncio.sleep(0.02)
    on_ready(url)
    await task
