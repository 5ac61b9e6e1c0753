"""Many processes, crashes and restarts under load (real servers on loopback).

- Two worker processes share the consumer groups; one is killed with SIGKILL in the
  middle of a load of many tables: every submitted command still gets exactly one
  outcome, every accepted command is in its table's log exactly once (at the seqs its
  outcome names), seqs are contiguous and the audit passes.
- The standalone server (AOF, ``appendfsync always``) is killed and restarted in the
  middle of a load: no accepted event is lost, and the workers and projector reconnect
  and finish every table.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from orrery.demo import play_table
from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Rejection, decode_entry

pytestmark = pytest.mark.service

PARTITIONS = 4
FAST = {"ORRERY_CLAIM_IDLE_MS": "1000", "ORRERY_LOG_LEVEL": "error"}


class RecordingClient(OrreryClient):
    """Remembers every command it submitted and the one outcome it settled on."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.submitted: dict[str, str] = {}  # command id -> table id
        self.outcomes: dict[str, Accepted | Rejection] = {}

    async def submit(  # type: ignore[override]
        self, table_id: str, body: Any, *, command_id: str | None = None, **kwargs: Any
    ) -> Accepted | Rejection:
        command_id = command_id or uuid.uuid4().hex
        assert command_id not in self.submitted
        self.submitted[command_id] = table_id
        outcome = await super().submit(
            table_id, body, command_id=command_id, timeout=kwargs.pop("timeout", 20.0), **kwargs
        )
        assert command_id not in self.outcomes
        self.outcomes[command_id] = outcome
        return outcome

    async def score(self, table_id: str) -> dict[str, Any] | None:
        return await _retrying(lambda: super(RecordingClient, self).score(table_id))

    async def view(self, table_id: str, seat: int | None = None) -> dict[str, Any] | None:
        return await _retrying(lambda: super(RecordingClient, self).view(table_id, seat))


async def _retrying(read: Any) -> Any:
    """A read retried while the server restarts (the demo's code does not expect it)."""
    for _ in range(100):
        try:
            return await read()
        except RedisConnectionError:
            await asyncio.sleep(0.1)
    return await read()


@contextmanager
def service(url: str, workers: int, projectors: int = 1) -> Iterator[list[subprocess.Popen[bytes]]]:
    asyncio.run(prepare(url, PARTITIONS))
    started = [spawn("worker", url, i, FAST) for i in range(workers)]
    started += [spawn("projector", url, i, FAST) for i in range(projectors)]
    try:
        yield started
    finally:
        stop_processes(started)


