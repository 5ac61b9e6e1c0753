"""``orrery status``: per partition, the command stream's length, every consumer group's
``pending`` and ``lag`` (``XINFO GROUPS``), the dead-letter count, the tables live /
finished, and every node of the server or cluster; it exits non-zero when a group is
missing — the NOGROUP pitfall: FastStream logs NOGROUP forever if the server lost a
group (``orrery repair``, orrery/ops/maintenance.py, recreates it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError, ResponseError

from orrery.server.cluster import (
    is_cluster,
    open_redis,
)
from orrery.server.credentials import shown_url
from orrery_contracts import keys

log = structlog.get_logger("orrery.status")


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
        return Status(shown_url(url), cluster, partitions, nodes, rows)
    finally:
        await redis.aclose()


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
