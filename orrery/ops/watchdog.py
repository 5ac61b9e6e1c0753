"""The group watchdog every worker and projector process runs (every few seconds):
recreate missing consumer groups, restart the subscribers FastStream stopped on NOGROUP,
remove dead consumers and export the group gauges (one process per role, by lease).

On a cluster it also follows the topology (:func:`follow_topology`): it polls the slot
map, and when a failover has given slots to another master it refreshes the broker's
slot map, makes sure the groups exist on the new master, and restarts the FastStream
subscribers, so they read from the promoted replica at once instead of after
FastStream's 5 s back-off per failed read."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError, ResponseError

from orrery.ops.status import group_status, partition_status
from orrery.server.cluster import (
    NodeClients,
    is_cluster,
    open_redis,
    read_topology,
    url_nodes,
)
from orrery.settings import DEAD_CONSUMER_S, TOPOLOGY_POLL_S, WatchdogSettings
from orrery_contracts import keys
from orrery_contracts.text import as_text

log = structlog.get_logger("orrery.watchdog")


async def group_watchdog(
    url: str,
    partitions: int,
    role: str,
    broker: Any = None,
    interval: float | None = None,
    consumer: str = "",
    settings: WatchdogSettings | None = None,
) -> None:
    """In each worker/projector process, once a second: restart subscribers FastStream
    stopped on NOGROUP once their group exists again (after `orrery repair` or this
    watchdog recreated it); every ``interval`` seconds (0: never) recreate missing groups
    at 0. One process per role (the holder of the role's lease, ``orrery:exporter:<role>``)
    also removes its groups' dead consumers, and the workers' holder alone exports the
    group gauges (so the cluster-wide lag is exported once, not by every process).
    ``settings``: the process's, read once at its start (read here without them);
    ``interval`` overrides theirs."""
    from projections.runner import ensure_feed_groups
    from services import metrics
    from services.intake import ensure_command_groups

    settings = settings or WatchdogSettings.from_env()
    interval = settings.interval_s if interval is None else interval
    redis = open_redis(url)
    if isinstance(redis, RedisCluster):
        # A cluster client loads its slot map and the server's command table at its
        # first use: now, while the process starts, not a tick later under load.
        with contextlib.suppress(RedisError, OSError):
            await redis.initialize()
    tick = min(interval, 1.0) if interval > 0 else 1.0
    last_full = time.monotonic()
    follower = None
    if broker is not None and is_cluster(url):
        poll = settings.topology_poll_s
        follower = asyncio.create_task(follow_topology(url, partitions, role, broker, poll))
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
                        removed = await remove_dead_consumers(
                            redis, partitions, role, settings.dead_consumer_idle_ms
                        )
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
    if holder is not None and as_text(holder) == consumer:
        await redis.pexpire(key, ttl_ms)
        return True
    return False


async def remove_dead_consumers(
    redis: Any, partitions: int, role: str, idle_ms: int = int(DEAD_CONSUMER_S * 1000)
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
                name = as_text(info["name"])
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
    clients = NodeClients(username, password)  # kept from one poll to the next
    try:
        await _follow(list(seeds), clients, partitions, role, broker, poll)
    finally:
        await clients.aclose()


async def _follow(
    known: list[tuple[str, int]],
    clients: NodeClients,
    partitions: int,
    role: str,
    broker: Any,
    poll: float,
) -> None:
    current = _masters_of(await broker.connect())  # what the subscribers started on
    while True:
        await asyncio.sleep(poll)
        try:
            topology = await read_topology(known, clients=clients)
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

    client = await broker.connect()  # the broker's own (running) client
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
