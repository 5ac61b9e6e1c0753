"""A live service for tests: a private embedded server plus worker/projector processes."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.embedded import EmbeddedServer

PARTITIONS = 4
REPO = Path(__file__).resolve().parents[2]


class LiveService:
    def __init__(self, server: EmbeddedServer) -> None:
        self.server = server
        self.url = server.url
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, role: str, **env: str) -> subprocess.Popen[bytes]:
        # The children import the test game from this checkout.
        env = {"PYTHONPATH": str(REPO), **env}
        process = spawn(role, self.url, len(self.processes), extra_env=env)
        self.processes.append(process)
        return process

    def alive(self, role_process: subprocess.Popen[bytes]) -> bool:
        return role_process.poll() is None

    def sync_redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)


@contextmanager
def live_service(
    data_dir: Path, workers: int = 1, projectors: int = 1, **env: str
) -> Iterator[LiveService]:
    with EmbeddedServer(data_dir) as server:
        asyncio.run(prepare(server.url, PARTITIONS))
        service = LiveService(server)
        try:
            for _ in range(workers):
                service.start("worker", **env)
            for _ in range(projectors):
                service.start("projector", **env)
            yield service
        finally:
            stop_processes(service.processes)
