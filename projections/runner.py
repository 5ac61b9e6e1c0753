"""Projector workers: a FastStream app reading every partition's feed in one consumer
group (``projections``) for every projection, with a claimer per partition for the
entries of a crashed projector. Groups are pre-created at 0 so no history is missed.

Each feed entry is read once and each table folded once per batch; from that one state
the lobby record, the views (one per seat and one for spectators), the clocks' deadlines
index and "your turn" notices (projections/notices.py) and the scoreboard are derived.
A batch costs four round trips whatever its size: the ``XREADGROUP``, one pipeline of
the tables' catch-up reads (``XRANGE`` after the cached seq) and the lobby's reads, one
pipeline of every write (the lobby's script first, so whoever sees a view at seq n finds
the record too, then the views', notices' and score's scripts, each guarded by the seq
it shows), and the ``XACK`` once they all succeeded. (Only when two projectors race on
one table's lobby record does the lobby write come after the views: its script refuses
a record that changed since the read, and the retry follows the pipeline.) On a Redis
Cluster, whose pipelines run per node in parallel, the lobby writes go first in a
pipeline of their own. A cluster pipeline carries the scripts too (queued as plain
``EVALSHA`` commands: redis-py refuses only its ``evalsha`` method there): it groups a
batch's calls per node and sends each node's group on one connection, so a batch takes
one connection per node, however many tables it holds. (Each script on its own, all at
once, took a connection each and exhausted the client's pool of 100 per node under a
burst: ``MaxConnectionsError``, failed batches left to the claimer.)

Until 2026-12 each projection had its own group (``views``, ``scoreboard``):
:func:`ensure_feed_groups` creates the one group where the projections stand (the entry
before the oldest one a projection has not applied) and removes the old ones.

Readers take batches of feed entries through a parser that leaves the raw entries
undecoded; handlers take the message as their only parameter (a ``message`` context
parameter costs a worker-thread hop per delivery in fast_depends).
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
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ClusterDownError, NoScriptError, RedisError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError as NoSuchKey
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.table import TableState
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
                decoded.append((_text(entry_id), feed_decoder.decode(fields[b"__data__"])))
            except (msgspec.DecodeError, KeyError):
                decoded.append((_text(entry_id), None))  # unreadable: the projector skips it
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


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Projector:
    """Applies a batch of feed entries to every projection: each table folded once."""

    def __init__(self, redis: Any, partitions: int, tables: TableCache) -> None:
        self.redis = redis
        self.tables = tables
        self.views = ViewWriter(redis, partitions)
        self.notices = NoticeWriter(redis, partitions)
        self.lobby = LobbyWriter(redis, partitions)
        self.scores = ScoreboardWriter(redis, partitions)
        # A cluster pipeline runs its nodes' parts in parallel: the lobby goes first alone.
        self.cluster = isinstance(redis, RedisCluster)
        self.loaded = False

    async def apply(self, table_id: str, to_seq: int) -> None:
        failed = await self.apply_batch({table_id: to_seq})
        if failed:
            raise failed[table_id]

    async def apply_batch(self, newest: dict[str, int]) -> dict[str, BaseException]:
        """Bring every projection of each table up to at least its seq in ``newest``;
        returns the tables that failed, with their errors (the others are written)."""
        failed: dict[str, BaseException] = {}
        states: dict[str, TableState] = {}
        counts: dict[str, int] = {}

        def queue_lobby_reads(pipe: Any) -> int:
            # The lobby's reads (the record it replaces), in the catch-up's pipeline.
            counts.update((t, self.lobby.queue_reads(pipe, t)) for t in newest)
            return sum(counts.values())

        found, lobby_replies = await self.tables.states(newest, queue_lobby_reads)
        for table_id, state in found.items():
            if isinstance(state, BaseException):
                failed[table_id] = state
            else:
                states[table_id] = state
        if not states:
            return failed
        replies = iter(lobby_replies)
        lobby_reads = {t: [next(replies) for _ in range(n)] for t, n in counts.items()}
        lobby_reads = {t: read for t, read in lobby_reads.items() if t in states}
        for table_id, read in lobby_reads.items():
            error = next((r for r in read if isinstance(r, BaseException)), None)
            if error is not None:
                failed[table_id] = error
                del states[table_id]
        # A finished game's rating before its final score (rare; its own transaction).
        for table_id, state in list(states.items()):
            try:
                await self.scores.before(state)
            except Exception as error:
                failed[table_id] = error
                del states[table_id]
        calls: list[tuple[str, str, Any, list[str], list[Any]]] = []
        lobby_calls = []
        for table_id, state in states.items():
            lobby = self.lobby.call(state, lobby_reads[table_id])
            if lobby is not None:
                lobby_calls.append((table_id, "lobby", None, *lobby))
            calls.append((table_id, "views", None, *self.views.call(state)))
            notices = self.notices.call(state)
            if notices is not None:
                calls.append((table_id, "notices", notices[2], notices[0], notices[1]))
            calls.append((table_id, "score", None, *self.scores.call(state)))
        if self.cluster:
            done = await self._run(lobby_calls)
            done += await self._run(calls)
            calls = lobby_calls + calls
        else:
            calls = lobby_calls + calls
            done = await self._run(calls)
        for (table_id, kind, turns, _, _), result in zip(calls, done, strict=True):
            if table_id in failed:
                continue
            try:
                if isinstance(result, BaseException):
                    raise result
                if kind == "lobby" and result == -1:  # the record changed since the read
                    await self.lobby.write(states[table_id])
                elif kind == "notices":
                    await self.notices.sent(states[table_id], result, turns)
            except Exception as error:
                failed[table_id] = error
        return failed

    def _script(self, kind: str) -> Any:
        if kind == "lobby":
            return self.lobby.script
        if kind == "views":
            return self.views.script
        if kind == "notices":
            return self.notices.script
        return self.scores.guarded_set

    async def _run(self, calls: list[tuple[str, str, Any, list[str], list[Any]]]) -> list[Any]:
        """Every call's script in one pipeline (``EVALSHA``; the scripts are loaded once,
        and again when the server lost them), each call's reply or error. On a cluster,
        the pipeline sends each node's calls together (``SCRIPT LOAD`` goes to every
        primary)."""
        if not calls:
            return []
        if not self.loaded:
            await self._load_scripts()
        replies = await self._pipeline(calls)
        if not any(isinstance(r, NoScriptError) for r in replies):
            return replies
        # The server lost its scripts (a restart without data, SCRIPT FLUSH). Every
        # script is guarded by the seq it writes: running all of them again is safe.
        await self._load_scripts()
        again = await self._pipeline(calls)
        pairs = zip(replies, again, strict=True)
        return [a if isinstance(r, NoScriptError) else r for r, a in pairs]

    async def _pipeline(self, calls: list[tuple[str, str, Any, list[str], list[Any]]]) -> list[Any]:
        pipe = self.redis.pipeline(transaction=False)
        for _, kind, _, script_keys, args in calls:
            # execute_command, not pipe.evalsha: a cluster pipeline refuses the method
            # (not the command), and routes the command by its keys.
            sha = self._script(kind).sha
            pipe.execute_command("EVALSHA", sha, len(script_keys), *script_keys, *args)
        return list(await pipe.execute(raise_on_error=False))

    async def _load_scripts(self) -> None:
        for kind in ("lobby", "views", "notices", "score"):
            script = self._script(kind)
            script.sha = await self.redis.script_load(script.script)
        self.loaded = True


def build_projector_app(
    broker: RedisBroker,
    partitions: int,
    *,
    consumer: str | None = None,
    # A reader's XREADGROUP BLOCK time: data ends the block at once, so a long block
    # costs no latency and saves the idle re-polling of every partition.
    polling_ms: int = 2_000,
    on_applied: Callable[[str, float], None] | None = None,
) -> FastStream:
    """``on_applied(group, lag_seconds)`` is called after each applied feed entry
    (the metrics hook; projections do not import the services' metrics module)."""
    consumer = (
        consumer
        or os.environ.get("ORRERY_CONSUMER")
        or (f"projector-{socket.gethostname()}-{os.getpid()}")
    )
    shared: list[Projector] = []

    def projector() -> Projector:
        if not shared:
            redis = broker._connection
            shared.append(Projector(redis, partitions, TableCache(redis, partitions)))
        return shared[0]

    group = keys.PROJECTIONS_GROUP
    for p in range(partitions):
        # The reader takes batches: a table's entries collapse into one catch-up and
        # one write, and FastStream's per-message cost is paid once per batch.
        reader = StreamSub(
            keys.feed_stream(p),
            group=group,
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
        )(_batch_handler(projector, p, on_applied))
        # The claimer re-takes, one by one, entries a crashed projector (or a failed
        # batch) left pending.
        claimer = StreamSub(
            keys.feed_stream(p),
            group=group,
            consumer=consumer,
            polling_interval=_claim_poll_ms(CLAIM_IDLE_MS),
            min_idle_time=CLAIM_IDLE_MS,
        )
        broker.subscriber(
            stream=claimer,
            ack_policy=AckPolicy.MANUAL,
            include_in_schema=False,
            decoder=_the_message,
        )(_feed_handler(projector, p, on_applied))
    return FastStream(broker)


def _batch_handler(
    projector: Callable[[], Projector], p: int, on_applied: Callable[[str, float], None] | None
) -> Any:
    group = keys.PROJECTIONS_GROUP

    async def on_batch(message: Any) -> None:
        newest: dict[str, int] = {}
        for fields in message.raw_message["data"]:
            try:
                entry = feed_decoder.decode(fields[b"__data__"])
            except (msgspec.DecodeError, KeyError):
                log.warning("feed_entry_unreadable", partition=p)
                continue  # acked with the batch: nothing to apply
            newest[entry.table] = max(entry.to_seq, newest.get(entry.table, 0))
        failed = await _apply_riding_out(projector(), newest, p)
        for table_id, error in failed.items():
            with structlog.contextvars.bound_contextvars(table_id=table_id, seq=newest[table_id]):
                log.error("projection_failed", error=repr(error))
            projector().tables.forget(table_id)
        if failed:
            return  # left pending as a whole: the claimer retries the entries one by one
        ids = message.raw_message.get("message_ids") or [b"0-0"]
        if on_applied is not None:
            now = time.time() * 1000
            for entry_id in ids:
                on_applied(group, (now - int(bytes(entry_id).split(b"-")[0])) / 1000)
        await message.ack()

    return on_batch


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
    projector: Projector, newest: dict[str, int], p: int
) -> dict[str, BaseException]:
    """``apply_batch``; the tables that failed on a transient error are tried again
    (after :data:`RETRY_PAUSES_S`); what still fails is returned."""
    pending, failed = dict(newest), {}
    for pause in (*RETRY_PAUSES_S, None):
        try:
            failed = await projector.apply_batch(pending)
        except Exception as error:
            log.exception("projection_batch_failed", partition=p, tables=sorted(pending))
            failed = dict.fromkeys(pending, error)
        for table_id in failed:
            projector.tables.forget(table_id)
        if pause is None or not failed or not all(map(is_transient, failed.values())):
            return failed
        log.warning("projection_retried", partition=p, tables=len(failed), pause_s=pause)
        await asyncio.sleep(pause)
        pending = {t: newest[t] for t in failed}
    return failed


def _feed_handler(
    projector: Callable[[], Projector], p: int, on_applied: Callable[[str, float], None] | None
) -> Any:
    group = keys.PROJECTIONS_GROUP

    async def on_feed(message: Any) -> None:
        entry_id = message.raw_message.get("message_ids", [b"0-0"])[0]
        try:
            entry = feed_decoder.decode(message.body)
        except Exception:
            log.warning("feed_entry_unreadable", partition=p)
            await message.ack()
            return
        with structlog.contextvars.bound_contextvars(table_id=entry.table, seq=entry.to_seq):
            try:
                await projector().apply(entry.table, entry.to_seq)
            except Exception:
                log.exception("projection_failed")
                if await message.get_delivery_count() < MAX_DELIVERIES:
                    projector().tables.forget(entry.table)
                    return  # stays pending; the claimer retries it
            lag = time.time() * 1000 - int(entry_id.split(b"-")[0])
            if on_applied is not None:
                on_applied(group, lag / 1000)
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
