"""The archiver: moves tables that ended more than ``ORRERY_ARCHIVE_AFTER_S`` ago (default
600; 0 = at once) from Redis to the archive (``orrery archiver``; ``orrery serve`` starts
``--archivers N``, default 1; any number may run side by side).

Per table, in this order (archive/hot.py says what each Redis step does):

1. take the table's lease (``orrery:{p}:t:<id>:archiving``, ``ORRERY_ARCHIVE_LEASE_MS``,
   default 30 s, renewed before the delete): archivers side by side never work on one
   table at once; a crashed archiver's lease runs out and another resumes;
2. read the log up to the head in the meta hash and verify its hash chain;
3. write it to the archive in one transaction (idempotent: the same head again is a
   no-op; another head is an :class:`~archive.store.ArchiveConflict`: the table is left
   in Redis, logged at error level, counted, and skipped until the process restarts);
4. read it back and compare every envelope byte for byte and the head hash;
5. delete its hot keys behind a tombstone (one script, which first checks the table
   is still ended with the same head), then the lobby's and the finished-games
   records, and last take it out of the ended queue.

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
from dataclasses import dataclass, field
from typing import Any

import structlog
from prometheus_client import Counter, Gauge
from redis.exceptions import RedisError

from archive.databases import ArchiveUnavailable
from archive.hot import ENDED_PHASES, HotKeys, HotTable
from archive.packing import NotFinished, summarize
from archive.store import Archive, ArchiveConflict
from orrery_contracts.envelope import GENESIS_HASH, chain_hash, encode_entry

log = structlog.get_logger("orrery.archiver")

AFTER_ENV = "ORRERY_ARCHIVE_AFTER_S"
DEFAULT_AFTER_S = 600.0
POLL_ENV = "ORRERY_ARCHIVE_POLL_S"
DEFAULT_POLL_S = 1.0
CONCURRENCY_ENV = "ORRERY_ARCHIVE_CONCURRENCY"
FAULT_ENV = "ORRERY_FAULT_KILL_ARCHIVER_AFTER"
FAULT_STEPS = ("write", "verify", "delete", "lobby")
LEASE_ENV = "ORRERY_ARCHIVE_LEASE_MS"
DEFAULT_LEASE_MS = 30_000
BATCH = 200  # due tables read per partition and pass
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


def archive_after_s() -> float:
    return float(os.environ.get(AFTER_ENV) or DEFAULT_AFTER_S)


class BrokenChain(Exception):
    """The Redis log does not chain up to its head: never archived as it is."""


def verify_hot_chain(table: HotTable) -> None:
    prev = GENESIS_HASH
    for expected_seq, entry in enumerate(table.entries, start=1):
        if entry.seq != expected_seq or entry.prev_hash != prev or chain_hash(entry) != entry.hash:
            raise BrokenChain(f"{table.table_id}: the chain breaks at seq {expected_seq}")
        prev = entry.hash
    if len(table.entries) != table.seq or prev != table.head_hash:
        raise BrokenChain(f"{table.table_id}: the log does not reach its head")


@dataclass
class Archiver:
    redis: Any
    partitions: int
    archive: Archive
    after_s: float = field(default_factory=archive_after_s)
    poll_s: float = field(default_factory=lambda: float(os.environ.get(POLL_ENV) or DEFAULT_POLL_S))
    concurrency: int = field(default_factory=lambda: int(os.environ.get(CONCURRENCY_ENV) or 4))
    lease_ms: int = field(
        default_factory=lambda: int(os.environ.get(LEASE_ENV) or DEFAULT_LEASE_MS)
    )
    name: str = field(default_factory=lambda: f"archiver-{socket.gethostname()}-{os.getpid()}")
    fault: str = field(default_factory=lambda: os.environ.get(FAULT_ENV, ""))
    archived: int = 0
    skipped: set[str] = field(default_factory=set)  # conflicts: left alone until a restart

    def __post_init__(self) -> None:
        self.hot = HotKeys(self.redis, self.partitions)

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
        moved = 0

        async def one(table_id: str, finished_at: int) -> None:
            nonlocal moved
            async with limit:
                if await self.archive_table(table_id, finished_at):
                    moved += 1

        order = list(range(self.partitions))
        random.shuffle(order)  # archivers side by side start in different places
        for p in order:
            due = [(t, f) for t, f in await self.hot.due(p, cutoff, BATCH) if t not in self.skipped]
            results = await asyncio.gather(*(one(t, f) for t, f in due), return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException):
                    raise result
        return moved

    async def export_backlog(self) -> None:
        count, oldest = await self.hot.backlog()
        BACKLOG.set(count)
        OLDEST.set(0 if oldest is None else max(0.0, (now_ms() - oldest) / 1000))

    # ------------------------------------------------------------ one table

    async def archive_table(self, table_id: str, finished_at: int) -> bool:
        """Moves one ended table; True when this call removed it from Redis."""
        if not await self.hot.lease(table_id, self.name, self.lease_ms):
            return False
        with structlog.contextvars.bound_contextvars(table_id=table_id):
            table = await self.hot.read(table_id)
            if table is None:
                tombstone = await self.hot.tombstone(table_id)
                if tombstone:  # deleted by an archiver that stopped before the end
                    summary = await self.archive.get_summary(table_id)
                    if summary is not None and summary.head_hash == tombstone.get("head"):
                        await self._forget(
                            summary.table_id,
                            summary.game,
                            summary.created_at,
                            {s.player_id for s in summary.seats if s.player_id},
                        )
                        log.info("archive_resumed")
                        return False
                log.warning("archive_nothing_to_archive")
                await self.hot.done(table_id)
                return False
            if table.phase.encode() not in ENDED_PHASES:
                log.warning("archive_not_ended", phase=table.phase)
                await self.hot.done(table_id)
                return False
            try:
                verify_hot_chain(table)
                summary = summarize(table.entries, archived_at=now_ms())
            except (BrokenChain, NotFinished) as error:
                FAILURES.labels("bad_log").inc()
                log.error("archive_bad_log", error=str(error))
                self.skipped.add(table_id)
                return False
            try:
                await self.archive.put_table(summary, table.entries)
            except ArchiveConflict as error:
                FAILURES.labels("conflict").inc()
                log.error("archive_conflict", error=str(error))
                self.skipped.add(table_id)
                return False
            self._fault("write")
            stored = await self.archive.get_table(table_id)
            if (
                stored is None
                or not stored.intact
                or [encode_entry(e) for e in stored.entries]
                != [encode_entry(e) for e in table.entries]
            ):
                FAILURES.labels("read_back").inc()
                log.error("archive_read_back_differs")
                self.skipped.add(table_id)
                return False
            self._fault("verify")
            await self.hot.lease(table_id, self.name, self.lease_ms)
            outcome = await self.hot.delete(
                table, summary.seat_count, summary.finished_at, summary.archived_at
            )
            if outcome == "changed":  # restored, or not what was archived: look again later
                log.warning("archive_table_changed")
                return False
            self._fault("delete")
            players = {s.player_id for s in summary.seats if s.player_id}
            await self._forget(table_id, summary.game, summary.created_at, players)
            if outcome == "deleted":
                self.archived += 1
                ARCHIVED.inc()
                ARCHIVED_EVENTS.inc(summary.event_count)
                ARCHIVED_BYTES.inc(stored.summary.stored_bytes)
                log.info("table_archived", events=summary.event_count)
            return outcome == "deleted"

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
