"""Operations: ``orrery status`` / ``orrery repair`` with a consumer group deleted by hand
(the NOGROUP pitfall), the workers' own group watchdog, the Prometheus endpoint, and
``orrery cluster up|down`` from the command line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import redis
from typer.testing import CliRunner

from orrery.cli import app
from orrery.ops.status import collect_status
from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.embedded import EmbeddedServer, free_port
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted
from tests.support import tables
from tests.support.tables import play_tiny
from tests.support.tinygame import Stand

pytestmark = pytest.mark.service

PARTITIONS = 4
runner = CliRunner()


def table_in(partition: int, prefix: str) -> str:
    return tables.table_in(partition, prefix, PARTITIONS)


def test_missing_group_status_repair_and_resume(tmp_path: Path) -> None:
    # the watchdog only restarts stopped subscribers here: `orrery repair` recreates groups
    env = {"ORRERY_LOG_LEVEL": "critical", "ORRERY_GROUP_WATCHDOG_S": "0"}
    with EmbeddedServer(tmp_path) as server:
        url = server.url
        asyncio.run(prepare(url, PARTITIONS))
        processes = [spawn("worker", url, 0, env), spawn("projector", url, 1, env)]
        try:
            asyncio.run(_missing_group(url))
        finally:
            stop_processes(processes)


async def _missing_group(url: str) -> None:
    async with OrreryClient(url) as client:
        seq = await play_tiny(client, table_in(2, "before"))
        # both processes are up (their start-up creates missing groups)
        await client.wait_view(table_in(2, "before"), None, seq, timeout=30)
        healthy = await asyncio.to_thread(runner.invoke, app, ["status", "--redis-url", url])
        assert healthy.exit_code == 0, healthy.output
        status = await collect_status(url)
        assert status.ok and sum(r.tables_finished for r in status.rows) == 1

        await client.redis.xgroup_destroy(keys.command_stream(2), keys.DECIDERS_GROUP)
        await client.redis.xgroup_destroy(keys.feed_stream(3), keys.PROJECTIONS_GROUP)
        broken = await asyncio.to_thread(
            runner.invoke, app, ["status", "--redis-url", url, "--json"]
        )
        assert broken.exit_code == 1
        doc = json.loads(broken.output)
        missing = [
            (row["partition"], g["group"])
            for row in doc["rows"]
            for g in row["groups"]
            if not g["exists"]
        ]
        assert sorted(missing) == [(2, "deciders"), (3, "projections")]

        # a command for partition 2 is not processed while its group is missing
        stuck_table = table_in(2, "during")
        stuck = asyncio.create_task(client.create_table("tiny", 2, table_id=stuck_table))
        await asyncio.sleep(1.0)
        assert not stuck.done()

        repaired = await asyncio.to_thread(runner.invoke, app, ["repair", "--redis-url", url])
        assert repaired.exit_code == 0 and "2 group(s) recreated" in repaired.output
        assert await asyncio.wait_for(stuck, 30) == stuck_table
        seq = await play_tiny(client, table_in(3, "after"))
        view = await client.wait_view(table_in(3, "after"), None, seq, timeout=30)
        assert view["phase"] == "finished"
        healthy = await asyncio.to_thread(runner.invoke, app, ["status", "--redis-url", url])
        assert healthy.exit_code == 0, healthy.output


def test_the_watchdog_recreates_a_lost_group_and_metrics_are_served(tmp_path: Path) -> None:
    port = free_port()
    env = {"ORRERY_LOG_LEVEL": "critical", "ORRERY_GROUP_WATCHDOG_S": "0.5"}
    with EmbeddedServer(tmp_path) as server:
        url = server.url
        asyncio.run(prepare(url, PARTITIONS))
        processes = [
            spawn("worker", url, 0, {**env, "ORRERY_METRICS_PORT": str(port)}),
            spawn("projector", url, 1, env),
        ]
        try:

            async def run() -> None:
                async with OrreryClient(url) as client:
                    seq = await play_tiny(client, table_in(0, "first"))
                    await client.wait_view(table_in(0, "first"), None, seq, timeout=30)
                    for p in range(PARTITIONS):
                        await client.redis.xgroup_destroy(
                            keys.command_stream(p), keys.DECIDERS_GROUP
                        )
                    table_id = table_in(1, "dog")
                    await play_tiny(client, table_id)
                    outcome = await client.submit(table_id, Stand(), seat=0, token="forged")
                    assert not isinstance(outcome, Accepted)

            asyncio.run(run())
            status = asyncio.run(collect_status(url))
            assert status.ok
            metrics = ""
            for _ in range(50):  # the gauges are refreshed by the watchdog's next pass
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5)
                metrics = text.read().decode()
                if "orrery_group_lag{" in metrics:
                    break
                time.sleep(0.1)
            assert 'orrery_commands_total{code="",outcome="accepted"} 12.0' in metrics
            assert 'outcome="rejected"' in metrics
            assert "orrery_append_seconds_count 12.0" in metrics
            assert (
                'orrery_group_lag{group="deciders",partition="0",stream_kind="commands"}' in metrics
            )
            assert 'orrery_process{consumer="' in metrics and 'role="worker"' in metrics
        finally:
            stop_processes(processes)


@pytest.mark.cluster
@pytest.mark.parametrize(
    "replicas",
    [
        0,
        # 6 nodes: 18 s on 2 cores. The same LocalCluster with replicas runs by default in
        # tests/test_cluster.py (WAIT) and tests/test_failover.py.
        pytest.param(1, marks=pytest.mark.slow),
    ],
)
def test_cluster_up_status_down_from_the_command_line(tmp_path: Path, replicas: int) -> None:
    state = tmp_path / "cluster"

    def orrery(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "orrery.cli", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )

    up = orrery("cluster", "up", "--state-dir", str(state), "--replicas", str(replicas))
    try:
        assert up.returncode == 0, up.stderr
        url = up.stdout.strip().splitlines()[-1]
        assert url.startswith("redis+cluster://127.0.0.1:")
        assert json.loads((state / "state.json").read_text())["url"] == url
        again = orrery("cluster", "up", "--state-dir", str(state))
        assert again.stdout.strip() == url  # already running: same cluster
        # never initialised: status says so (exit 2); after prepare it is healthy
        assert orrery("status", "--redis-url", url).returncode == 2
        asyncio.run(prepare(url, PARTITIONS))
        ok = orrery("status", "--redis-url", url, "--json")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        doc = json.loads(ok.stdout)
        # every node, masters first: replicas are listed whether or not gossip has told
        # the slot map about them yet (the cause of an earlier flaky run)
        roles = [n["role"] for n in doc["nodes"]]
        assert doc["cluster"] and roles == ["master"] * 3 + ["slave"] * (3 * replicas)
    finally:
        down = orrery("cluster", "down", "--state-dir", str(state))
    assert down.returncode == 0 and f"stopped {3 * (1 + replicas)} nodes" in down.stdout
    assert not (state / "state.json").exists()


async def test_trim_keeps_what_a_group_still_needs(tmp_path: Path) -> None:
    from orrery.ops.maintenance import trim_streams

    with EmbeddedServer(tmp_path) as server:
        await prepare(server.url, PARTITIONS)
        async with OrreryClient(server.url) as client:
            redis = client.redis
            stream = keys.command_stream(1)
            ids = [await redis.xadd(stream, {"__data__": b"x"}) for _ in range(10)]
            # 6 delivered, of which 4 acknowledged: entries 5.. are still needed
            batch = await redis.xreadgroup(keys.DECIDERS_GROUP, "c", {stream: ">"}, count=6)
            delivered = [entry_id for entry_id, _ in batch[0][1]]
            await redis.xack(stream, keys.DECIDERS_GROUP, *delivered[:4])
            removed = await trim_streams(server.url)
            assert removed == {stream: 4}
            left = [entry_id for entry_id, _ in await redis.xrange(stream)]
            assert left == ids[4:]
            # a missing group: nothing is trimmed there
            await redis.xgroup_destroy(stream, keys.DECIDERS_GROUP)
            assert stream not in await trim_streams(server.url)
            assert await redis.xlen(stream) == 6


def test_a_lost_feed_group_is_recreated_where_its_projection_stands(tmp_path: Path) -> None:
    """A projection group missing on a feed that has entries (a failover to a replica
    that never got the XGROUP CREATE, a restart without data) comes back just before the
    first entry its projection has not applied: nothing applied is read again, nothing
    unapplied is skipped, and the views end equal to their logs."""
    from projections.runner import feed_resume_id

    env = {"ORRERY_LOG_LEVEL": "critical", "ORRERY_GROUP_WATCHDOG_S": "0"}
    with EmbeddedServer(tmp_path) as server:
        url = server.url
        asyncio.run(prepare(url, PARTITIONS))
        worker = spawn("worker", url, 0, env)
        projector = spawn("projector", url, 1, env)
        try:

            async def run() -> None:
                nonlocal projector
                async with OrreryClient(url) as client:
                    feed = keys.feed_stream(2)
                    done = table_in(2, "done")
                    seq = await play_tiny(client, done)
                    await client.wait_view(done, None, seq, timeout=30)
                    for _ in range(100):  # the scoreboard too
                        score = await client.score(done)
                        if score is not None and score["seq"] == seq:
                            break
                        await asyncio.sleep(0.05)
                    applied_up_to = (await client.redis.xrevrange(feed, count=1))[0][0]

                    await asyncio.to_thread(stop_processes, [projector])
                    late = table_in(2, "late")
                    late_seq = await play_tiny(client, late)  # on the feed, not projected
                    for group in keys.PROJECTION_GROUPS:
                        await client.redis.xgroup_destroy(feed, group)
                        start = await feed_resume_id(client.redis, 2, group)
                        assert start == applied_up_to.decode()

                    repaired = await asyncio.to_thread(
                        runner.invoke, app, ["repair", "--redis-url", url]
                    )
                    assert repaired.exit_code == 0 and "1 group(s) recreated" in repaired.output
                    groups = {g["name"]: g for g in await client.redis.xinfo_groups(feed)}
                    for group in keys.PROJECTION_GROUPS:
                        assert groups[group.encode()]["last-delivered-id"] == applied_up_to

                    projector = spawn("projector", url, 1, env)
                    view = await client.wait_view(late, None, late_seq, timeout=30)
                    assert view["phase"] == "finished"
                    # no view of the finished table was written again
                    updates = await client.redis.xrange(keys.updates_stream(2, done))
                    assert [int(f[b"seq"]) for _, f in updates][-1] == seq
                    assert len({f[b"seq"] for _, f in updates}) == len(updates)

            asyncio.run(run())
        finally:
            stop_processes([worker, projector])


def test_a_feed_with_the_old_per_projection_groups_is_migrated(tmp_path: Path) -> None:
    """A data folder from before the one projections group: its feeds have a ``views``
    and a ``scoreboard`` group. The projector's start-up creates the one group just
    before the first entry a projection has not applied (here: the scoreboard is behind)
    and removes the old groups; the views and scores end equal to the logs, and nothing
    already applied is written again."""
    env = {"ORRERY_LOG_LEVEL": "critical", "ORRERY_GROUP_WATCHDOG_S": "0"}
    with EmbeddedServer(tmp_path) as server:
        url = server.url
        asyncio.run(prepare(url, PARTITIONS))
        worker = spawn("worker", url, 0, env)
        projector = spawn("projector", url, 1, env)
        try:

            async def run() -> None:
                nonlocal projector
                async with OrreryClient(url) as client:
                    done = table_in(2, "done")
                    seq = await play_tiny(client, done)
                    await client.wait_view(done, None, seq, timeout=30)
                    for _ in range(200):
                        score = await client.score(done)
                        if score is not None and score["seq"] == seq:
                            break
                        await asyncio.sleep(0.05)
                    await asyncio.to_thread(stop_processes, [projector])

                    # The old layout, as an older version left it: the views group has
                    # delivered everything, the scoreboard has not applied `done`'s end.
                    for p in range(PARTITIONS):
                        stream = keys.feed_stream(p)
                        await client.redis.xgroup_destroy(stream, keys.PROJECTIONS_GROUP)
                        await client.redis.xgroup_create(stream, keys.VIEWS_GROUP, id="$")
                        await client.redis.xgroup_create(stream, keys.SCOREBOARD_GROUP, id="$")
                    p = keys.partition_of(done, PARTITIONS)
                    score_seq = keys.projection_seq_key(p, done, keys.SCOREBOARD_GROUP)
                    await client.redis.set(score_seq, seq - 1)
                    await client.redis.delete(keys.score_key(p, done))
                    late = table_in(2, "late")
                    late_seq = await play_tiny(client, late)  # on the feed, not projected

                    projector = spawn("projector", url, 1, env)
                    view = await client.wait_view(late, None, late_seq, timeout=30)
                    assert view["phase"] == "finished"
                    for _ in range(200):
                        score = await client.score(done)
                        if score is not None and score["seq"] == seq:
                            break
                        await asyncio.sleep(0.05)
                    assert score is not None and score["seq"] == seq
                    for p in range(PARTITIONS):
                        names = {
                            g["name"] for g in await client.redis.xinfo_groups(keys.feed_stream(p))
                        }
                        assert names == {keys.PROJECTIONS_GROUP.encode()}
                    # `done`'s views were applied: not one of them was written again
                    updates = await client.redis.xrange(keys.updates_stream(2, done))
                    assert [int(f[b"seq"]) for _, f in updates][-1] == seq
                    assert len({f[b"seq"] for _, f in updates}) == len(updates)

            asyncio.run(run())
        finally:
            stop_processes([worker, projector])


def test_one_worker_exports_the_group_gauges_and_dead_consumers_are_removed(
    tmp_path: Path,
) -> None:
    ports = [free_port(), free_port()]
    env = {
        "ORRERY_LOG_LEVEL": "critical",
        "ORRERY_GROUP_WATCHDOG_S": "0.5",
        "ORRERY_DEAD_CONSUMER_S": "1",
    }
    with EmbeddedServer(tmp_path) as server:
        url = server.url
        asyncio.run(prepare(url, PARTITIONS))
        # a consumer of a process that is gone, with nothing pending
        client = redis.Redis.from_url(url)
        stream = keys.command_stream(0)
        client.xadd(stream, {"__data__": b"{}"})
        client.xreadgroup(keys.DECIDERS_GROUP, "ghost", {stream: ">"}, count=1)
        for entry_id in [e for e, _ in client.xrange(stream)]:
            client.xack(stream, keys.DECIDERS_GROUP, entry_id)
        processes = [
            spawn("worker", url, i, {**env, "ORRERY_METRICS_PORT": str(port)})
            for i, port in enumerate(ports)
        ]
        try:
            deadline = time.monotonic() + 60
            while True:
                pages = []
                for port in ports:
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as page:
                            pages.append(page.read().decode())
                    except OSError:
                        pages.append("")
                exporters = [p for p in pages if "orrery_group_lag{" in p]
                names = {c["name"] for c in client.xinfo_consumers(stream, keys.DECIDERS_GROUP)}
                if len(exporters) == 1 and b"ghost" not in names:
                    break
                assert time.monotonic() < deadline, (len(exporters), names)
                time.sleep(0.2)
            # never both: the lease names one exporter
            assert sum("orrery_group_lag{" in p for p in pages) == 1
        finally:
            stop_processes(processes)
            client.close()
