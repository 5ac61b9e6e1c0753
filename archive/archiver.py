"""The archiver: moves tables that ended more than ``ORRERY_ARCHIVE_AFTER_S`` ago (default
600; 0 = at once) from Redis to the archive (``orrery archiver``; ``orrery serve`` starts
``--archivers N``, default 1; any number may run side by side).

Per table, in this order (archive/hot.py says what each Redis step does):

1. take the table's lease (``orrery:{p}:t:<id>:archiving``, ``ORRERY_ARCHIVE_LEASE_MS``,
   default 30 s, renewed before the delete): archivers side by side never work on one
   table at once; a crashed archiver's lease runs out and another resumes;
2. read the log up to the head in the meta hash, and the table's chat;
3. write it to the archive in one transaction (with up to 49 other tables of its
   partition, each whole or not at all; idempotent: the same head again is a no-op;
   another head is an :class:`~archive.store.ArchiveConflict`: the table is left in
   Redis, logged at error level, counted, and skipped until the process restarts).
   The chat goes in the same transaction, apart from the log, replacing a chat
   stored by an earlier try;
4. read it back: the hash chain recomputed from the stored contents must give every
   entry's hash as Redis holds it, up to the head (so the contents are the same), and
   the chat must be the entries read;
5. delete its hot keys, chat included, behind a tombstone (one script, which first
   checks the table is still ended with the same head and its chat still ends with
   the entry archived: else nothing is deleted and the table is copied again at the
   next pass), then the lobby's and the finished-games records, and last take it out
   of the ended queue.

A crash anywhere (``kill -9``) loses nothing and duplicates nothing: the table stays in
the queue until its last step, and every step is idempotent. When the archive or Redis
cannot be reached, nothing is deleted; the archiver backs off (0.5 s doubling to 30 s)
and tries again. ``ORRERY_FAULT_KILL_ARCHIVER_AFTER=write|verify|delete|lobby`` (tests
only) SIGKILLs the process right after that step of the first table.

Prometheus: ``orrery_archived_tables_total``, ``orrery_archived_bytes_total`` (stored,
compressed), ``orrery_archived_events_total``, ``orrery_archive_failures_total{reason}``,
``orrery_archive_backlog`` and ``orrery_archive_oldest_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import structlog
from prometheus_client import Counter, Gauge
from redis.exceptions import RedisError

from archive.databases import ArchiveUnavailable
from archive.hot import ENDED_PHASES, HotKeys, HotTable
from archive.model import TableSummary
from archive.packing import NotFinished, summarize
from archive.settings import ArchiverSettings
from archive.store import Archive

log = structlog.get_logger("orrery.archiver")

FAULT_STEPS = ("write", "verify", "delete", "lobby")
BATCH = 200  # due tables read per partition and pass
TRANSACTION = 50  # tables written per archive transaction
REDIS_CONCURRENCY = 16  # tables read or removed at once (overlapping round trips)

T = TypeVar("T")
R = TypeVar("R")
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0

ARCHIVED = Counter("orrery_archived_tables", "Tables moved from Redis to the archive")
ARCHIVED_BYTES = Counter("orrery_archived_bytes", "Bytes written to the archive (compressed)")
ARCHIVED_EVENTS = Counter("orrery_archived_events", "Events moved to the archive")
FAILURES = Counter(
    "orrery_archive_failures", "Archiving attempts that failed, by reason", ["reason"]
)
BACKLOG = Gauge("orrery_archive_backlog", "Ended tables not archived yet")
OLDEST = Gauge("orrery_archive_oldest_seconds", "Age of the oldest ended table not archived")

UNREACHABLE = (ArchiveUnavailable, RedisError, OSError)


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Archiver:
    redis: Any
    partitions: int
    archive: Archive
    # (unless given: the process's settings, read when the archiver is made)
    after_s: float = field(default_factory=lambda: ArchiverSettings.from_env().after_s)
    poll_s: float = field(default_factory=lambda: ArchiverSettings.from_env().poll_s)
    concurrency: int = field(default_factory=lambda: ArchiverSettings.from_env().concurrency)
    lease_ms: int = field(default_factory=lambda: ArchiverSettings.from_env().lease_ms)
    name: str = field(default_factory=lambda: f"archiver-{socket.gethostname()}-{os.getpid()}")
    fault: str = field(default_factory=lambda: ArchiverSettings.from_env().fault)
    archived: int = 0
    skipped: set[str] = field(default_factory=set)  # conflicts: left alone until a restart

    def __post_init__(self) -> None:
        self.hot = HotKeys(self.redis, self.partitions)
        self._redis_calls = asyncio.Semaphore(REDIS_CONCURRENCY)

    # ------------------------------------------------------------ the loop

    async def run(self, stop: asyncio.Event) -> None:
        """Archive due tables until ``stop`` is set, backing off while the archive or
        Redis is unreachable."""
        backoff = 0.0
        swept = False
        while not stop.is_set():
            try:
                if not swept:
                    queued = await self.hot.sweep(now_ms())
                    swept = True
                    if queued:
                        log.info("archive_queue_swept", queued=queued)
                moved = await self.run_once()
                await self.export_backlog()
                backoff = 0.0
            except UNREACHABLE as error:
                reason = "archive" if isinstance(error, ArchiveUnavailable) else "redis"
                FAILURES.labels(f"{reason}_unreachable").inc()
                backoff = min(max(backoff * 2, FIRST_BACKOFF_S), MAX_BACKOFF_S)
                log.warning(
                    "archive_retry", unreachable=reason, error=str(error)[:200], in_s=backoff
                )
                await _wait(stop, backoff)
                continue
            if not moved:
                await _wait(stop, self.poll_s)

    async def run_once(self, after_s: float | None = None) -> int:
        """One pass over every partition's due tables; returns how many were archived."""
        cutoff = now_ms() - int(1000 * (self.after_s if after_s is None else after_s))
        limit = asyncio.Semaphore(max(1, self.concurrency))

        async def one_batch(batch: list[str]) -> int:
            async with limit:
                return await self.archive_batch(batch)

        batches: list[list[str]] = []
        order = list(range(self.partitions))
        random.shuffle(order)  # archivers side by side start in different places
        for p in order:
            due = [t for t, _ in await self.hot.due(p, cutoff, BATCH) if t not in self.skipped]
            batches += [due[i : i + TRANSACTION] for i in range(0, len(due), TRANSACTION)]
        results = await asyncio.gather(*(one_batch(b) for b in batches), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return sum(r for r in results if isinstance(r, int))

    async def export_backlog(self) -> None:
        count, oldest = await self.hot.backlog()
        BACKLOG.set(count)
        OLDEST.set(0 if oldest is None else max(0.0, (now_ms() - oldest) / 1000))

    # ------------------------------------------------------------ one table

    async def archive_table(self, table_id: str) -> bool:
        """Moves one ended table; True when this call removed it from Redis."""
        return bool(await self.archive_batch([table_id]))

    async def archive_batch(self, table_ids: list[str]) -> int:
        """Moves ended tables of one partition, written in one archive transaction; how
        many this call removed from Redis."""
        leased = await self._each(table_ids, self._leased)
        ready = [found for found in await self._each(leased, self._ready) if found is not None]
        if not ready:
            return 0
        written, conflicts = await self.archive.put_tables(
            [(s, t.entries) for t, s in ready], chats={t.table_id: t.chat for t, _ in ready}
        )
        for conflict in conflicts:
            self._give_up(conflict.table_id, "conflict", str(conflict))
        self._fault("write")
        ids = [t.table_id for t, _ in ready]
        stored = await self.archive.get_tables(ids)
        chats = await self.archive.get_chats(ids)
        verified = []
        for table, summary in ready:
            if table.table_id in self.skipped:
                continue
            copy = stored.get(table.table_id)
            # the archived chain, recomputed from the stored contents, must give every
            # entry's hash as Redis holds it (so every entry's contents are the same)
            if (
                copy is None
                or not copy.intact
                or [e.hash for e in copy.entries] != [e.hash for e in table.entries]
                or chats.get(table.table_id, []) != table.chat
            ):
                self._give_up(table.table_id, "read_back", "the archived copy differs")
                continue
            verified.append((table, summary, copy.summary.stored_bytes))
        if verified:
            self._fault("verify")
        removed = await self._each(verified, self._remove)
        for (table, summary, stored_bytes), deleted in zip(verified, removed, strict=True):
            if not deleted:
                continue
            ARCHIVED.inc()
            ARCHIVED_EVENTS.inc(summary.event_count)
            if table.table_id in written:
                ARCHIVED_BYTES.inc(stored_bytes)
            log.info("table_archived", table_id=table.table_id, events=summary.event_count)
        moved = sum(removed)
        self.archived += moved
        return moved

    async def _each(self, items: list[T], work: Callable[[T], Awaitable[R]]) -> list[R]:
        """``work`` on every item, at most :data:`REDIS_CONCURRENCY` at once (their Redis
        round trips overlap), results in order."""

        async def one(item: T) -> R:
            async with self._redis_calls:
                return await work(item)

        return list(await asyncio.gather(*(one(item) for item in items)))

    async def _leased(self, table_id: str) -> str | None:
        taken = await self.hot.lease(table_id, self.name, self.lease_ms)
        return table_id if taken else None  # None: another archiver has it

    async def _ready(self, table_id: str | None) -> tuple[HotTable, TableSummary] | None:
        """The ended table and its summary row, or None (and then why is handled)."""
        if table_id is None:
            return None
        table = await self.hot.read(table_id)
        if table is None:
            await self._resume(table_id)
            return None
        if table.phase.encode() not in ENDED_PHASES:
            log.warning("archive_not_ended", table_id=table_id, phase=table.phase)
            await self.hot.done(table_id)
            return None
        last = table.entries[-1] if table.entries else None
        if last is None or last.seq != table.seq or last.hash != table.head_hash:
            self._give_up(table_id, "bad_log", "the log does not reach the head in its meta")
            return None
        try:
            return table, summarize(table.entries, archived_at=now_ms())
        except NotFinished as error:
            self._give_up(table_id, "bad_log", str(error))
            return None

    async def _resume(self, table_id: str) -> None:
        """A queued table with no hot keys: deleted by an archiver that stopped before its
        last steps (finish them), or gone some other way (forget it)."""
        tombstone = await self.hot.tombstone(table_id)
        summary = await self.archive.get_summary(table_id) if tombstone else None
        if summary is not None and summary.head_hash == tombstone.get("head"):
            players = {s.player_id for s in summary.seats if s.player_id}
            await self._forget(table_id, summary.game, summary.created_at, players)
            log.info("archive_resumed", table_id=table_id)
            return
        log.warning("archive_nothing_to_archive", table_id=table_id)
        await self.hot.done(table_id)

    async def _remove(self, verified: tuple[HotTable, TableSummary, int]) -> bool:
        """The hot keys behind a tombstone, then the lobby's and the finished-games
        records, then the queue entry; True when this call deleted the table."""
        table, summary, _ = verified
        await self.hot.lease(table.table_id, self.name, self.lease_ms)
        outcome = await self.hot.delete(
            table, summary.seat_count, summary.finished_at, summary.archived_at
        )
        if outcome in ("changed", "chat_changed"):
            # restored, not what was archived, or chatted since: copy it again later
            log.warning(f"archive_table_{outcome}", table_id=table.table_id)
            return False
        self._fault("delete")
        players = {s.player_id for s in summary.seats if s.player_id}
        await self._forget(table.table_id, summary.game, summary.created_at, players)
        return outcome == "deleted"

    def _give_up(self, table_id: str, reason: str, detail: str) -> None:
        """Leave the table in Redis, say so loudly, and skip it until a restart."""
        FAILURES.labels(reason).inc()
        log.error(f"archive_{reason}", table_id=table_id, error=detail)
        self.skipped.add(table_id)

    async def _forget(self, table_id: str, game: str, created_at: int, players: set[str]) -> None:
        await self.hot.forget_elsewhere(table_id, game, created_at, players)
        self._fault("lobby")
        await self.hot.done(table_id)

    def _fault(self, step: str) -> None:
        if self.fault == step:
            log.warning("fault_kill", step=step)
            os.kill(os.getpid(), signal.SIGKILL)


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
