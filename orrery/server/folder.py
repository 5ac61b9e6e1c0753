"""One embedded server per data folder.

Every command run without a URL uses the embedded server of its data folder: the
running one if there is one (``orrery serve`` in another terminal), else one it starts
for as long as it runs. The process that owns the server holds an exclusive ``flock`` on
``<data>/server.lock`` and records ``{"url", "owner_pid", "server_pid"}`` in
``<data>/server.json``; a command that cannot take the lock reads the record and uses
that URL. The operating system releases the lock when its owner dies, so a record
whose lock is free is stale: its server (left running by an owner killed with SIGKILL)
is stopped before a new one starts on the same files — two servers on one AOF would
each lose the other's writes.

The server runs with the folder's ACL users (orrery/server/credentials.py): the record
names the operator user without its password, which each command reads from
``<data>/credentials.json``; the URL yielded here carries it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis

from orrery.arguments import check_port
from orrery.errors import UserError
from orrery.server.cluster import process_alive
from orrery.server.credentials import ensure_users, shown_url, with_folder_password
from orrery.server.embedded import NO_RETRY, EmbeddedServer

LOCK = "server.lock"
RECORD = "server.json"
RECORD_WAIT_S = 15.0


@contextlib.contextmanager
def folder_server(
    data_dir: Path, port: int | None = None, appendfsync: str = "everysec"
) -> Iterator[str]:
    """The URL of the data folder's server, started here if none is running."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield _running_url(data_dir)
            return
        _stop_stale_server(data_dir)
        check_port(port, "--port")
        users = ensure_users(data_dir)
        with EmbeddedServer(data_dir, port, appendfsync=appendfsync, users=users) as server:
            record = data_dir / RECORD
            assert server.process is not None
            doc = {
                "url": shown_url(server.url),
                "owner_pid": os.getpid(),
                "server_pid": server.process.pid,
            }
            record.write_text(json.dumps(doc))
            try:
                yield server.url
            finally:
                record.unlink(missing_ok=True)
    finally:
        os.close(fd)  # releases the lock


def _running_url(data_dir: Path) -> str:
    """The URL another process's server of this folder answers on."""
    deadline = time.monotonic() + RECORD_WAIT_S
    while True:
        doc = _record(data_dir)
        if doc is not None and _answers(url := with_folder_password(str(doc["url"]), data_dir)):
            return url
        if time.monotonic() > deadline:
            raise UserError(
                f"the server of {data_dir} is starting or stuck (its lock is held but it does "
                f"not answer); wait, or stop the other orrery process using that folder"
            )
        time.sleep(0.1)


def _stop_stale_server(data_dir: Path) -> None:
    doc = _record(data_dir)
    if doc is None:
        return
    pid = int(doc.get("server_pid") or 0)
    if pid and _answers(with_folder_password(str(doc["url"]), data_dir)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    (data_dir / RECORD).unlink(missing_ok=True)


def _record(data_dir: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((data_dir / RECORD).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) and "url" in doc else None


def _answers(url: str) -> bool:
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2, retry=NO_RETRY)
    try:
        return bool(client.ping())
    except redis.exceptions.RedisError:
        return False
    finally:
        client.close()
