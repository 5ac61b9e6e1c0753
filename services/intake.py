"""Command intake: a FastStream app consuming every partition's command stream.

Per partition two subscribers share the consumer group ``deciders``: a reader
(``XREADGROUP >``) and a claimer (``XAUTOCLAIM`` of entries idle longer than the
claim threshold, i.e. those of a crashed worker). Acknowledgement is manual: an entry
is acked after its outcome was sent; an entry that failed for infrastructure reasons
stays pending for the claimer, and one delivered more than ``max_deliveries`` times
goes to the partition's dead-letter stream with the reason, then is acked.

A settled entry is acked and deleted (``XACK`` + ``XDEL``): it holds the sender's seat
secret in clear, and nothing needs it once its outcome is stored.

Each partition's reader runs in one worker at a time (services/assignment.py: the live
workers share the partitions; claimers run everywhere).

The reader takes up to :data:`BATCH` entries per delivery (``StreamSub(batch=True)``): its
entries are decided concurrently across tables (a table's own entries in stream order,
under the table's lock), then every reply (``XADD`` + ``EXPIRE``), dead letter, ``XACK``
and ``XDEL`` of the batch goes out in one pipeline. An entry whose handling failed is
left out of the acknowledgement: it stays pending for the claimer, which takes entries
one by one and counts each entry's deliveries as before. The batch parser hands over
the raw entries untouched (FastStream's own would JSON-decode and re-encode each body,
and cannot re-encode a binary msgpack one).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from typing import Any

import structlog
from faststream import AckPolicy, FastStream
from faststream.redis import RedisBroker, StreamSub
from faststream.redis.annotations import RedisStreamMessage
from redis.exceptions import RedisError, ResponseError

from orrery_contracts import keys
from services import metrics
from services.assignment import Assignment
from services.handling import CommandHandler, Handled, add_reply, undeliverable, without_token
from services.store import EventStore

log = structlog.get_logger("orrery.intake")

DEFAULT_CLAIM_IDLE_MS = int(os.environ.get("ORRERY_CLAIM_IDLE_MS", "15000"))
DEFAULT_MAX_DELIVERIES = 5
DEAD_LETTER_MAXLEN = 100_000
# Entries per reader delivery: decided together, answered and acked in one pipeline.
BATCH = int(os.environ.get("ORRERY_INTAKE_BATCH") or 32)


def consumer_name(role: str) -> str:
    """Unique per process: identical names would merge pending-entry ownership."""
    return os.environ.get("ORRERY_CONSUMER") or f"{role}-{socket.gethostname()}-{os.getpid()}"


async def ensure_command_groups(redis: Any, partitions: int) -> list[str]:
    """Create missing ``deciders`` groups at 0 (so no command sent early is missed)."""
    created = []
    for p in range(partitions):
        try:
            await redis.xgroup_create(
                keys.command_stream(p), keys.DECIDERS_GROUP, id="0", mkstream=True
            )
            created.append(keys.command_stream(p))
        except RedisError as error:
            if "BUSYGROUP" not in str(error):
                raise
    return created


async def dead_letter(redis: Any, p: int, entry_id: str, data: bytes, reason: str) -> None:
    """Keep a failed entry for inspection: the reason, and the entry without its token."""
    await add_dead_letter(redis, p, entry_id, data, reason)


def add_dead_letter(redis: Any, p: int, entry_id: str, data: bytes, reason: str) -> Any:
    """The dead letter's XADD, on a client (awaitable) or queued on a pipeline."""
    return redis.xadd(
        keys.dead_letter_stream(p),
        {
            "entry": entry_id,
            "reason": reason[:2000],
            "data": without_token(data),
            "at": int(time.time() * 1000),
        },
        maxlen=DEAD_LETTER_MAXLEN,
        approximate=True,
    )


