"""A private PostgreSQL server for tests, from Debian's ``postgresql`` package.

PostgreSQL refuses to run as root: the cluster is created (``initdb``, trust
authentication) and run as the ``postgres`` user the package creates (``runuser``) in a
temporary folder that user owns, on a free loopback port, with its socket in that
folder. It is stopped by its PID (SIGINT, the "fast" shutdown, then SIGKILL).
:meth:`PostgresServer.fresh_database` gives each test a database of its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from types import TracebackType

import psycopg

from orrery.server.embedded import free_port

USER = "postgres"


def postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"))
    if not found:
        raise RuntimeError(
            "PostgreSQL is missing: `python3 dev.py test` installs it "
            "(apt-get install -y postgresql)"
        )
    return found[-1].parent


def _as_postgres(*command: str) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", USER, "--", *command]
    return list(command)


class PostgresServer:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="orrery-pg-"))
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def start(self) -> PostgresServer:
        binaries = postgres_bin()
        data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, USER, USER)
        subprocess.run(
            _as_postgres(
                str(binaries / "initdb"), "-D", str(data), "-U", USER, "-A", "trust", "-E", "UTF8"
            ),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(5):
            self.port = free_port()
            if self._launch():
                return self
            self.stop()
        raise RuntimeError(f"PostgreSQL did not start: {(self.folder / 'server.log').read_text()}")

    def start_again(self) -> PostgresServer:
        """After :meth:`stop`: the same cluster on the same port (a server that was down)."""
        if not self._launch():
            raise RuntimeError(f"PostgreSQL did not start: {self.folder / 'server.log'}")
        return self

    def _launch(self) -> bool:
        binaries = postgres_bin()
        data = self.folder / "data"
        self.process = subprocess.Popen(
                _as_postgres(
                    str(binaries / "postgres"),
                    "-D", str(data),
                    "-p", str(self.port),
                    "-k", str(self.folder),
                    "-c", "listen_addresses=127.0.0.1",
                    "-c", "unix_socket_permissions=0700",
                    "-c", "fsync=off",
                    "-c", "max_connections=200",
                ),
                stdout=subprocess.DEVNULL,
                stderr=open(self.folder / "server.log", "ab"),  # noqa: SIM115
            )  # fmt: skip
        return self._ready()

    def _ready(self) -> bool:
        assert self.process is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    return True
            except psycopg.OperationalError:
                time.sleep(0.1)
        return False

    def fresh_database(self) -> str:
        """The URL of a new, empty database."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """A fast shutdown (SIGINT: sessions are ended) of the postmaster, by the PID in
        ``postmaster.pid`` (the child we started is ``runuser``); SIGKILL if it lingers."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pid = process.pid
        for sig in (signal.SIGINT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
        process.wait()

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
