"""Projector workers: a FastStream app reading every partition's feed, one consumer
group per projection (``views``, ``scoreboard``), with a claimer per group for the
entries of a crashed projector. Groups are pre-created at 0 so no history is missed.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import Any

import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, StreamSub
from faststream.redis.annotations import RedisStreamMessage
from redis.exceptions import RedisError

from contracts import keys
from contracts.feed import feed_decoder
from projections.scoreboard import ScoreboardWriter
from projections.tables import TableCache
from projections.views import ViewWriter

log = structlog.get_logger("orrery.projector")

CLAIM_IDLE_MS = int(os.environ.get("ORRERY_CLAIM_IDLE_MS", "15000"))
MAX_DELIVERIES = 5


async def ensure_feed_groups(redis: Any, partitions: int) -> list[str]:
    created = []
    for p in range(partitions):
        for group in keys.PROJECTION_GROUPS:
            try:
                await redis.xgroup_create(keys.feed_stream(p), group, id="0", mkstream=True)
                created.append(f"{keys.feed_stream(p)} {group}")
            except RedisError as error:
                if "BUSYGROUP" not in str(error):
                    raise
    return created


class Projector:
    """Applies one feed entry to one projection."""

    def __init__(self, redis: Any, partitions: int, projection: str, tables: TableCache) -> None:
        # ``tables`` is shared by the process's projections: the views fold a table's new
        # events once, and the scoreboard finds the same state already caught up.
        self.tables = tables
        self.projection = projection
        self.views = ViewWriter(redis, partitions)
        self.scores = ScoreboardWriter(redis, partitions)

    async def apply(self, table_id: str, to_seq: int) -> None:
        state = await self.tables.state(table_id, min_seq=to_seq)
        if self.projection == keys.VIEWS_GROUP:
            await self.views.write(state)
        else:
            await self.scores.write(state)


def build_projector_app(
    broker: RedisBroker,
    partitions: int,
    *,
    consumer: str | None = None,
    projections: tuple[str, ...] = keys.PROJECTION_GROUPS,
    polling_ms: int = 100,
    on_applied: Callable[[str, float], None] | None = None,
) -> FastStream:
    """``on_applied(projection, lag_seconds)`` is called after each applied feed entry
    (the metrics hook; projections do not import the services' metrics module)."""
    consumer = (
        consumer
        or os.environ.get("ORRERY_CONSUMER")
        or (f"projector-{socket.gethostname()}-{os.getpid()}")
    )
    projectors: dict[str, Projector] = {}
    shared: list[TableCache] = []

    def projector(projection: str) -> Projector:
        if projection not in projectors:
            redis = broker._connection
            if not shared:
                shared.append(TableCache(redis, partitions))
            projectors[projection] = Projector(redis, partitions, projection, shared[0])
        return projectors[projection]

    for projection in projections:
        for p in range(partitions):
            for claimer in (False, True):
                sub = StreamSub(
                    keys.feed_stream(p),
                    group=projection,
                    consumer=consumer,
                    polling_interval=max(polling_ms, 500) if claimer else polling_ms,
                    min_idle_time=CLAIM_IDLE_MS if claimer else None,
                )
                broker.subscriber(
                    stream=sub,
                    ack_policy=AckPolicy.MANUAL,
                    include_in_schema=False,
                    decoder=_raw_body,
                )(_feed_handler(projector, projection, p, on_applied))
    return FastStream(broker)


def _feed_handler(
    projector: Any, projection: str, p: int, on_applied: Callable[[str, float], None] | None
) -> Any:
    async def on_feed(body: bytes, message: RedisStreamMessage) -> None:
        entry_id = message.raw_message.get("message_ids", [b"0-0"])[0]
        try:
            entry = feed_decoder.decode(message.body)
        except Exception:
            log.warning("feed_entry_unreadable", partition=p, projection=projection)
            await message.ack()
            return
        with structlog.contextvars.bound_contextvars(
            table_id=entry.table, seq=entry.to_seq, projection=projection
        ):
            try:
                await projector(projection).apply(entry.table, entry.to_seq)
            except Exception:
                log.exception("projection_failed")
                if await message.get_delivery_count() < MAX_DELIVERIES:
                    projector(projection).tables.forget(entry.table)
                    return  # stays pending; the claimer retries it
            lag = time.time() * 1000 - int(entry_id.split(b"-")[0])
            if on_applied is not None:
                on_applied(projection, lag / 1000)
            await message.ack()

    return on_feed


async def _raw_body(message: Any) -> bytes:
    return bytes(message.body)