async def load(client: RecordingClient, tables: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    plan = ["tiny" if i % 2 else "spacecraft" for i in range(tables)]
    played = await asyncio.gather(
        *(play_table(client, game, 2, random.Random(rng.getrandbits(64))) for game in plan)
    )
    return [t.table_id for t in played]


async def check_logs(client: RecordingClient, table_ids: list[str]) -> int:
    """Every submission settled once; accepted ones are in the log once, at their seqs."""
    from services.audit import audit_entries

    assert set(client.outcomes) == set(client.submitted)
    accepted = {c: o for c, o in client.outcomes.items() if isinstance(o, Accepted)}
    events = 0
    for table_id in {*table_ids, *client.submitted.values()}:
        p = client.partition(table_id)
        raw = await client.redis.xrange(keys.log_stream(p, table_id))
        log = [decode_entry(fields[b"e"]) for _, fields in raw]
        events += len(log)
        assert [e.seq for e in log] == list(range(1, len(log) + 1))
        runs: dict[str, list[int]] = {}
        for entry in log:
            runs.setdefault(entry.command_id, []).append(entry.seq)
        mine = {c for c, t in accepted.items() if t.table_id == table_id}
        assert set(runs) == mine, f"{table_id}: log and accepted outcomes differ"
        for command_id, seqs in runs.items():
            outcome = accepted[command_id]
            assert seqs == list(range(outcome.first_seq, outcome.last_seq + 1))
        report = audit_entries(log)
        assert report.ok, report.failure
        stored = await client.redis.hget(keys.meta_hash(p, table_id), "phase")
        assert stored == b"finished"
    return events


def test_a_worker_killed_mid_load_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    async def run(url: str, processes: list[subprocess.Popen[bytes]]) -> None:
        async with RecordingClient(url) as client:
            playing = asyncio.create_task(load(client, tables=10, seed=8))
            while len(client.outcomes) < 120 and not playing.done():
                await asyncio.sleep(0.02)
            assert not playing.done(), "the load ended before the kill"
            os.kill(processes[0].pid, signal.SIGKILL)
            table_ids = await playing
            assert processes[0].wait() == -signal.SIGKILL
            assert processes[1].poll() is None
            events = await check_logs(client, table_ids)
            assert events > len(client.outcomes)
            for p in range(PARTITIONS):
                assert await client.redis.xlen(keys.dead_letter_stream(p)) == 0

    with EmbeddedServer(tmp_path) as server, service(server.url, workers=2) as processes:
        asyncio.run(run(server.url, processes))


def test_server_restart_with_aof_always_loses_no_accepted_event(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path, appendfsync="always").start()

    async def run(url: str) -> None:
        async with RecordingClient(url) as client:
            playing = asyncio.create_task(load(client, tables=8, seed=3))
            while len(client.outcomes) < 80 and not playing.done():
                await asyncio.sleep(0.02)
            assert not playing.done(), "the load ended before the restart"
            before = {c: o for c, o in client.outcomes.items() if isinstance(o, Accepted)}
            await asyncio.to_thread(server.kill)  # SIGKILL: a crash, not a clean shutdown
            await asyncio.sleep(0.5)
            await asyncio.to_thread(server.start)
            table_ids = await playing
            await check_logs(client, table_ids)
            # every outcome answered before the crash is still in the log
            for command_id, outcome in before.items():
                p = client.partition(outcome.table_id)
                top = await client.redis.xrevrange(keys.log_stream(p, outcome.table_id), count=1)
                assert int(top[0][0].split(b"-")[0]) >= outcome.last_seq, command_id

    try:
        with service(server.url, workers=1) as processes:
            asyncio.run(run(server.url))
            assert all(process.poll() is None for process in processes)
    finally:
        server.stop()


async def _views(client: RecordingClient, table_ids: list[str]) -> dict[str, list[Any]]:
    """Each table's spectator's and seats' views (None where missing)."""
    return {t: [await client.view(t, seat) for seat in (None, 0, 1)] for t in table_ids}


async def _views_caught_up(
    client: RecordingClient, table_ids: list[str], timeout: float = 30.0
) -> None:
    """Wait until every table's views show its log's head."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        behind = []
        for table_id in table_ids:
            p = client.partition(table_id)
            head = await client.redis.hget(keys.meta_hash(p, table_id), "seq")
            shown = await client.redis.get(keys.projection_seq_key(p, table_id, keys.VIEWS_GROUP))
            if int(shown or 0) < int(head):
                behind.append(table_id)
        if not behind:
            return
        assert loop.time() < deadline, f"views still behind: {behind}"
        await asyncio.sleep(0.1)


def test_views_left_out_of_the_aof_are_projected_again_after_a_restart(tmp_path: Path) -> None:
    """The views are not in the AOF (projections/views.lua). The server killed after a
    load and restarted from its AOF comes back without them; the running projector sees
    its partitions' views-written counts went back and writes them again with no new
    command, and so does a projector that starts after such a restart
    (projections/reverts.py)."""
    server = EmbeddedServer(tmp_path, appendfsync="always").start()

    async def play(url: str) -> tuple[list[str], dict[str, list[Any]]]:
        async with RecordingClient(url) as client:
            table_ids = await load(client, tables=4, seed=5)
            await _views_caught_up(client, table_ids)
            return table_ids, await _views(client, table_ids)

    async def restarted(url: str, table_ids: list[str], wait: bool) -> dict[str, list[Any]]:
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.start)
        async with RecordingClient(url) as client:
            if wait:
                await _views_caught_up(client, table_ids)
            return await _views(client, table_ids)

    async def projected_again(url: str, table_ids: list[str]) -> dict[str, list[Any]]:
        async with RecordingClient(url) as client:
            await _views_caught_up(client, table_ids)
            return await _views(client, table_ids)

    try:
        with service(server.url, workers=1):
            table_ids, shown = asyncio.run(play(server.url))
            aof = b"".join(f.read_bytes() for f in (tmp_path / "appendonlydir").iterdir())
            assert b":log" in aof and b":view:" not in aof
            assert asyncio.run(restarted(server.url, table_ids, wait=True)) == shown
        assert asyncio.run(restarted(server.url, table_ids, wait=False)) == {
            t: [None, None, None] for t in table_ids
        }
        with service(server.url, workers=0):
            assert asyncio.run(projected_again(server.url, table_ids)) == shown
    finally:
        server.stop()
