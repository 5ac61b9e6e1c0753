"""Running the gateway under uvicorn on a socket bound here, so the URL printed is the
one really listened on (``--port 0``: a free port).

uvicorn logs some client faults with a traceback (a WebSocket text frame that is not
UTF-8: it closes the socket with 1007 and logs ``exception``). Its error log goes
through :class:`OneLine` instead: one structured line with the message and the error's
type, never a traceback (which could carry the frame's bytes).

A SIGTERM or SIGINT stops the gateway gracefully and the process exits 0, as a worker or
a projector does (:class:`Server`): uvicorn itself raises the signal again once it has
shut down, so the process died of it (exit 143 after a SIGTERM, which Kubernetes and
systemd report as a failure).

Many connections: the process raises its open-file limit to the hard limit
(:func:`raise_open_files`); with ``reuse_port`` the socket is bound with
``SO_REUSEPORT``, so several gateway processes listen on one port and the kernel spreads
new connections among them (``orrery serve --gateways N``); the app runs behind
:class:`gateway.admission.Admission` (503 / close 1013 beyond capacity). A WebSocket
whose client stops reading is closed (:class:`IdleClosing`): a keepalive ping goes out
every third of ``idle_s`` and a pong must come within two thirds of it, and a socket
whose unsent frames stay above the write buffer's mark for ``idle_s`` is aborted, its
buffer dropped (a plain close would wait for a reader that never comes). Per-message
compression is off unless asked for: its zlib state costs ~40 KiB per socket, more
than the rest of an idle socket together."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import signal
import socket
import threading
from collections.abc import Callable, Generator
from typing import Any

import structlog
import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from gateway.admission import Admission
from gateway.gc_tuning import tune_gc

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


class IdleClosing(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, aborting a socket whose client does not read: its
    write buffer above the high-water mark for :attr:`idle_s`, or a keepalive ping left
    unanswered (uvicorn's own close would wait for the buffer to drain, forever)."""

    idle_s = 60.0
    stall: asyncio.TimerHandle | None = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.stall is None:
            self.stall = self.loop.call_later(self.idle_s, self._abort, "write_stalled")

    def resume_writing(self) -> None:
        super().resume_writing()
        self._unstall()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        self._abort("ping_unanswered")

    def connection_lost(self, exc: Exception | None) -> None:
        self._unstall()
        super().connection_lost(exc)

    def _unstall(self) -> None:
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None

    def _abort(self, why: str) -> None:
        self.stall = None
        if self.transport is not None:
            log.info("socket_idle_closed", why=why)
            self.transport.abort()


def idle_protocol(idle_s: float) -> type[IdleClosing]:
    return type("IdleClosingProtocol", (IdleClosing,), {"idle_s": idle_s})


def raise_open_files() -> int:
    """Raise this process's open-file limit to its hard limit (children inherit it);
    the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def bind(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:  # other gateway processes bind the same port (the kernel balances)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    # Accepted connections inherit it: without it a response written in two parts (head,
    # body) waits for the client's delayed ACK (~40 ms) on every keep-alive request.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(4096)
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
    reuse_port: bool = False,
    max_sockets: int = 10_000,
    max_requests: int = 1_000,
    idle_s: float = 60.0,
    compression: bool = False,
) -> None:
    """Serve until SIGINT/SIGTERM; ``on_ready(url)`` once up."""
    raise_open_files()
    tune_gc()
    sock = bind(host, port, reuse_port=reuse_port)
    url = base_url(host, sock.getsockname()[1])
    config = uvicorn.Config(
        Admission(app, max_sockets=max_sockets, max_requests=max_requests),
        lifespan="on",
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        ws=idle_protocol(idle_s),
        ws_max_size=max_message_bytes,
        ws_ping_interval=idle_s / 3,
        ws_ping_timeout=idle_s * 2 / 3,
        ws_per_message_deflate=compression,
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
