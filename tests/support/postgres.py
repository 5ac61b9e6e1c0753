"""A private PostgreSQL server for tests, from Debian's ``postgresql`` package.

PostgreSQL refuses to run as root: the cluster is created (``initdb``, trust
authentication) and run as the ``postgres`` user the package creates (``runuser``) in a
temporary folder that user owns, on a free loopback port, with its socket in that
folder. It is stopped by its PID (SIGTERM, the "smart" shutdown, then SIGKILL).
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
            if self._ready():
                return self
            self.stop()
        raise RuntimeError(f"PostgreSQL did not start: {(self.folder / 'server.log').read_text()}")

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
        """SIGTERM to the postmaster's PID (``postmaster.pid``; the child we started is
        ``runuser``), then SIGKILL if it does not end."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        pid_file = self.folder / "data" / "postmaster.pid"
        try:
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
        except (OSError, ValueError, IndexError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
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
