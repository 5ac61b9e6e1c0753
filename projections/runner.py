"""Projector workers: a FastStream app reading every partition's feed, one consumer
group per projection (``views``, which also folds the lobby, and ``scoreboard``), with
a claimer per group for the entries of a crashed projector. Groups are pre-created at
0 so no history is missed. The ``views`` group also writes the clocks' deadlines
index and "your turn" notices (projections/notices.py) from the same folded state.

Readers take batches of feed entries (a table's entries collapse into one catch-up and
one write; a batch's tables are applied concurrently) through a parser that leaves the
raw entries undecoded; handlers take the message as their only parameter (a ``message``
context parameter costs a worker-thread hop per delivery in fast_depends).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, StreamSub
from redis.exceptions import RedisError
from redis.exceptions import ResponseError as NoSuchKey

from orrery_contracts import keys
from orrery_contracts.feed import FeedEntry, feed_decoder
from projections.lobby import LobbyWriter
from projections.notices import NoticeWriter
from projections.scoreboard import ScoreboardWriter
from projections.tables import TableCache
from projections.views import ViewWriter

log = structlog.get_logger("orrery.projector")

BATCH = 64
CLAIM_IDLE_MS = int(os.environ.get("ORRERY_CLAIM_IDLE_MS", "15000"))
MAX_DELIVERIES = 5


async def ensure_feed_groups(redis: Any, partitions: int) -> list[str]:
    """Create every missing projection group: at 0 on a new feed, else where the
    projection stands (:func:`feed_resume_id`).

    A group can go missing on a feed that has entries: lost with the server's data, or
    never replicated to a replica that a failover promoted. Recreated just before the
    oldest entry whose table the projection has not applied up to that entry's seq,
    nothing is skipped and nothing already applied is read again."""
    created = []
    for p in range(partitions):
        stream = keys.feed_stream(p)
        try:
            present = {_text(g["name"]) for g in await redis.xinfo_groups(stream)}
        except NoSuchKey:  # no such stream yet
            present = set()
        for group in keys.PROJECTION_GROUPS:
            if group in present:
                continue
            start = await feed_resume_id(redis, p, group)
            try:
                await redis.xgroup_create(stream, group, id=start, mkstream=True)
                created.append(f"{stream} {group}")
            except RedisError as error:
                if "BUSYGROUP" not in str(error):
                    raise
    return created


FEED_SCAN = 500


async def feed_resume_id(redis: Any, p: int, projection: str) -> str:
    """The id a recreated ``projection`` group starts after: the entry before the
    oldest one whose table that projection has applied to a lower seq than the entry's
    ``to`` ("0": from the start; the last entry's id: everything is applied)."""
    stream = keys.feed_stream(p)
    applied: dict[str, int] = {}
    last, start = "0", "-"
    while True:
        entries = await redis.xrange(stream, start, "+", count=FEED_SCAN)
        if not entries:
            return last
        decoded: list[tuple[str, FeedEntry | None]] = []
        for entry_id, fields in entries:
            try:
                decoded.append((_text(entry_id), feed_decoder.decode(fields[b"__data__"])))
            except (msgspec.DecodeError, KeyError):
                decoded.append((_text(entry_id), None))  # unreadable: the projector skips it
        unknown = sorted({e.table for _, e in decoded if e is not None} - applied.keys())
        if unknown:
            pipe = redis.pipeline(transaction=False)
            for table_id in unknown:
                pipe.get(keys.projection_seq_key(p, table_id, projection))
            for table_id, seq in zip(unknown, await pipe.execute(), strict=True):
                applied[table_id] = int(seq or 0)
        for entry_id, entry in decoded:
            if entry is not None and applied[entry.table] < entry.to_seq:
                return last
            last = entry_id
        start = f"({last}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Projector:
    """Applies one feed entry to one projection."""

    def __init__(self, redis: Any, partitions: int, projection: str, tables: TableCache) -> None:
        # ``tables`` is shared by the process's projections: the views fold a table's new
        # events once, and the scoreboard finds the same state already caught up.
        self.tables = tables
        self.projection = projection
        self.views = ViewWriter(redis, partitions)
        self.notices = NoticeWriter(redis, partitions)
        self.lobby = LobbyWriter(redis, partitions)
        self.scores = ScoreboardWriter(redis, partitions)

    async def apply(self, table_id: str, to_seq: int) -> None:
        state = await self.tables.state(table_id, min_seq=to_seq)
        if self.projection == keys.VIEWS_GROUP:
            # The lobby record first: whoever sees a view at seq n finds the record too.
            await self.lobby.write(state)
            await self.views.write(state)
            await self.notices.write(state)
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
                parser=_raw_batch,
                decoder=_the_message,
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
                decoder=_the_message,
            )(_feed_handler(projector, projection, p, on_applied))
    return FastStream(broker)


def _batch_handler(
    projector: Any, projection: str, p: int, on_applied: Callable[[str, float], None] | None
) -> Any:
    async def on_batch(message: Any) -> None:
        newest: dict[str, int] = {}
        for fields in message.raw_message["data"]:
            try:
                entry = feed_decoder.decode(fields[b"__data__"])
            except (msgspec.DecodeError, KeyError):
                log.warning("feed_entry_unreadable", partition=p, projection=projection)
                continue  # acked with the batch: nothing to apply
            newest[entry.table] = max(entry.to_seq, newest.get(entry.table, 0))

        async def apply(table_id: str, to_seq: int) -> bool:
            with structlog.contextvars.bound_contextvars(
                table_id=table_id, seq=to_seq, projection=projection
            ):
                try:
                    await projector(projection).apply(table_id, to_seq)
                    return True
                except Exception:
                    log.exception("projection_failed")
                    projector(projection).tables.forget(table_id)
                    return False

        # The batch's tables concurrently (each table once, at its newest seq), so their
        # round trips overlap.
        applied = await asyncio.gather(*(apply(t, seq) for t, seq in newest.items()))
        if not all(applied):
            return  # left pending as a whole: the claimer retries the entries one by one
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
    async def on_feed(message: Any) -> None:
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


async def _raw_batch(raw: Any, original: Any) -> Any:
    """FastStream's batch message without its decoded body (which would JSON-decode and
    re-encode every entry): the handler decodes ``raw_message["data"]`` itself."""
    message = await original({**raw, "data": []})
    message.raw_message = raw
    return message


async def _the_message(message: Any) -> Any:
    """The handler's only parameter is the message itself: a ``message`` context
    parameter would make fast_depends resolve it in a worker thread per delivery."""
    return message


def _claim_poll_ms(claim_idle_ms: int) -> int:
    """How long a claimer sleeps when nothing is idle long enough to claim."""
    return max(250, min(claim_idle_ms // 3, 5_000))
