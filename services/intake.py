"""Command intake: a FastStream app consuming every partition's command stream.

Two kinds of consumers share the consumer group ``deciders``: readers (``XREADGROUP
>``) and, per partition, a claimer (``XAUTOCLAIM`` of entries idle longer than the
claim threshold, i.e. those of a crashed worker), both from ``streams/`` (the
consumer-group plumbing the projectors use too). The readers are
:class:`~streams.readers.GroupReader` s, not FastStream subscribers: on a standalone
server one reads every partition this worker owns in one ``XREADGROUP`` per wake-up
(FastStream's per-stream subscriber woke once per partition, each delivery carrying
about one entry, and its delivery cost about a third of the worker's CPU); a Redis
Cluster refuses a read across hash slots, so there each partition has a reader of its
own. The claimers stay FastStream subscribers (the app the design names hosts both).
Two reads may be handled at once, but a partition's batches are decided in the order
they were read (:meth:`Intake.on_batches`): a table's commands keep the stream's order.
Acknowledgement is manual: an entry is acked after its outcome was sent; an entry that
failed for infrastructure reasons stays pending for the claimer, and one delivered more
than ``max_deliveries`` times goes to the partition's dead-letter stream with the
reason, then is acked.

A handled entry is acked and deleted (``XACK`` + ``XDEL``): it holds the sender's seat
secret in clear, and nothing needs it once its outcome is stored. Its dead letter, if
any, keeps the entry without its token.

Each partition is read by one worker at a time (services/assignment.py: the live
workers share the partitions; claimers run everywhere).

The reader takes up to ``intake_batch`` entries per delivery (services.settings): its
entries are decided concurrently across tables (a table's own entries in stream order,
under the table's lock), then every reply (``XADD`` + ``EXPIRE``), dead letter, ``XACK``
and ``XDEL`` of the batch goes out in one pipeline. Without durability options an accepted command's
append settles its entry itself (services/store.py): ack and delete in the append
script, and the reply too on a standalone server or, on a cluster, to a reply stream in
the table's slot (else the answer is left: ``ACKED``); the pipeline carries only what is
left, if anything.
An entry whose handling failed is left out of the acknowledgement: it stays pending for
the claimer, which takes entries one by one (a batch of one, handled the same way) and
counts each entry's deliveries.

The wiring (:func:`build_decider_app`) is apart from the logic (:class:`Intake`): the
Redis client is the broker's own, handed in by the process wiring (orrery/runtime.py).
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from typing import Any

import structlog
from faststream import FastStream
from faststream.redis import RedisBroker
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from orrery_contracts import keys
from services import metrics
from services.assignment import Assignment
from services.handling import CommandHandler, Handled, add_reply, undeliverable, without_token
from services.log_context import bound as log_context
from services.settings import WorkerSettings
from services.store import ACKED, NOT_SETTLED, EventStore
from streams.batches import Batch, Entry
from streams.consumers import MAX_DELIVERIES, consumer_name, create_group
from streams.deliveries import add_dead_letter, deliveries_left, failure_kind
from streams.readers import add_readers
from streams.settings import ConsumerSettings
from streams.subscribers import subscribe_claimer

log = structlog.get_logger("orrery.intake")


async def ensure_command_groups(redis: Any, partitions: int) -> list[str]:
    """Create missing ``deciders`` groups at 0 (so no command sent early is missed)."""
    created = []
    for p in range(partitions):
        if await create_group(redis, keys.command_stream(p), keys.DECIDERS_GROUP):
            created.append(keys.command_stream(p))
    return created


@dataclass(frozen=True, slots=True)
class Decided:
    """An entry of a batch and what became of it."""

    entry: Entry
    handled: Handled


class Intake:
    """Decides the entries of a partition's command stream and settles them: answers,
    dead letters and acknowledgements of a batch in one pipeline."""

    def __init__(
        self,
        redis: Any,
        handler: CommandHandler,
        *,
        consumer: str,
        max_deliveries: int = MAX_DELIVERIES,
        batch: int | None = None,
    ) -> None:
        self.redis = redis
        self.handler = handler
        self.consumer = consumer
        self.max_deliveries = max_deliveries
        if batch is None:
            # the handler's (its process's) settings; a stand-in handler: the default
            batch = (
                handler.settings.intake_batch
                if handler is not None
                else WorkerSettings.intake_batch
            )
        # entries per reader delivery: decided together, answered and acked in one pipeline
        self.batch = batch
        # partition -> done once its latest read batch was handled
        self._turns: dict[int, asyncio.Future[None]] = {}

    async def on_batches(self, partitions: dict[str, int], batches: list[Batch]) -> None:
        """A group read's batches, one per partition's stream (``partitions``: stream ->
        partition): the partitions concurrently, each after its batch of the read
        before."""
        # The turns are taken before any await: reads are handled in the order they
        # were read, so a partition's batches queue up in the stream's order.
        turns = [(partitions[b.stream], b, *self._take_turn(partitions[b.stream])) for b in batches]
        if len(turns) == 1:
            await self._in_turn(*turns[0])
        else:
            await asyncio.gather(*(self._in_turn(*turn) for turn in turns))

    def _take_turn(self, p: int) -> tuple[asyncio.Future[None] | None, asyncio.Future[None]]:
        """The previous holder's turn (to wait for) and this one's (to end)."""
        before = self._turns.get(p)
        mine = asyncio.get_running_loop().create_future()
        self._turns[p] = mine
        return before, mine

    async def _in_turn(
        self, p: int, batch: Batch, before: asyncio.Future[None] | None, mine: asyncio.Future[None]
    ) -> None:
        try:
            if before is not None:
                # (shielded: a waiter cancelled at a stop must not cancel the turn itself,
                # which the batches after it wait for too)
                await asyncio.shield(before)
            await self.on_batch(p, batch)
        finally:
            if before is not None and not before.done():
                # Cancelled while waiting: the turn passes on when the one before ends.
                before.add_done_callback(lambda _: self._end_turn(p, mine))
            else:
                self._end_turn(p, mine)

    def _end_turn(self, p: int, mine: asyncio.Future[None]) -> None:
        if not mine.done():
            mine.set_result(None)
        if self._turns.get(p) is mine:
            del self._turns[p]

    async def on_batch(self, p: int, batch: Batch) -> None:
        """A reader's batch or a claimer's one entry: decided, then settled together."""
        entries = batch.entries
        if len(entries) == 1:
            # The usual batch below saturation: no task to create for it.
            decided = [await self._decide(p, batch.stream, entries[0])]
        else:
            # Concurrent across tables; a table's entries keep their order (each waits for
            # the table's lock in the order the tasks start, which is the stream's order).
            decided = await asyncio.gather(*(self._decide(p, batch.stream, e) for e in entries))
        settled = [d for d in decided if d is not None]
        if settled:
            await self._settle(p, batch.stream, settled)

    async def _decide(self, p: int, stream: str, entry: Entry) -> Decided | None:
        """One entry's outcome, or None when it stays pending (a failure with
        deliveries left; the claimer retries it)."""
        with log_context(partition=p, entry=entry.text_id):
            try:
                handled = await self.handler.decide_entry(entry.data, stream, entry.id)
                return Decided(entry, handled)
            except Exception as error:
                # Redis failures, and (as a last resort) any bug the handler did not turn
                # into an outcome: retried a bounded number of times, then dead-lettered.
                kind = failure_kind(error)
                log.exception("command_failure", kind=kind)
                group = keys.DECIDERS_GROUP
                if await deliveries_left(self.redis, stream, group, entry.id, self.max_deliveries):
                    return None
                return Decided(entry, Handled(None, None, dead_letter_reason=f"{kind} failures"))

    async def _settle(self, p: int, stream: str, settled: list[Decided]) -> None:
        """Every reply, dead letter, ``XACK`` and ``XDEL`` of the entries in one pipeline;
        a reply its stream refused becomes a dead letter after it. An entry its append
        settled already adds only what the append left: its answer (``ACKED``), its dead
        letter (if any)."""
        pipe = self.redis.pipeline(transaction=False)
        replies: list[tuple[int, Decided]] = []  # (index of the reply's result, entry)
        ids: list[bytes] = []  # the entries left to acknowledge
        for decided in settled:
            handled = decided.handled
            if handled.settled == NOT_SETTLED:
                ids.append(decided.entry.id)
            answer = handled.settled in (NOT_SETTLED, ACKED) and handled.reply_to
            if answer and handled.outcome is not None:
                replies.append((len(pipe), decided))  # the reply's XADD comes next
                add_reply(pipe, handled, self.handler.store.reply_ttl_s)
            if handled.dead_letter_reason:
                _dead_letter(pipe, p, decided.entry, handled.dead_letter_reason)
            metrics.count_outcome(handled.outcome, dead_letter=bool(handled.dead_letter_reason))
        if ids:
            pipe.xack(stream, keys.DECIDERS_GROUP, *ids)
            pipe.xdel(stream, *ids)
        if not len(pipe):
            return  # every entry was settled by its append: no round trip
        results = await pipe.execute(raise_on_error=False)
        for result in results:
            if isinstance(result, Exception) and not isinstance(result, ResponseError):
                raise result
        if ids and isinstance(results[-2], Exception):
            raise results[-2]  # not acknowledged: the claimer takes the entries again
        for index, decided in replies:
            refused = results[index]
            if isinstance(refused, ResponseError) and not decided.handled.dead_letter_reason:
                # The reply stream is not a stream (a client made the key something else).
                reason = undeliverable(decided.handled, refused)
                await _dead_letter(self.redis, p, decided.entry, reason)


def _dead_letter(redis: Any, p: int, entry: Entry, reason: str) -> Any:
    """The entry's dead letter, without its seat token (on a client or a pipeline)."""
    return add_dead_letter(redis, p, entry.text_id, without_token(entry.data), reason)


