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
from orrery_contracts.text import as_text

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
    # ended tables the archiver has not moved yet (archive/archiver.py)
    unarchived: int = 0
    groups: list[GroupStatus] = field(default_factory=list)


@dataclass
class ArchiveStatus:
    url: str
    kind: str = ""
    reachable: bool = False
    error: str = ""
    tables: int = 0
    events: int = 0
    stored_bytes: int = 0
    schema_version: int = 0
    backlog: int = 0  # ended tables not archived yet
    oldest_s: float | None = None  # how long ago the oldest of them ended


@dataclass
class Status:
    url: str
    cluster: bool
    partitions: int
    nodes: list[dict[str, Any]]
    rows: list[PartitionStatus]
    archive: ArchiveStatus | None = None

    @property
    def missing(self) -> list[GroupStatus]:
        return [g for row in self.rows for g in row.groups if not g.exists]

    @property
    def ok(self) -> bool:
        return not self.missing


async def group_status(redis: Any, stream: str, groups: tuple[str, ...]) -> list[GroupStatus]:
    try:
        infos = await redis.xinfo_groups(stream)
    except ResponseError:  # no such key: every group is missing
        infos = []
    found = {as_text(info["name"]): info for info in infos}
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
    row.unarchived = int(await redis.zcard(keys.ended_zset(p)))
    if tables:
        members = [as_text(m) for m in await redis.smembers(keys.tables_set(p))]
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


async def archive_status(redis: Any, partitions: int, url: str) -> ArchiveStatus:
    """The archive's reachability and size, and the archiver's backlog in Redis."""
    import time

    from archive import ArchiveUnavailable, open_archive
    from archive.hot import HotKeys

    found = ArchiveStatus(url=shown_url(url))
    found.backlog, oldest = await HotKeys(redis, partitions).backlog()
    if oldest is not None:
        found.oldest_s = round(max(0.0, time.time() - oldest / 1000), 1)
    try:
        archive = await open_archive(url)
    except (ArchiveUnavailable, OSError, ValueError) as error:
        found.error = str(error)[:200]
        return found
    try:
        stats = await archive.stats()
        found.kind, found.reachable = archive.kind, True
        found.tables, found.events = stats.tables, stats.events
        found.stored_bytes, found.schema_version = stats.stored_bytes, stats.schema_version
    except (ArchiveUnavailable, OSError) as error:
        found.error = str(error)[:200]
    finally:
        await archive.close()
    return found


async def collect_status(url: str, tables: bool = True, archive_url: str | None = None) -> Status:
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
        archive = None
        if archive_url and partitions:
            archive = await archive_status(redis, partitions, archive_url)
        return Status(shown_url(url), cluster, partitions, nodes, rows, archive)
    finally:
        await redis.aclose()


def group_cell(group: GroupStatus | None) -> str:
    """A consumer group's figures as one cell: ``pending/lag`` (``?``: lag unknown)."""
    if group is None or not group.exists:
        return "MISSING"
    return f"{group.pending}/{'?' if group.lag is None else group.lag}"


def group_names(status: Status) -> list[str]:
    """The consumer groups the rows report on, in their order (deciders first)."""
    names: list[str] = []
    for row in status.rows:
        names += [g.group for g in row.groups if g.group not in names]
    return names


def partition_table(status: Status) -> tuple[list[str], list[list[str]]]:
    """The partitions as a table: column names and one row of cells per partition.

    Derived from the same records ``--json`` prints (one source), and every group column
    is named after the group its cells come from (looked up by name, never by position),
    so a header cannot drift from its values when the groups change. Names are single
    words, so the printed table splits on white space."""
    groups = group_names(status)
    columns = ["p", "backlog", *groups, *(["master"] if status.cluster else [])]
    columns += ["dead", "live", "finished", "unarchived"]
    rows = []
    for row in status.rows:
        by_name = {g.group: g for g in row.groups}
        rows.append(
            [
                str(row.partition),
                str(row.backlog),
                *(group_cell(by_name.get(name)) for name in groups),
                *([row.node] if status.cluster else []),
                str(row.dead_letters),
                str(row.tables_live),
                str(row.tables_finished),
                str(row.unarchived),
            ]
        )
    return columns, rows


def print_status(status: Status) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    mode = "cluster" if status.cluster else "standalone"
    console.print(f"{status.url} ({mode}), {status.partitions} partitions", markup=False)
    nodes = Table(title="nodes", box=box.SIMPLE_HEAD)
    for column in ("node", "role", "version", "aof", "memory", "keys"):
        nodes.add_column(column, no_wrap=True)
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
    if not status.partitions:
        console.print(
            "never initialised: `orrery serve` or `orrery repair --partitions P` sets it up",
            markup=False,
        )
        return
    columns, rows = partition_table(status)
    table = Table(title="partitions", box=box.SIMPLE_HEAD)
    for column in columns:
        table.add_column(column, no_wrap=True, justify="left" if column == "master" else "right")
    for cells in rows:
        table.add_row(*(Text(c, style="red" if c == "MISSING" else "") for c in cells))
    console.print(table)
    console.print(
        f"{', '.join(group_names(status))}: pending/lag of each consumer group · backlog: "
        "commands not yet answered · dead: dead letters · live, finished: tables · "
        "unarchived: ended, not yet in the archive",
        markup=False,
    )
    if status.archive is not None:
        print_archive_status(status.archive)
    if status.missing:
        console.print(
            f"[red]{len(status.missing)} consumer group(s) missing[/red]: run `orrery repair`"
        )


def print_archive_status(archive: ArchiveStatus) -> None:
    from rich.console import Console

    console = Console()
    if archive.reachable:
        console.print(
            f"archive {archive.url} ({archive.kind}, schema {archive.schema_version}): "
            f"{archive.tables} tables, {archive.events} events, "
            f"{archive.stored_bytes / 2**20:.1f} MiB"
        )
    else:
        console.print(f"[red]archive {archive.url} unreachable[/red]: {archive.error}")
    oldest = "" if archive.oldest_s is None else f", the oldest ended {archive.oldest_s:.0f} s ago"
    console.print(f"not archived yet: {archive.backlog} ended tables{oldest}")


# --------------------------------------------------------------------------- CLI
