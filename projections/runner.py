"""Projector workers: a FastStream app reading every partition's feed in one consumer
group (``projections``) for every projection, with a claimer per partition for the
entries of a crashed projector. Groups are pre-created at 0 so no history is missed.

A batch is every partition's new entries at one wake-up: on a standalone server one
``XREADGROUP`` names every feed (streams/readers.py ``GroupReader``); a Redis Cluster
refuses a read across slots, so there each feed has its own FastStream reader and the
batches they deliver while one is handled are handled together (``BatchCoalescer``).
Under load a per-feed batch held about one entry, so every per-batch cost below was
paid per command; a batch over every feed holds several. Two batches are handled at
once (so an entry that arrives during a batch's round trips does not wait for all of
them); the writes below are guarded by seq, as they are for two projectors.

Each feed entry is read once and each table folded once per batch; from that one state
the lobby record, the views (one per seat and one for spectators), the clocks' deadlines
index and "your turn" notices (projections/notices.py) and the scoreboard are derived. A
batch costs three round trips whatever its size: the read, one pipeline of the tables'
catch-up reads (``XRANGE`` after the cached seq; the lobby's reads only for a record
this projector did not write last), and one pipeline of every write: **one script call
per partition** (projections/writes.py ``WriteBatch``) that runs the lobby's, the views',
notices' and score's scripts of each of the partition's tables, lobby first (so whoever
sees a view at seq n finds the record too), each guarded by the seq it shows, and then
acknowledges the partition's feed entries (``XACK``) if every write in it was made; a
write that fails answers its error, the others still run, and the entries stay pending
(the claimer retries them). Only what that call did not acknowledge is acknowledged
after, once every table its entries name is written: when two projectors race on one
table's lobby record, its script refuses a record that changed since the one it
replaces, and the retry follows the pipeline.

On a Redis Cluster a script touches one slot, and the lobby's keys are global: the
lobby writes (a lifecycle event's: create, join, start, leave, the end; a move in play
writes no record, projections/lobby.py) go first, in a pipeline of their own (the nodes
of one pipeline run in parallel), then the partitions' calls, which still acknowledge
their feed entries. A cluster pipeline carries the scripts too (queued as plain
``EVALSHA`` commands: redis-py refuses only its ``evalsha`` method there): it groups a
batch's calls per node and sends each node's group on one connection, so a batch takes
one connection per node, however many tables it holds. (Each script on its own, all at
once, took a connection each and exhausted the client's pool of 100 per node under a
burst: ``MaxConnectionsError``, failed batches left to the claimer.)

The views are not in the AOF (projections/views.lua): after a restart from it, the
tables whose views went back are projected again (projections/reverts.py
``RevertWatch``, which every projector runs beside its readers).

Until 2026-12 each projection had its own group (``views``, ``scoreboard``):
:func:`ensure_feed_groups` creates the one group where the projections stand (the entry
before the oldest one a projection has not applied) and removes the old ones.

The readers and claimers, the raw batches they deliver and the delivery count come
from ``streams/`` (written once for the projectors and the intake); the
writes of a batch are typed work items (projections/writes.py), and what a write's reply
asks for is dispatched by the write's type. The Redis client is the broker's own,
handed in by the process wiring (orrery/runtime.py).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from faststream import FastStream
from faststream.redis import RedisBroker
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ClusterDownError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError as NoSuchKey
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.table import TableState
from orrery_contracts import keys
from orrery_contracts.feed import FeedEntry, feed_decoder
from orrery_contracts.text import as_text
from projections.lobby import LobbyWriter
from projections.notices import NoticeWriter
from projections.reverts import RevertWatch, ViewCounts
from projections.scoreboard import ScoreboardWriter
from projections.settings import ProjectorSettings
from projections.tables import TableCache
from projections.views import ViewWriter
from projections.writes import (
    FeedAck,
    LobbyWrite,
    NoticesWrite,
    ScriptWrite,
    ViewsWrite,
    WriteBatch,
)
from streams.batches import Batch, Entry
from streams.consumers import MAX_DELIVERIES, consumer_name, create_group
from streams.deliveries import deliveries_left
from streams.readers import BatchCoalescer, BatchesHandler, add_readers
from streams.scripts import resend_refused
from streams.settings import ConsumerSettings
from streams.subscribers import subscribe_claimer

log = structlog.get_logger("orrery.projector")

BATCH = 64


async def ensure_feed_groups(redis: Any, partitions: int) -> list[str]:
    """Create every missing projection group: at 0 on a new feed, else where the
    projections stand (:func:`feed_resume_id`); remove the groups of the old layout.

    A group can go missing on a feed that has entries: lost with the server's data, or
    never replicated to a replica that a failover promoted. Recreated just before the
    oldest entry whose table a projection has not applied up to that entry's seq,
    nothing is skipped and nothing already applied is read again. A feed that still
    has the old per-projection groups (``views``, ``scoreboard``) gets its one group the
    same way, and the old groups are destroyed (their pending entries need no claim: the
    new group starts before every entry that is not applied)."""
    created = []
    for p in range(partitions):
        stream = keys.feed_stream(p)
        try:
            present = {as_text(g["name"]) for g in await redis.xinfo_groups(stream)}
        except NoSuchKey:  # no such stream yet
            present = set()
        for group in keys.PROJECTION_GROUPS:
            if group in present:
                continue
            start = await feed_resume_id(redis, p, group)
            if await create_group(redis, stream, group, start):
                created.append(f"{stream} {group}")
        for legacy in keys.LEGACY_PROJECTION_GROUPS:
            if legacy in present:
                await redis.xgroup_destroy(stream, legacy)
                log.info("feed_group_migrated", stream=stream, removed=legacy)
    return created


FEED_SCAN = 500


async def feed_resume_id(redis: Any, p: int, group: str = keys.PROJECTIONS_GROUP) -> str:
    """The id a recreated ``group`` starts after: the entry before the oldest one whose
    table one of the group's projections has applied to a lower seq than the entry's
    ``to`` ("0": from the start; the last entry's id: everything is applied). ``group``
    may also name one projection (``views``, ``scoreboard``): where it alone stands."""
    projections = keys.PROJECTIONS if group == keys.PROJECTIONS_GROUP else (group,)
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
                decoded.append((as_text(entry_id), feed_decoder.decode(fields[b"__data__"])))
            except (msgspec.DecodeError, KeyError):
                decoded.append((as_text(entry_id), None))  # unreadable: the projector skips it
        unknown = sorted({e.table for _, e in decoded if e is not None} - applied.keys())
        if unknown:
            pipe = redis.pipeline(transaction=False)
            for table_id in unknown:
                for projection in projections:
                    pipe.get(keys.projection_seq_key(p, table_id, projection))
            seqs = iter(await pipe.execute())
            for table_id in unknown:
                applied[table_id] = min(int(next(seqs) or 0) for _ in projections)
        for entry_id, entry in decoded:
            if entry is not None and applied[entry.table] < entry.to_seq:
                return last
            last = entry_id
        start = f"({last}"


class Projector:
    """Applies a batch of feed entries to every projection: each table folded once."""

    def __init__(
        self,
        redis: Any,
        partitions: int,
        tables: TableCache,
        settings: ProjectorSettings | None = None,
    ) -> None:
        self.redis = redis
        self.tables = tables
        self.views = ViewWriter(redis, partitions)
        self.notices = NoticeWriter(redis, partitions, settings)
        self.lobby = LobbyWriter(redis, partitions)
        self.scores = ScoreboardWriter(redis, partitions)
        self.partitions = partitions
        # The views-written counts its views writes answered (projections/reverts.py).
        self.view_counts = ViewCounts(partitions)
        # A partition's writes of a batch (views, notices, score of each of its tables;
        # on a standalone server its tables' lobby writes too) in one script call.
        self.batch = WriteBatch(
            redis,
            [self.views.script, self.notices.script, self.scores.guarded_set, self.lobby.script],
        )
        self.scripts = (
            self.lobby.script,
            self.views.script,
            self.notices.script,
            self.scores.guarded_set,
            self.batch.script,
        )
        # A cluster pipeline runs its nodes' parts in parallel: the lobby goes first alone.
        self.cluster = isinstance(redis, RedisCluster)
        self.loaded = False

    async def apply(self, table_id: str, to_seq: int) -> None:
        failed = await self.apply_batch({table_id: to_seq})
        if failed:
            raise failed[table_id]

    async def apply_batch(
        self, newest: dict[str, int], acks: dict[int, FeedAck] | None = None
    ) -> dict[str, BaseException]:
        """Bring every projection of each table up to at least its seq in ``newest``;
        returns the tables that failed, with their errors (the others are written).

        ``acks``: per partition, feed entries that the call writing the partition's
        tables acknowledges when every write in it is made (a partition one of whose
        tables failed before that call, its record on a cluster included, is left out).
        Each :class:`FeedAck` says whether it was (``done``); the others are the
        caller's."""
        failed: dict[str, BaseException] = {}
        states, lobby_reads = await self._read(newest, failed)
        # A finished game's rating before its final score (rare; its own transaction).
        for table_id, state in list(states.items()):
            try:
                await self.scores.before(state)
            except Exception as error:
                failed[table_id] = error
                del states[table_id]
        lobby_writes, writes = self._writes(states, lobby_reads)
        await self.lobby.announce_takeovers(lobby_writes)
        ordered: list[ScriptWrite] = [*lobby_writes, *writes]
        failing = {keys.partition_of(t, self.partitions) for t in failed}
        acks = {p: ack for p, ack in (acks or {}).items() if p not in failing}
        if self.cluster and lobby_writes:
            # The records go first, alone (the nodes of one pipeline run in parallel).
            # Only a lifecycle event changes one: a move in play writes none.
            done = await self._run(list(lobby_writes))
            for lobby_write, reply in zip(lobby_writes, done, strict=True):
                if isinstance(reply, BaseException) or reply == -1:  # (-1: written again)
                    acks.pop(keys.partition_of(lobby_write.table_id, self.partitions), None)
            done += await self._run(writes, acks)
        else:
            done = await self._run(ordered, acks)
        for write, reply in zip(ordered, done, strict=True):
            if write.table_id in failed:
                continue
            try:
                if isinstance(reply, BaseException):
                    raise reply
                await self._after(write, states[write.table_id], reply)
            except Exception as error:
                failed[write.table_id] = error
        return failed

    async def _read(
        self, newest: dict[str, int], failed: dict[str, BaseException]
    ) -> tuple[dict[str, TableState], dict[str, list[Any]]]:
        """Each table's state and the lobby's reads for it, in one round trip; a table
        whose state or reads failed goes to ``failed`` instead."""
        counts: dict[str, int] = {}

        def queue_lobby_reads(pipe: Any) -> int:
            # The lobby's reads (the record it replaces), in the catch-up's pipeline.
            counts.update((t, self.lobby.queue_reads(pipe, t)) for t in newest)
            return sum(counts.values())

        found, lobby_replies = await self.tables.states(newest, queue_lobby_reads)
        states: dict[str, TableState] = {}
        for table_id, state in found.items():
            if isinstance(state, BaseException):
                failed[table_id] = state
            else:
                states[table_id] = state
        if not states:
            return states, {}
        replies = iter(lobby_replies)
        lobby_reads = {t: [next(replies) for _ in range(n)] for t, n in counts.items()}
        lobby_reads = {t: read for t, read in lobby_reads.items() if t in states}
        for table_id, read in lobby_reads.items():
            error = next((r for r in read if isinstance(r, BaseException)), None)
            if error is not None:
                failed[table_id] = error
                del states[table_id]
        return states, lobby_reads

    def _writes(
        self, states: dict[str, TableState], lobby_reads: dict[str, list[Any]]
    ) -> tuple[list[LobbyWrite], list[ScriptWrite]]:
        """The lobby's writes (sent first: whoever sees a view at seq n finds the record
        too) and every other projection's, for each table."""
        lobby_writes: list[LobbyWrite] = []
        writes: list[ScriptWrite] = []
        for table_id, state in states.items():
            lobby = self.lobby.call(state, lobby_reads[table_id])
            if lobby is not None:
                lobby_writes.append(lobby)
            writes.append(self.views.call(state))
            notices = self.notices.call(state)
            if notices is not None:
                writes.append(notices)
            writes.append(self.scores.call(state))
        return lobby_writes, writes

    async def _after(self, write: ScriptWrite, state: TableState, reply: Any) -> None:
        """What a write's reply asks for, by the write's type."""
        match write:
            case LobbyWrite():
                self.lobby.wrote(write, reply)
                if reply == -1:  # the record changed since the one it replaces
                    await self.lobby.write(state)
            case NoticesWrite(to_players=to_players):
                await self.notices.sent(reply, to_players)
            case ViewsWrite() if isinstance(reply, int) and reply > 0:
                self.view_counts.saw(keys.partition_of(write.table_id, self.partitions), reply)

    async def _run(
        self, writes: list[ScriptWrite], acks: dict[int, FeedAck] | None = None
    ) -> list[Any]:
        """Every write's script in one pipeline (``EVALSHA``; the scripts are loaded once,
        and again when the server lost them), each write's reply or error. On a cluster,
        the pipeline sends each node's calls together (``SCRIPT LOAD`` goes to every
        primary)."""
        if not writes:
            return []
        if not self.loaded:
            await self._load_scripts()
        acks = acks or {}

        async def resend(refused: list[int]) -> list[Any]:
            # (a partition's call is refused whole: its writes and its acks go again)
            return await self._pipeline([writes[i] for i in refused], acks)

        replies = await self._pipeline(writes, acks)
        return await resend_refused(replies, self._load_scripts, resend)

    async def _pipeline(self, writes: list[ScriptWrite], acks: dict[int, FeedAck]) -> list[Any]:
        """One pipeline of one :class:`WriteBatch` call per partition (its tables' lobby
        writes first, on a standalone server, then their other writes; the partition's
        ``acks`` after them), and on a cluster each lobby write's script before them;
        each write's reply or error, in order."""
        pipe = self.redis.pipeline(transaction=False)
        calls: list[tuple[list[int], int | None]] = []  # per call: its writes, partition
        by_partition: dict[int, list[int]] = {}
        for i, write in enumerate(writes):
            if isinstance(write, LobbyWrite) and self.cluster:
                write.queue(pipe)
                calls.append(([i], None))
            else:
                p = keys.partition_of(write.table_id, self.partitions)
                by_partition.setdefault(p, []).append(i)
        for p, indexes in by_partition.items():
            self.batch.queue(pipe, [writes[i] for i in indexes], acks.get(p))
            calls.append((indexes, p))
        replies: list[Any] = [None] * len(writes)
        results = await pipe.execute(raise_on_error=False)
        for (indexes, batched), result in zip(calls, results, strict=True):
            if batched is not None and not isinstance(result, BaseException):
                each = self.batch.replies(result, acks.get(batched))
                for i, reply in zip(indexes, each, strict=True):
                    replies[i] = reply
            else:
                for i in indexes:
                    replies[i] = result
        return replies

    async def _load_scripts(self) -> None:
        for script in self.scripts:
            script.sha = await self.redis.script_load(script.script)
        self.loaded = True


def build_projector_app(
    broker: RedisBroker,
    redis: Any,
    partitions: int,
    *,
    consumer: str | None = None,
    # A reader's XREADGROUP BLOCK time: data ends the block at once, so a long block
    # costs no latency and saves the idle re-polling of every partition.
    polling_ms: int = 2_000,
    on_applied: Callable[[str, float], None] | None = None,
    settings: ProjectorSettings | None = None,
    claims: ConsumerSettings | None = None,
) -> FastStream:
    """Subscribe every partition's feed reader and claimer to one :class:`Projector` on
    ``redis`` (the broker's client). ``on_applied(group, lag_seconds)`` is called after
    each applied feed entry (the metrics hook; projections do not import the services'
    metrics module). ``settings`` and ``claims``: the process's, read once at its start
    (read here without them)."""
    claims = claims or ConsumerSettings.from_env()
    consumer = consumer or consumer_name("projector")
    projector = Projector(redis, partitions, TableCache(redis, partitions), settings)
    feed = FeedHandlers(projector, partitions, on_applied)
    app = FastStream(broker)
    feeds = [keys.feed_stream(p) for p in range(partitions)]
    group = keys.PROJECTIONS_GROUP
    # A batch holds the new entries of every partition: each table is caught up and
    # written once per batch, and the batch's work is paid once per wake-up.
    on_batches: BatchesHandler = feed.on_batches
    if projector.cluster:
        # A cluster refuses a read across slots: a reader per feed, their batches
        # handled together.
        coalescer = BatchCoalescer(feed.on_batches)
        app.after_startup(coalescer.start)
        app.on_shutdown(coalescer.stop)
        on_batches = coalescer.submit_all
    add_readers(
        app,
        redis,
        feeds,
        one_per_stream=projector.cluster,  # else one XREADGROUP over every feed
        group=group,
        consumer=consumer,
        on_batches=on_batches,
        count=BATCH,
        block_ms=polling_ms,
    )
    # Views that went back (a restart from the AOF, which does not hold them) are
    # projected again: every partition's at the start, then those whose count went back.
    watch = RevertWatch(redis, projector.view_counts, functools.partial(project_again, projector))
    app.after_startup(watch.start)
    app.on_shutdown(watch.stop)
    app.on_shutdown(projector.scores.close)
    for p, stream in enumerate(feeds):
        # The claimer re-takes, one by one, entries a crashed projector (or a failed
        # batch) left pending.
        on_claimed = functools.partial(feed.on_claimed, p)
        subscribe_claimer(
            broker,
            stream,
            group=group,
            consumer=consumer,
            on_claimed=on_claimed,
            claim_idle_ms=claims.claim_idle_ms,
        )
    return app


class FeedHandlers:
    """What the feed's readers and claimers do with their entries."""

    def __init__(
        self,
        projector: Projector,
        partitions: int,
        on_applied: Callable[[str, float], None] | None,
    ) -> None:
        self.projector = projector
        self.on_applied = on_applied
        self.redis = projector.redis
        self.partition_of_feed = {keys.feed_stream(p): p for p in range(partitions)}

    async def on_batches(self, batches: list[Batch]) -> None:
        """Apply the batches of one read (a batch per feed) together; each feed's
        entries are acknowledged once every table they name is written, else left
        pending (the claimer retries them one by one)."""
        newest: dict[str, int] = {}
        tables: dict[str, set[str]] = {}  # feed -> the tables its entries name
        for batch in batches:
            named = tables.setdefault(batch.stream, set())
            for entry in batch.entries:
                try:
                    feed_entry = feed_decoder.decode(entry.data)
                except msgspec.DecodeError:
                    log.warning("feed_entry_unreadable", stream=batch.stream)
                    continue  # acked with the batch: nothing to apply
                table_id = feed_entry.table
                newest[table_id] = max(feed_entry.to_seq, newest.get(table_id, 0))
                named.add(table_id)
        partitions = sorted({self.partition_of_feed.get(b.stream, -1) for b in batches})
        # Each feed's entries are acknowledged by the call that writes its partition's
        # tables, when every write in it is made; the rest here.
        acks = self._acks(batches)
        failed = await _apply_riding_out(self.projector, newest, partitions, acks)
        _log_failed(failed, newest)
        applied = [b for b in batches if not tables[b.stream] & failed.keys()]
        if not applied:
            return
        for batch in applied:
            self._applied(batch.entries)
        acked = {ack.stream for ack in acks.values() if ack.done}
        left = [batch for batch in applied if batch.stream not in acked]
        if not left:
            return
        pipe = self.redis.pipeline(transaction=False)
        for batch in left:
            pipe.xack(batch.stream, keys.PROJECTIONS_GROUP, *batch.ids)
        await pipe.execute()

    def _acks(self, batches: list[Batch]) -> dict[int, FeedAck]:
        """Each feed's entries, by partition, for the partition's write call to
        acknowledge. One feed may have several batches here (on a cluster a feed's
        reader has two reads in flight, and the coalescer hands both over together):
        their entries are acknowledged together."""
        acks: dict[int, FeedAck] = {}
        for batch in batches:
            p = self.partition_of_feed.get(batch.stream)
            if p is None:
                continue
            if p in acks:
                acks[p].ids.extend(batch.ids)
            else:
                acks[p] = FeedAck(batch.stream, keys.PROJECTIONS_GROUP, list(batch.ids))
        return acks

    async def on_claimed(self, p: int, batch: Batch) -> None:
        """Apply a claimed entry; one that keeps failing is given up (acknowledged)
        after :data:`~streams.consumers.MAX_DELIVERIES`."""
        (entry,) = batch.entries
        try:
            feed_entry = feed_decoder.decode(entry.data)
        except Exception:
            log.warning("feed_entry_unreadable", partition=p)
            await self.redis.xack(batch.stream, keys.PROJECTIONS_GROUP, entry.id)
            return
        table_id = feed_entry.table
        with structlog.contextvars.bound_contextvars(table_id=table_id, seq=feed_entry.to_seq):
            try:
                await self.projector.apply(table_id, feed_entry.to_seq)
            except Exception:
                log.exception("projection_failed")
                group = keys.PROJECTIONS_GROUP
                if await deliveries_left(self.redis, batch.stream, group, entry.id, MAX_DELIVERIES):
                    self.projector.tables.forget(table_id)
                    return  # stays pending; the claimer retries it
            self._applied(batch.entries)
            await self.redis.xack(batch.stream, keys.PROJECTIONS_GROUP, entry.id)

    def _applied(self, entries: tuple[Entry, ...]) -> None:
        if self.on_applied is None:
            return
        now = time.time() * 1000
        for entry in entries:
            self.on_applied(keys.PROJECTIONS_GROUP, (now - entry.time_ms) / 1000)


# A connection lost under a batch (a node restarting, a failover; redis-py's cluster
# client may then raise AttributeError "'NoneType' object has no attribute
# 'writelines'" while it rebuilds its connections): the batch is tried again here after
# a pause, before it is left to the claimer's idle time (every write is seq-guarded, so
# a repeat is harmless).
TRANSIENT = (RedisConnectionError, RedisTimeoutError, ClusterDownError, TryAgainError)
RETRY_PAUSES_S = (0.05, 0.25, 1.0)


def is_transient(error: BaseException) -> bool:
    """A lost or refused connection, not a fault of the data."""
    if isinstance(error, AttributeError):
        return "writelines" in str(error) or "NoneType" in str(error)
    return isinstance(error, TRANSIENT)


async def _apply_riding_out(
    projector: Projector,
    newest: dict[str, int],
    partitions: list[int],
    acks: dict[int, FeedAck] | None = None,
) -> dict[str, BaseException]:
    """``apply_batch``; the tables that failed on a transient error are tried again
    (after :data:`RETRY_PAUSES_S`; a partition's ``acks`` go with its retried writes,
    which come after those of its tables that were made); what still fails is returned,
    and every table that failed is forgotten from the cache (read again from Redis next
    time)."""
    pending, failed = dict(newest), {}
    for pause in (*RETRY_PAUSES_S, None):
        try:
            failed = await projector.apply_batch(pending, acks)
        except Exception as error:
            log.exception("projection_batch_failed", partitions=partitions, tables=sorted(pending))
            failed = dict.fromkeys(pending, error)
        for table_id in failed:
            projector.tables.forget(table_id)
        if pause is None or not failed or not all(map(is_transient, failed.values())):
            return failed
        log.warning("projection_retried", partitions=partitions, tables=len(failed), pause_s=pause)
        await asyncio.sleep(pause)
        pending = {t: newest[t] for t in failed}
    return failed


async def project_again(projector: Projector, behind: dict[str, int]) -> set[str]:
    """Project the tables again up to their heads (``behind``: table -> head), a batch
    at a time; answers those that failed (logged)."""
    failed: set[str] = set()
    items = list(behind.items())
    for start in range(0, len(items), BATCH):
        newest = dict(items[start : start + BATCH])
        partitions = sorted({keys.partition_of(t, projector.partitions) for t in newest})
        errors = await _apply_riding_out(projector, newest, partitions)
        _log_failed(errors, newest)
        failed |= errors.keys()
    return failed


def _log_failed(failed: dict[str, BaseException], newest: dict[str, int]) -> None:
    for table_id, error in failed.items():
        with structlog.contextvars.bound_contextvars(table_id=table_id, seq=newest[table_id]):
            log.error("projection_failed", error=repr(error))