def build_decider_app(
    broker: RedisBroker,
    redis: Any,
    partitions: int,
    *,
    consumer: str | None = None,
    claim_idle_ms: int | None = None,
    max_deliveries: int = MAX_DELIVERIES,
    # A reader's XREADGROUP BLOCK time: data ends the block at once, so a long block
    # costs no latency and saves the idle re-polling of every partition.
    polling_ms: int = 2_000,
    batch: int | None = None,
    assignment: Assignment | None = None,
    settings: WorkerSettings | None = None,
    claims: ConsumerSettings | None = None,
) -> FastStream:
    """Subscribe every partition's reader and claimer to an :class:`Intake` on ``redis``
    (the broker's client). ``assignment``: the readers are started and stopped by
    partition ownership (services/assignment.py); without it this process reads every
    partition. ``settings`` and ``claims``: the process's, read once at its start (read
    here without them); ``claim_idle_ms`` and ``batch`` override theirs."""
    settings = settings or WorkerSettings.from_env()
    claims = claims or ConsumerSettings.from_env()
    consumer = consumer or consumer_name("decider")
    claim_idle_ms = claims.claim_idle_ms if claim_idle_ms is None else claim_idle_ms
    batch = settings.intake_batch if batch is None else batch
    handler = CommandHandler(EventStore(redis, partitions, settings=settings), settings=settings)
    intake = Intake(redis, handler, consumer=consumer, max_deliveries=max_deliveries, batch=batch)
    app = FastStream(broker)
    streams = {keys.command_stream(p): p for p in range(partitions)}
    group = keys.DECIDERS_GROUP
    # One XREADGROUP over every partition this worker reads; a cluster refuses a read
    # across slots, so there each partition has a reader of its own.
    readers = add_readers(
        app,
        redis,
        list(streams),
        one_per_stream=isinstance(redis, RedisCluster),
        group=group,
        consumer=consumer,
        on_batches=functools.partial(intake.on_batches, streams),
        count=batch,
        block_ms=polling_ms,
    )
    for stream, p in streams.items():
        subscribe_claimer(
            broker,
            stream,
            group=group,
            consumer=consumer,
            on_claimed=functools.partial(intake.on_batch, p),
            claim_idle_ms=claim_idle_ms,
        )
        if assignment is not None:
            assignment.add_reader(p, readers[stream].switch(stream))
    return app