def build_decider_app(
    broker: RedisBroker,
    partitions: int,
    *,
    consumer: str | None = None,
    claim_idle_ms: int = DEFAULT_CLAIM_IDLE_MS,
    max_deliveries: int = DEFAULT_MAX_DELIVERIES,
    # A reader's XREADGROUP BLOCK time: data ends the block at once, so a long block
    # costs no latency and saves the idle re-polling of every partition.
    polling_ms: int = 2_000,
    batch: int = BATCH,
    assignment: Assignment | None = None,
) -> FastStream:
    """``assignment``: the readers are started and stopped by partition ownership
    (services/assignment.py); without it this process reads every partition."""
    consumer = consumer or consumer_name("decider")
    state: dict[str, CommandHandler] = {}

    def handler() -> CommandHandler:
        if "handler" not in state:
            redis = broker._connection
            state["handler"] = CommandHandler(EventStore(redis, partitions))
        return state["handler"]

    async def on_entry(p: int, message: RedisStreamMessage) -> None:
        data = bytes(message.body)
        entry_id = _entry_id(message)
        with structlog.contextvars.bound_contextvars(partition=p, entry=entry_id):
            redis = broker._connection
            try:
                handled = await handler().handle(data)
            except Exception as error:
                # Redis failures, and (as a last resort) any bug the handler did not turn
                # into an outcome: retried a bounded number of times, then dead-lettered.
                kind = "infrastructure" if isinstance(error, RedisError) else "unexpected"
                log.exception("command_failure", kind=kind)
                deliveries = await message.get_delivery_count()
                if deliveries < max_deliveries:
                    return  # stays pending; the claimer retries it after the idle time
                await dead_letter(redis, p, entry_id, data, f"{kind} failures")
                await settle(redis, message)
                return
            if handled.dead_letter_reason:
                await dead_letter(redis, p, entry_id, data, handled.dead_letter_reason)
            metrics.count_outcome(handled.outcome, dead_letter=bool(handled.dead_letter_reason))
            await settle(redis, message)

    async def decide_one(
        p: int, channel: str, entry_id: bytes, data: bytes
    ) -> tuple[bytes, bytes, Handled] | None:
        """One entry of a batch: its outcome, or None when it stays pending (a failure
        with deliveries left; the claimer retries it)."""
        text_id = entry_id.decode()
        with structlog.contextvars.bound_contextvars(partition=p, entry=text_id):
            try:
                return entry_id, data, await handler().decide_entry(data)
            except Exception as error:
                kind = "infrastructure" if isinstance(error, RedisError) else "unexpected"
                log.exception("command_failure", kind=kind)
                if await delivery_count(broker._connection, channel, entry_id) < max_deliveries:
                    return None
                failed = Handled(None, None, dead_letter_reason=f"{kind} failures")
                return entry_id, data, failed

    async def on_batch(p: int, message: Any) -> None:
        raw = message.raw_message
        channel: str = raw["channel"]
        entries = [
            (entry_id, bytes(fields.get(b"__data__", b"")))
            for entry_id, fields in zip(raw["message_ids"], raw["data"], strict=True)
        ]
        # Concurrent across tables; a table's entries keep their order (each waits for
        # the table's lock in the order the tasks start, which is the stream's order).
        decided = await asyncio.gather(
            *(decide_one(p, channel, entry_id, data) for entry_id, data in entries)
        )
        settled = [d for d in decided if d is not None]
        if not settled:
            return
        redis: Any = broker._connection
        pipe = redis.pipeline(transaction=False)
        replies: list[tuple[int, bytes, bytes, Handled]] = []  # (result index, id, data, ...)
        position = 0
        for entry_id, data, handled in settled:
            if handled.reply_to and handled.outcome is not None:
                add_reply(pipe, handled)
                replies.append((position, entry_id, data, handled))
                position += 2
            if handled.dead_letter_reason:
                add_dead_letter(pipe, p, entry_id.decode(), data, handled.dead_letter_reason)
                position += 1
            metrics.count_outcome(handled.outcome, dead_letter=bool(handled.dead_letter_reason))
        ids = [entry_id for entry_id, _, _ in settled]
        pipe.xack(channel, keys.DECIDERS_GROUP, *ids)
        pipe.xdel(channel, *ids)
        results = await pipe.execute(raise_on_error=False)
        for result in results:
            if isinstance(result, Exception) and not isinstance(result, ResponseError):
                raise result
        if isinstance(results[-2], Exception):
            raise results[-2]  # not acknowledged: the claimer takes the entries again
        for index, entry_id, data, handled in replies:
            refused = results[index]
            if isinstance(refused, ResponseError) and not handled.dead_letter_reason:
                # The reply stream is not a stream (a client made the key something else).
                reason = undeliverable(handled, refused)
                await dead_letter(redis, p, entry_id.decode(), data, reason)

    async def drain(p: int) -> int:
        """After the reader of partition ``p`` was stopped: handle, once, what this
        consumer read but never handled (a read in flight when the reader was cancelled)
        instead of leaving it to the claimer's idle time. Returns the entries handled."""
        redis: Any = broker._connection
        stream = keys.command_stream(p)
        handled, after = 0, b"0"
        while True:
            # An id instead of ">": this consumer's own pending entries after that id.
            read = await redis.xreadgroup(
                keys.DECIDERS_GROUP, consumer, {stream: after}, count=batch
            )
            entries = read[0][1] if read else []
            if not entries:
                return handled
            ids = [entry_id for entry_id, _ in entries]
            raw = {"channel": stream, "message_ids": ids, "data": [f for _, f in entries]}
            await on_batch(p, _Pending(raw))
            handled += len(entries)
            after = ids[-1]

    for p in range(partitions):
        stream = keys.command_stream(p)
        # The "body" handed to the handler is the message itself (the entry's raw bytes
        # are decoded by the handler): a ``message: RedisStreamMessage`` parameter would
        # be a context field, which fast_depends resolves in a worker thread per message.
        common: dict[str, Any] = {
            "ack_policy": AckPolicy.MANUAL,
            "include_in_schema": False,
            "decoder": _the_message,
        }

        reader = broker.subscriber(
            stream=StreamSub(
                stream,
                group=keys.DECIDERS_GROUP,
                consumer=consumer,
                polling_interval=polling_ms,
                batch=True,
                max_records=batch,
            ),
            **{**common, "parser": raw_batch_parser},
        )
        reader(_entry_handler(on_batch, p))
        if assignment is not None:
            assignment.add_reader(p, reader)
            assignment.drain = drain
        broker.subscriber(
            stream=StreamSub(
                stream,
                group=keys.DECIDERS_GROUP,
                consumer=consumer,
                min_idle_time=claim_idle_ms,
                polling_interval=_claim_poll_ms(claim_idle_ms),
            ),
            **common,
        )(_entry_handler(on_entry, p))
    return FastStream(broker)


