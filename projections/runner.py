"""Projector workers: a FastStream app reading every partition's feed, one consumer
group per projection (``views``, which also folds the lobby, and ``scoreboard``), with
a claimer per group for the entries of a crashed projector. Groups are pre-created at
0 so no history is missed.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, StreamSub
from faststream.redis.annotations import RedisBatchStreamMessage, RedisStreamMessage
from redis.exceptions import RedisError

from contracts import keys
from contracts.feed import FeedEntry, feed_decoder
from projections.lobby import LobbyWriter
from projections.scoreboard import ScoreboardWriter
from projections.tables import TableCache
from projections.views import ViewWriter

log = structlog.get_logger("orrery.projector")

BATCH = 64
batch_decoder = msgspec.json.Decoder(list[FeedEntry])
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
        self.lobby = LobbyWriter(redis, partitions)
        self.scores = ScoreboardWriter(redis, partitions)

    async def apply(self, table_id: str, to_seq: int) -> None:
        state = await self.tables.state(table_id, min_seq=to_seq)
        if self.projection == keys.VIEWS_GROUP:
            # The lobby record first: whoever sees a view at seq n finds the record too.
            await self.lobby.write(state)
            await self.views.write(state)
        else:
            await self.scores.write(state)


def build_projector_app(
    broker: RedisBroker,
    partitions: int,
    *,
    consumer: str | None = None,
    projections: tuple[str, ...] = keys.PROJECTION_GROUPS,
    # A reader's XREADGROUP BLOCK time: data ends the block at once, so a long block
    # costs no latency and saves the idle re-polling of every partition.
    polling_ms: int = 2_000,
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
            # The reader takes batches: a table's entries collapse into one catch-up and
            # one write, and FastStream's per-message cost is paid once per batch.
            reader = StreamSub(
                keys.feed_stream(p),
                group=projection,
                consumer=consumer,
                polling_interval=polling_ms,
                batch=True,
                max_records=BATCH,
            )
            broker.subscriber(
                stream=reader,
                ack_policy=AckPolicy.MANUAL,
                include_in_schema=False,
                decoder=_raw_body,
            )(_batch_handler(projector, projection, p, on_applied))
            # The claimer re-takes, one by one, entries a crashed projector (or a failed
            # batch) left pending.
            claimer = StreamSub(
                keys.feed_stream(p),
                group=projection,
                consumer=consumer,
                polling_interval=_claim_poll_ms(CLAIM_IDLE_MS),
                min_idle_time=CLAIM_IDLE_MS,
            )
            broker.subscriber(
                stream=claimer,
                ack_policy=AckPolicy.MANUAL,
                include_in_schema=False,
                decoder=_raw_body,
            )(_feed_handler(projector, projection, p, on_applied))
    return FastStream(broker)


def _batch_handler(
    projector: Any, projection: str, p: int, on_applied: Callable[[str, float], None] | None
) -> Any:
    async def on_batch(body: bytes, message: RedisBatchStreamMessage) -> None:
        try:
            entries = batch_decoder.decode(message.body)
        except Exception:
            log.warning("feed_batch_unreadable", partition=p, projection=projection)
            await message.ack()
            return
        newest: dict[str, int] = {}
        for entry in entries:
            newest[entry.table] = max(entry.to_seq, newest.get(entry.table, 0))
        for table_id, to_seq in newest.items():
            with structlog.contextvars.bound_contextvars(
                table_id=table_id, seq=to_seq, projection=projection
            ):
                try:
                    await projector(projection).apply(table_id, to_seq)
                except Exception:
                    # Left pending as a whole: the claimer retries the entries one by one.
                    log.exception("projection_failed")
                    projector(projection).tables.forget(table_id)
                    return
        ids = message.raw_message.get("message_ids") or [b"0-0"]
        if on_applied is not None:
            now = time.time() * 1000
            for entry_id in ids:
                on_applied(projection, (now - int(bytes(entry_id).split(b"-")[0])) / 1000)
        await message.ack()

    return on_batch


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


def _claim_poll_ms(claim_idle_ms: int) -> int:
    """How long a claimer sleeps when nothing is idle long enough to claim."""
    return max(250, min(claim_idle_ms // 3, 5_000))
