"""Operations: ``orrery cluster up|down``, ``orrery status``, ``orrery repair`` and
``orrery bench scale`` (README: "Scaling and operations", docs/scaling.md).

``status`` reads, per partition, the command stream's length, every consumer group's
``pending`` and ``lag`` (``XINFO GROUPS``), the dead-letter count and the tables live /
finished, and exits non-zero when a group is missing — the NOGROUP pitfall: FastStream
logs NOGROUP forever if the server lost a group. ``repair`` recreates missing groups:
``deciders`` at ``0`` (settled commands are deleted, and commands are deduplicated), a
projection group where its projection stands (``projections.runner.feed_resume_id``).
Worker and projector processes run the same check every few seconds
(:func:`group_watchdog`).

On a cluster the watchdog also follows the topology (:func:`follow_topology`): it polls
the slot map, and when a failover has given slots to another master it refreshes the
broker's slot map, makes sure the groups exist on the new master, and restarts the
FastStream subscribers, so they read from the promoted replica at once instead of
after FastStream's 5 s back-off per failed read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import redis.asyncio as aioredis
import structlog
import typer
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError, ResponseError

from contracts import keys
from orrery.cluster import (
    STATE_DIR,
    LocalCluster,
    is_cluster,
    open_redis,
    read_topology,
    url_nodes,
)
from orrery.config import DATA_DIR, redis_url_from_env
from orrery.logs import configure_logging

log = structlog.get_logger("orrery.ops")

WATCHDOG_SECONDS = float(os.environ.get("ORRERY_GROUP_WATCHDOG_S", "5"))
TOPOLOGY_POLL_S = float(os.environ.get("ORRERY_TOPOLOGY_POLL_S", "0.5"))
# a consumer idle this long with nothing pending is a process that is gone
DEAD_CONSUMER_IDLE_MS = int(float(os.environ.get("ORRERY_DEAD_CONSUMER_S", "3600")) * 1000)

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        help="Redis/Valkey URL or cluster node list (default: $ORRERY_REDIS_URL, else the "
        "local cluster, else the data folder's embedded server)",
    ),
]
DataDirOption = Annotated[
    Path, typer.Option("--data-dir", help="embedded server's data folder (without a URL)")
]


# --------------------------------------------------------------------------- status


@dataclass
class GroupStatus:
    stream: str
    group: str
    exists: bool
    pending: int = 0
    lag: int | None = 0  # None: the server cannot tell (entries were deleted mid-range)
    consumers: int = 0


@dataclass
class PartitionStatus:
    partition: int
    node: str = ""  # on a cluster: the master serving the partition's slot
    commands: int = 0  # entries in the command stream (trimmed only by an operator)
    backlog: int = 0  # commands not yet answered: deciders' lag + pending
    dead_letters: int = 0
    tables_live: int = 0
    tables_finished: int = 0
    groups: list[GroupStatus] = field(default_factory=list)


@dataclass
class Status:
    url: str
    cluster: bool
    partitions: int
    nodes: list[dict[str, Any]]
    rows: list[PartitionStatus]

    @property
    def missing(self) -> list[GroupStatus]:
        return [g for row in self.rows for g in row.groups if not g.exists]

    @property
    def ok(self) -> bool:
        return not self.missing


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def group_status(redis: Any, stream: str, groups: tuple[str, ...]) -> list[GroupStatus]:
    try:
        infos = await redis.xinfo_groups(stream)
    except ResponseError:  # no such key: every group is missing
        infos = []
    found = {_text(info["name"]): info for info in infos}
    out = []
    for group in groups:
        info = found.get(group)
        if info is None:
            out.append(GroupStatus(stream, group, exists=False))
            continue
        lag = info.get("lag")
        out.append(
            GroupStatus(
                stream,
                group,
                exists=True,
                pending=int(info.get("pending", 0)),
                lag=None if lag is None else int(lag),
                consumers=int(info.get("consumers", 0)),
            )
        )
    return out


async def partition_status(redis: Any, p: int, tables: bool = True) -> PartitionStatus:
    row = PartitionStatus(partition=p)
    row.commands = int(await redis.xlen(keys.command_stream(p)))
    row.groups = await group_status(redis, keys.command_stream(p), (keys.DECIDERS_GROUP,))
    row.groups += await group_status(redis, keys.feed_stream(p), keys.PROJECTION_GROUPS)
    deciders = row.groups[0]
    row.backlog = deciders.pending + (deciders.lag or 0) if deciders.exists else row.commands
    row.dead_letters = int(await redis.xlen(keys.dead_letter_stream(p)))
    if tables:
        members = [_text(m) for m in await redis.smembers(keys.tables_set(p))]
        if members:
            # one slot ({p}): a pipeline is fine on a cluster too
            pipe = redis.pipeline(transaction=False)
            for table_id in members:
                pipe.hget(keys.meta_hash(p, table_id), "phase")
            phases = await pipe.execute()
            # a lobby closed unstarted (table.closed) is over too
            row.tables_finished = sum(1 for ph in phases if ph in (b"finished", b"closed"))
            row.tables_live = len(members) - row.tables_finished
    return row


async def server_nodes(redis: Any, cluster: bool) -> list[dict[str, Any]]:
    """Version, role and durability settings of every node: the server, or each node of a
    cluster as ``CLUSTER NODES`` lists it (masters first, then replicas, each by address).

    ``CLUSTER NODES`` is used rather than the client's slot map because ``CLUSTER SLOTS``
    leaves out a replica until gossip reports its first replication offset, so the slot
    map's node list changes while a fresh cluster settles (the race that made the status
    test flaky)."""
    if not cluster:
        return [_node_row("server", await redis.info("all"))]
    listed = await redis.cluster_nodes()
    rows: list[tuple[int, str, dict[str, Any]]] = []
    for address, node in listed.items():
        host, _, port = address.rpartition(":")
        flags = str(node.get("flags", ""))
        name = f"{host}:{port.split('@')[0]}"
        info: dict[str, Any]
        if "fail" in flags.split(",") or "noaddr" in flags:
            info = {"role": "unreachable"}
        else:
            info = await _direct_info(redis, name)
        rank = 0 if info.get("role") == "master" else 1
        rows.append((rank, name, _node_row(name, info)))
    return [row for _, _, row in sorted(rows, key=lambda r: (r[0], r[1]))]


def _node_row(name: str, info: dict[str, Any]) -> dict[str, Any]:
    return {
        "node": name,
        "role": info.get("role"),
        "version": info.get("valkey_version") or info.get("redis_version"),
        "aof_enabled": info.get("aof_enabled"),
        "used_memory": info.get("used_memory"),
        "keys": sum(
            int(v.get("keys", 0))
            for k, v in info.items()
            if k.startswith("db") and isinstance(v, dict)
        ),
    }


async def _direct_info(redis: Any, address: str) -> dict[str, Any]:
    """INFO from one node over a plain connection with the cluster client's credentials
    (a replica may not be in the client's slot map yet)."""
    host, _, port = address.rpartition(":")
    options = {
        k: v
        for k, v in redis.connection_kwargs.items()
        if k in ("username", "password", "ssl") and v
    }
    direct = aioredis.Redis(
        host=host, port=int(port), socket_connect_timeout=2, retry=Retry(NoBackoff(), 0), **options
    )
    try:
        return dict(await direct.info("all"))
    except RedisError:
        return {"role": "unreachable"}
    finally:
        await direct.aclose()


async def collect_status(url: str, tables: bool = True) -> Status:
    redis = open_redis(url)
    try:
        stored = await redis.hget(keys.CONFIG_KEY, "partitions")
        partitions = int(stored) if stored is not None else 0
        rows = [await partition_status(redis, p, tables) for p in range(partitions)]
        cluster = is_cluster(url)
        if cluster:
            for row in rows:
                row.node = redis.get_node_from_key(keys.command_stream(row.partition)).name
        nodes = await server_nodes(redis, cluster)
        return Status(url, cluster, partitions, nodes, rows)
    finally:
        await redis.aclose()


async def repair_groups(url: str, partitions: int | None = None) -> list[str]:
    """Recreate every missing consumer group (at 0); returns what was created. Records
    ``partitions`` as P when the data is new (a different P than the stored one fails)."""
    from orrery.config import ensure_partitions
    from projections.runner import ensure_feed_groups
    from services.intake import ensure_command_groups

    redis = open_redis(url)
    try:
        p = await ensure_partitions(redis, partitions)
        created = await ensure_command_groups(redis, p)
        created = [f"{stream} {keys.DECIDERS_GROUP}" for stream in created]
        created += await ensure_feed_groups(redis, p)
        return created
    finally:
        await redis.aclose()


async def trim_streams(url: str) -> dict[str, int]:
    """Trim each command stream and feed to the oldest entry one of its groups still needs
    (pending, or not yet delivered); returns entries removed per stream. Never touches logs.
    """
    redis = open_redis(url)
    removed: dict[str, int] = {}
    try:
        stored = await redis.hget(keys.CONFIG_KEY, "partitions")
        for p in range(int(stored or 0)):
            streams = [
                (keys.command_stream(p), (keys.DECIDERS_GROUP,)),
                (keys.feed_stream(p), keys.PROJECTION_GROUPS),
            ]
            for stream, groups in streams:
                keep = await _oldest_needed(redis, stream, groups)
                if keep is None:
                    continue
                count = int(await redis.xtrim(stream, minid=keep, approximate=False))
                if count:
                    removed[stream] = count
        return removed
    finally:
        await redis.aclose()


async def _oldest_needed(redis: Any, stream: str, groups: tuple[str, ...]) -> str | None:
    """The smallest id any group still needs; None when a group is missing (keep all)."""
    try:
        infos = {_text(i["name"]): i for i in await redis.xinfo_groups(stream)}
    except ResponseError:
        return None
    candidates: list[tuple[int, int]] = []
    for group in groups:
        info = infos.get(group)
        if info is None:
            return None
        last = _id(_text(info["last-delivered-id"]))
        candidates.append((last[0], last[1] + 1))  # the next undelivered entry
        pending = await redis.xpending(stream, group)
        if pending and pending.get("pending"):
            candidates.append(_id(_text(pending["min"])))
    ms, seq = min(candidates)
    return f"{ms}-{seq}"


def _id(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


async def group_watchdog(
    url: str,
    partitions: int,
    role: str,
    broker: Any = None,
    interval: float = WATCHDOG_SECONDS,
    consumer: str = "",
) -> None:
    """In each worker/projector process, once a second: restart subscribers FastStream
    stopped on NOGROUP once their group exists again (after `orrery repair` or this
    watchdog recreated it); every ``interval`` seconds (0: never) recreate missing groups
    at 0. One process per role (the holder of the role's lease, ``orrery:exporter:<role>``)
    also removes its groups' dead consumers, and the workers' holder alone exports the
    group gauges (so the cluster-wide lag is exported once, not by every process)."""
    from projections.runner import ensure_feed_groups
    from services import metrics
    from services.intake import ensure_command_groups

    redis = open_redis(url)
    tick = min(interval, 1.0) if interval > 0 else 1.0
    last_full = time.monotonic()
    follower = None
    if broker is not None and is_cluster(url):
        follower = asyncio.create_task(follow_topology(url, partitions, role, broker))
    try:
        while True:
            await asyncio.sleep(tick)
            try:
                if interval > 0 and time.monotonic() - last_full >= interval:
                    last_full = time.monotonic()
                    if role == "worker":
                        created = await ensure_command_groups(redis, partitions)
                    else:
                        created = await ensure_feed_groups(redis, partitions)
                    if created:
                        log.warning("consumer_groups_recreated", groups=created)
                    leader = bool(consumer) and await holds_lease(
                        redis, role, consumer, interval * 3
                    )
                    if leader:
                        removed = await remove_dead_consumers(redis, partitions, role)
                        if removed:
                            log.info("dead_consumers_removed", consumers=removed)
                    if metrics.serving():
                        if leader and role == "worker":
                            rows = [
                                await partition_status(redis, p, False) for p in range(partitions)
                            ]
                            metrics.export_status(rows)
                        else:
                            metrics.clear_status()
                if broker is not None:
                    await restart_stopped_subscribers(redis, broker)
            except (RedisError, OSError) as error:
                log.warning("group_watchdog_failed", error=str(error))
            except Exception:
                log.exception("group_watchdog_error")
    finally:
        if follower is not None:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
        await redis.aclose()


async def holds_lease(redis: Any, role: str, consumer: str, ttl_s: float) -> bool:
    """Whether this process is its role's exporter: it takes the lease when it is free and
    renews it while it holds it (a dead holder's lease runs out after ``ttl_s``)."""
    key = f"orrery:exporter:{role}"
    ttl_ms = max(int(ttl_s * 1000), 1000)
    if await redis.set(key, consumer, nx=True, px=ttl_ms):
        return True
    holder = await redis.get(key)
    if holder is not None and _text(holder) == consumer:
        await redis.pexpire(key, ttl_ms)
        return True
    return False


async def remove_dead_consumers(
    redis: Any, partitions: int, role: str, idle_ms: int = DEAD_CONSUMER_IDLE_MS
) -> list[str]:
    """Delete the role's consumers idle longer than ``idle_ms`` with nothing pending (a
    process that is gone; one with pending entries stays until its claimer moves them)."""
    groups = (
        [(keys.command_stream(p), keys.DECIDERS_GROUP) for p in range(partitions)]
        if role == "worker"
        else [(keys.feed_stream(p), g) for p in range(partitions) for g in keys.PROJECTION_GROUPS]
    )
    removed = []
    for stream, group in groups:
        try:
            consumers = await redis.xinfo_consumers(stream, group)
        except ResponseError:
            continue  # no such group: the watchdog recreates it
        for info in consumers:
            if int(info.get("pending", 0)) == 0 and int(info.get("idle", 0)) > idle_ms:
                name = _text(info["name"])
                await redis.xgroup_delconsumer(stream, group, name)
                removed.append(f"{stream}/{group}/{name}")
    return removed


async def follow_topology(
    url: str, partitions: int, role: str, broker: Any, poll: float = TOPOLOGY_POLL_S
) -> None:
    """Poll the cluster's slot map; after a failover, resubscribe on the new masters.

    FastStream's stream subscribers read through the broker's ``RedisCluster``, which
    refreshes its slot map only after a failed command, and a subscriber whose read
    failed sleeps 5 s before the next one; while the dead master is not yet replaced,
    every read fails (connection refused, then ``CLUSTERDOWN``). So once the map is
    healthy again with other masters than the broker started on, every stream
    subscriber is restarted on the refreshed map (a graceful stop lets the messages
    being handled finish)."""
    seeds, username, password = url_nodes(url)
    known = list(seeds)
    current = _masters_of(broker._connection)  # what the subscribers started on
    while True:
        await asyncio.sleep(poll)
        try:
            topology = await read_topology(known, username, password)
        except (RedisError, OSError):
            continue
        for address in topology.nodes:
            host, _, port = address.rpartition(":")
            if (host, int(port)) not in known:
                known.append((host, int(port)))
        if not topology.healthy or topology.masters == current:
            continue
        try:
            restarted = await resubscribe(broker, role, partitions)
        except (RedisError, OSError) as error:
            log.warning("resubscribe_failed", error=str(error))
            continue  # the next poll tries again
        except Exception:
            log.exception("resubscribe_error")
            continue
        log.warning(
            "topology_changed",
            masters=sorted(set(topology.masters.values())),
            before=sorted(set(current.values())),
            restarted=restarted,
        )
        current = topology.masters


def _masters_of(client: Any) -> dict[tuple[int, int], str]:
    """A cluster client's slot map as (first slot, last slot) -> master address."""
    ranges: dict[tuple[int, int], str] = {}
    first, owner = 0, None
    slots = client.nodes_manager.slots_cache
    for slot in range(16384 + 1):
        nodes = slots.get(slot) if slot < 16384 else None
        name = nodes[0].name if nodes else None
        if name != owner:
            if owner is not None:
                ranges[(first, slot - 1)] = owner
            first, owner = slot, name
    return ranges


async def resubscribe(broker: Any, role: str, partitions: int) -> int:
    """Refresh the broker's slot map, make sure every group exists (a started FastStream
    subscriber would create a missing one at ``$`` and skip entries), then restart every
    running stream subscriber; returns how many were restarted."""
    from projections.runner import ensure_feed_groups
    from services.intake import ensure_command_groups

    client = broker._connection
    await client.nodes_manager.initialize()
    if role == "worker":
        created = await ensure_command_groups(client, partitions)
    else:
        created = await ensure_feed_groups(client, partitions)
    if created:
        log.warning("consumer_groups_recreated", groups=created)
    async with _restarting(broker):
        subscribers = [
            sub
            for sub in broker.subscribers
            if getattr(sub, "stream_sub", None) is not None and sub.running
        ]
        await asyncio.gather(*(sub.stop() for sub in subscribers))
        started = await asyncio.gather(
            *(sub.start() for sub in subscribers), return_exceptions=True
        )
    for sub, result in zip(subscribers, started, strict=True):
        if isinstance(result, BaseException):
            # left stopped: the watchdog starts it again once its group exists
            log.warning("subscriber_restart_failed", stream=sub.stream_sub.name, error=str(result))
    return sum(1 for result in started if not isinstance(result, BaseException))


async def restart_stopped_subscribers(redis: Any, broker: Any) -> int:
    """Start again the stream subscribers that stopped (FastStream stops one for good on
    NOGROUP), but only once their group exists: starting one without its group would
    create the group at ``$`` and skip the entries sent meanwhile."""
    restarted = 0
    async with _restarting(broker):
        for sub in list(broker.subscribers):
            stream = getattr(sub, "stream_sub", None)
            if sub.running or stream is None or not stream.group:
                continue
            groups = await group_status(redis, stream.name, (stream.group,))
            if not groups[0].exists:
                continue
            await sub.start()
            restarted += 1
            log.warning("subscriber_restarted", stream=stream.name, group=stream.group)
    return restarted


_restart_locks: dict[int, asyncio.Lock] = {}


def _restarting(broker: Any) -> asyncio.Lock:
    """One restart at a time per broker: the watchdog must not start a subscriber that
    :func:`resubscribe` has just stopped and is about to start itself."""
    return _restart_locks.setdefault(id(broker), asyncio.Lock())


def print_status(status: Status) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    mode = "cluster" if status.cluster else "standalone"
    console.print(f"{status.url} ({mode}), {status.partitions} partitions")
    nodes = Table(title="nodes")
    for column in ("node", "role", "version", "aof", "memory", "keys"):
        nodes.add_column(column)
    for n in status.nodes:
        nodes.add_row(
            str(n["node"]),
            str(n["role"]),
            str(n["version"]),
            str(n["aof_enabled"]),
            f"{int(n['used_memory'] or 0) / 2**20:.1f} MiB",
            str(n["keys"]),
        )
    console.print(nodes)
    table = Table(title="partitions")
    for column in ("p", "backlog", "deciders p/lag", "views p/lag", "scoreboard p/lag"):
        table.add_column(column)
    if status.cluster:
        table.add_column("master")
    for column in ("dead", "live", "finished"):
        table.add_column(column)

    def cell(g: GroupStatus) -> str:
        if not g.exists:
            return "[red]MISSING[/red]"
        return f"{g.pending}/{'?' if g.lag is None else g.lag}"

    for row in status.rows:
        table.add_row(
            str(row.partition),
            str(row.backlog),
            *(cell(g) for g in row.groups),
            *([row.node] if status.cluster else []),
            str(row.dead_letters),
            str(row.tables_live),
            str(row.tables_finished),
        )
    console.print(table)
    if status.missing:
        console.print(
            f"[red]{len(status.missing)} consumer group(s) missing[/red]: run `orrery repair`"
        )


# --------------------------------------------------------------------------- CLI


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    cluster_app = typer.Typer(no_args_is_help=True, help="A local cluster on loopback ports.")
    app.add_typer(cluster_app, name="cluster")

    @cluster_app.command("up")
    def cluster_up(
        nodes: Annotated[int, typer.Option(help="master nodes (at least 3)")] = 3,
        replicas: Annotated[int, typer.Option(help="replicas per master (0 or 1)")] = 0,
        appendfsync: Annotated[str, typer.Option(help="always | everysec | no")] = "everysec",
        node_timeout_ms: Annotated[
            int, typer.Option(help="cluster-node-timeout: how long before a replica takes over")
        ] = 3000,
        state_dir: Annotated[Path, typer.Option(help="state and data folder")] = STATE_DIR,
    ) -> None:
        """Start a Valkey cluster from the embedded binary; prints its URL."""
        existing = LocalCluster.load(state_dir)
        if existing is not None and existing.running():
            print(existing.url)
            return
        if replicas not in (0, 1):
            raise typer.BadParameter("--replicas is 0 or 1")
        cluster = LocalCluster(
            state_dir,
            masters=nodes,
            replicas=replicas,
            appendfsync=appendfsync,
            node_timeout_ms=node_timeout_ms,
        ).start()
        print(cluster.url, flush=True)

    @cluster_app.command("down")
    def cluster_down(
        state_dir: Annotated[Path, typer.Option(help="state and data folder")] = STATE_DIR,
        keep_data: Annotated[bool, typer.Option(help="keep the nodes' data folders")] = False,
    ) -> None:
        """Stop the local cluster started by `orrery cluster up` (and delete its data)."""
        import shutil

        cluster = LocalCluster.load(state_dir)
        if cluster is None:
            print("no local cluster is running")
            raise typer.Exit(1)
        cluster.stop()
        if not keep_data:
            for port in cluster.ports:
                shutil.rmtree(state_dir / str(port), ignore_errors=True)
        print(f"stopped {len(cluster.ports)} nodes")

    from orrery.drill import register as register_drill

    register_drill(cluster_app)

    @app.command()
    def status(
        redis_url: RedisUrl = None,
        data_dir: DataDirOption = Path(DATA_DIR),
        as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
        quiet: Annotated[bool, typer.Option(help="no output; exit status only")] = False,
        tables: Annotated[bool, typer.Option(help="count live/finished tables")] = True,
    ) -> None:
        """Per partition: backlog, pending/lag per group, dead letters, tables.

        Exits 1 when a consumer group is missing (run `orrery repair`), 2 when the server
        cannot be reached or was never initialised (usable as a readiness probe)."""
        configure_logging("warning")
        with _server(redis_url, data_dir) as url:
            try:
                result = asyncio.run(collect_status(url, tables=tables))
            except (RedisError, OSError) as error:
                if not quiet:
                    print(f"cannot read {url}: {error}", file=sys.stderr)
                raise typer.Exit(2) from error
        if not quiet:
            if as_json:
                doc = asdict(result) | {"ok": result.ok, "missing": len(result.missing)}
                print(json.dumps(doc, indent=2, default=str))
            else:
                print_status(result)
        if result.partitions == 0:
            raise typer.Exit(2)
        if not result.ok:
            raise typer.Exit(1)

    @app.command()
    def repair(
        redis_url: RedisUrl = None,
        data_dir: DataDirOption = Path(DATA_DIR),
        partitions: Annotated[
            int | None, typer.Option(help="P for new data (default 16); must match stored P")
        ] = None,
    ) -> None:
        """Recreate missing consumer groups so processing resumes (deciders at 0,
        projections where they stand); on new data, record P and create every group (a
        deployment's init step)."""
        configure_logging("warning")
        with _server(redis_url, data_dir) as url:
            created = asyncio.run(repair_groups(url, partitions))
        for name in created:
            print(f"created {name}")
        print(f"{len(created)} group(s) recreated" if created else "nothing to repair")

    @app.command()
    def trim(redis_url: RedisUrl = None, data_dir: DataDirOption = Path(DATA_DIR)) -> None:
        """Trim command streams and feeds to what a consumer group still needs (pending or
        undelivered entries stay). Logs are never trimmed. Safe to run from cron."""
        configure_logging("warning")
        with _server(redis_url, data_dir) as url:
            removed = asyncio.run(trim_streams(url))
        for stream, count in removed.items():
            print(f"{stream}: {count} entries removed")
        print(f"{sum(removed.values())} entries removed")

    @bench_app.command("scale")
    def bench_scale(
        tables: Annotated[int, typer.Option(help="tables played per run (x10 in the burst)")] = 12,
        game: Annotated[str, typer.Option(help="game the bots play")] = "spacecraft",
        seed: Annotated[int, typer.Option(help="seed of the bots")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
        data_dir: Annotated[Path, typer.Option(help="scratch folder")] = Path(DATA_DIR) / "bench",
    ) -> None:
        """Commands/s with 1 and 2 workers, standalone and 3-node local cluster, vs a raw
        transport baseline measured in the same run."""
        configure_logging("error")
        figures = run_scale(data_dir, tables=tables, game=game, seed=seed)
        if as_json:
            print(json.dumps([asdict(f) for f in figures], indent=2))
        else:
            print_scale(figures)


# --------------------------------------------------------------------------- bench scale


@dataclass(frozen=True, slots=True)
class ScaleFigures:
    target: str  # standalone | cluster-3
    workers: int
    burst_commands: int  # creates + joins enqueued at once, drained by the workers
    burst_per_s: float
    play_commands: int  # commands sent by bots playing complete games (closed loop)
    play_per_s: float
    baseline_per_s: float  # raw transport: XREADGROUP + reply XADD + XACK, no decide/append
    burst_ratio: float  # burst_per_s / baseline_per_s
    play_ratio: float
    events: int
    finished: int
    bytes_per_event: float  # MEMORY USAGE of the finished tables' keys / their events
    bytes_per_game: float


BENCH_PARTITIONS = 16


def run_scale(
    data_dir: Path, *, tables: int = 12, game: str = "spacecraft", seed: int = 1
) -> list[ScaleFigures]:
    """Each target on a fresh server (standalone embedded, then a 3-master local cluster),
    with 1 and then 2 worker processes (and one projector) on flushed data."""
    import shutil

    from orrery.embedded import EmbeddedServer

    shutil.rmtree(data_dir, ignore_errors=True)
    figures: list[ScaleFigures] = []
    with EmbeddedServer(data_dir / "standalone") as server:
        for workers in (1, 2):
            figures.append(_scale_run(server.url, "standalone", workers, tables, game, seed))
    with LocalCluster(data_dir / "cluster", masters=3) as cluster:
        for workers in (1, 2):
            figures.append(_scale_run(cluster.url, "cluster-3", workers, tables, game, seed))
    shutil.rmtree(data_dir, ignore_errors=True)
    return figures


def _scale_run(
    url: str, target: str, workers: int, tables: int, game: str, seed: int
) -> ScaleFigures:
    from orrery.runtime import prepare, spawn, stop_processes

    asyncio.run(_flush(url))
    asyncio.run(prepare(url, BENCH_PARTITIONS))
    baseline = asyncio.run(_raw_baseline(url, 2000))
    quiet = {"ORRERY_LOG_LEVEL": "error"}
    processes = [spawn("worker", url, i, quiet) for i in range(workers)]
    processes.append(spawn("projector", url, workers, quiet))
    try:
        burst, burst_s, play, play_s = asyncio.run(_load(url, tables, game, seed))
        events, finished, per_event, per_game = asyncio.run(_memory(url))
    finally:
        stop_processes(processes)
    return ScaleFigures(
        target=target,
        workers=workers,
        burst_commands=burst,
        burst_per_s=burst / burst_s,
        play_commands=play,
        play_per_s=play / play_s,
        baseline_per_s=baseline,
        burst_ratio=burst / burst_s / baseline,
        play_ratio=play / play_s / baseline,
        events=events,
        finished=finished,
        bytes_per_event=per_event,
        bytes_per_game=per_game,
    )


async def _flush(url: str) -> None:
    redis = open_redis(url)
    try:
        if is_cluster(url):
            await redis.flushall(target_nodes=redis.PRIMARIES)
        else:
            await redis.flushall()
    finally:
        await redis.aclose()


async def _raw_baseline(url: str, count: int) -> float:
    """Entries/s one asyncio process moves through a consumer group with a reply each
    (what a worker does per command, minus decoding, deciding and the append)."""
    redis = open_redis(url)
    stream, replies, group = "bench:{raw}:cmd", "bench:{raw}:reply", "g"
    try:
        await redis.delete(stream, replies)
        await redis.xgroup_create(stream, group, id="0", mkstream=True)
        for _ in range(count):
            await redis.xadd(stream, {"__data__": b"x" * 200})
        started = time.perf_counter()
        done = 0
        while done < count:
            batch = await redis.xreadgroup(group, "c", {stream: ">"}, count=10)
            for _, entries in batch:
                for entry_id, fields in entries:
                    await redis.xadd(replies, {"__data__": fields[b"__data__"]})
                    await redis.xack(stream, group, entry_id)
                    done += 1
        seconds = time.perf_counter() - started
        await redis.delete(stream, replies)
        return count / seconds
    finally:
        await redis.aclose()


async def _load(url: str, tables: int, game: str, seed: int) -> tuple[int, float, int, float]:
    """A burst of creates and joins (open loop), then bots play every table (closed loop)."""
    import random
    import uuid

    import msgspec

    from clients.sdk import OrreryClient, new_seat_token
    from contracts.envelope import CommandEnvelope
    from contracts.table import CreateTable, JoinRequest
    from orrery.demo import play_table

    json_encoder = msgspec.json.Encoder()
    seats = 2
    async with OrreryClient(url) as client:
        # warm up: the workers are running once a command is answered
        await client.create_table(game, seats, table_id=f"warm-{uuid.uuid4().hex[:8]}")

        async def burst(bodies: list[tuple[str, Any]]) -> float:
            reply = client.reply_stream + ":burst"
            started = time.perf_counter()
            for table_id, body in bodies:
                envelope = CommandEnvelope(
                    command_id=uuid.uuid4().hex,
                    table_id=table_id,
                    body=msgspec.Raw(json_encoder.encode(body)),
                    token=new_seat_token() if isinstance(body, JoinRequest) else None,
                    reply_to=reply,
                )
                stream = keys.command_stream(client.partition(table_id))
                await client.redis.xadd(stream, {"__data__": json_encoder.encode(envelope)})
            while int(await client.redis.xlen(reply)) < len(bodies):
                await asyncio.sleep(0.005)
            seconds = time.perf_counter() - started
            await client.redis.delete(reply)
            return seconds

        burst_tables = [f"burst-{uuid.uuid4().hex[:10]}" for _ in range(tables * 10)]
        creates = [(t, CreateTable(game=game, seats=seats, options={})) for t in burst_tables]
        joins = [(t, JoinRequest(name=f"p{s}")) for s in range(seats) for t in burst_tables]
        burst_s = await burst(creates) + await burst(joins)
        burst_count = len(creates) + len(joins)

        counted = _CountingSubmits(client)
        rng = random.Random(seed)
        started = time.perf_counter()
        await asyncio.gather(
            *(
                play_table(client, game, seats, random.Random(rng.getrandbits(64)))
                for _ in range(tables)
            )
        )
        play_s = time.perf_counter() - started
        return burst_count, burst_s, counted.count, play_s


class _CountingSubmits:
    """Counts the client's submits (wraps the bound method on this one client)."""

    def __init__(self, client: Any) -> None:
        self.count = 0
        inner = client.submit

        async def submit(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await inner(*args, **kwargs)

        client.submit = submit


async def _memory(url: str) -> tuple[int, int, float, float]:
    """Events, finished tables, and the bytes their keys take (MEMORY USAGE, summed)."""
    from projections.tables import read_table

    redis = open_redis(url)
    try:
        partitions = int(await redis.hget(keys.CONFIG_KEY, "partitions"))
        events = finished = used = 0
        for p in range(partitions):
            for member in await redis.smembers(keys.tables_set(p)):
                table_id = _text(member)
                meta = await redis.hgetall(keys.meta_hash(p, table_id))
                if meta.get(b"phase") != b"finished":
                    continue
                state = await read_table(redis, partitions, table_id, to_seq=1)
                table_keys = [
                    keys.log_stream(p, table_id),
                    keys.meta_hash(p, table_id),
                    keys.outcomes_hash(p, table_id),
                    keys.snapshot_key(p, table_id),
                    keys.secret_key(p, table_id),
                    keys.updates_stream(p, table_id),
                    keys.score_key(p, table_id),
                    keys.view_key(p, table_id, None),
                    *(keys.view_key(p, table_id, s) for s in range(state.seats)),
                    *(keys.projection_seq_key(p, table_id, g) for g in keys.PROJECTION_GROUPS),
                ]
                for key in table_keys:
                    used += int(await redis.memory_usage(key, samples=0) or 0)
                events += int(meta[b"seq"])
                finished += 1
        return events, finished, used / max(events, 1), used / max(finished, 1)
    finally:
        await redis.aclose()


def print_scale(figures: list[ScaleFigures]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"orrery bench scale ({os.cpu_count()} cores)")
    columns = ("target", "workers", "burst cmd/s", "play cmd/s", "raw baseline/s")
    for column in (*columns, "burst ratio", "play ratio", "B/event", "KiB/game"):
        table.add_column(column, justify="right")
    for f in figures:
        table.add_row(
            f.target,
            str(f.workers),
            f"{f.burst_per_s:,.0f}",
            f"{f.play_per_s:,.0f}",
            f"{f.baseline_per_s:,.0f}",
            f"{f.burst_ratio:.3f}",
            f"{f.play_ratio:.3f}",
            f"{f.bytes_per_event:,.0f}",
            f"{f.bytes_per_game / 1024:,.1f}",
        )
    Console(width=140).print(table)
    print(
        "burst: creates+joins enqueued at once, drained by the workers; play: bots play "
        "complete games through views (1 projector); raw baseline: XREADGROUP+XADD+XACK "
        "per entry from one asyncio process, same server, same run."
    )


@contextlib.contextmanager
def _server(redis_url: str | None, data_dir: Path) -> Iterator[str]:
    """The server a command works on: ``--redis-url`` (or ``$ORRERY_REDIS_URL``), else the
    local cluster of ``orrery cluster up``, else the data folder's embedded server (the
    running one, or one started for this command)."""
    url = redis_url_from_env(redis_url)
    if url:
        yield url
        return
    cluster = LocalCluster.load(STATE_DIR)
    if cluster is not None and cluster.running():
        yield cluster.url
        return
    from orrery.runtime import server_for

    with server_for(None, data_dir / "data") as folder_url:
        yield folder_url


def _now() -> float:
    return time.monotonic()