async def settle(redis: Any, message: RedisStreamMessage) -> None:
    """Acknowledge the entry and delete it from the command stream."""
    ids = message.raw_message["message_ids"]
    channel = message.raw_message["channel"]
    pipe = redis.pipeline(transaction=False)
    pipe.xack(channel, keys.DECIDERS_GROUP, *ids)
    pipe.xdel(channel, *ids)
    await pipe.execute()


async def delivery_count(redis: Any, stream: str, entry_id: bytes) -> int:
    """How often the group has delivered the entry (its pending-list counter)."""
    rows = await redis.xpending_range(
        stream, keys.DECIDERS_GROUP, min=entry_id, max=entry_id, count=1
    )
    return int(rows[0]["times_delivered"]) if rows else 1


async def raw_batch_parser(raw: Any, original: Any) -> Any:
    """FastStream's batch message without its decoded body: the handler reads the raw
    entries (``raw_message["data"]``, ``raw_message["message_ids"]``) itself."""
    message = await original({**raw, "data": []})
    message.raw_message = raw
    return message


def _entry_handler(on_entry: Any, p: int) -> Any:
    # One parameter only (FastStream unpacks a body into several), typed Any: nothing
    # to validate, nothing injected.
    async def on_command(message: Any) -> None:
        await on_entry(p, message)

    return on_command


async def _the_message(message: Any) -> Any:
    return message


class _Pending:
    """Entries read back from this consumer's pending list, shaped like a batch message."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw_message = raw


def _entry_id(message: RedisStreamMessage) -> str:
    ids = message.raw_message.get("message_ids") or [b""]
    first = ids[0]
    return first.decode() if isinstance(first, bytes) else str(first)


def _claim_poll_ms(claim_idle_ms: int) -> int:
    """How long a claimer sleeps when nothing is idle long enough to claim."""
    return max(250, min(claim_idle_ms // 3, 5_000))
