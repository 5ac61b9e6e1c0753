"""Views that went back to an older moment, and their tables projected again.

The views are written to replicas but not to the AOF (projections/views.lua): they are
derived from the log, and they were ~31 of the ~37 KB the AOF took per command, which
made the server rewrite its AOF every few seconds under load (docs/scaling.md,
"Durability settings"). After a restart from the AOF the views are as the last rewrite left them,
while the logs, the feeds' acknowledgements and the other projections are as they were.

Each partition keeps a count of its views writes (``keys.views_written_key``), kept out
of the AOF with the views, so the two go back together; each write answers the count
after it, and a projector remembers the highest it saw (:class:`ViewCounts`). Once a
second the projector reads every partition's count: one lower than it saw means that
partition's views went back, and its tables whose views show a seq below their log's
head (:func:`tables_behind`) are projected again. At its start a projector looks at
every partition's tables that way (one that starts with its server has seen no count).

A replica promoted by a failover has the views writes, but replication is asynchronous,
so maybe not the last ones: its count may be lower, and the partition's tables are then
looked at; nothing is written for those whose views are not behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from orrery_contracts import keys
from streams.readers import stop_task

log = structlog.get_logger("orrery.projector")

CHECK_S = 1.0  # how often the counts are read
SCAN_PAGE = 500  # tables looked at per round trip

# Project the tables (table -> its log's head) again; answers those that failed.
Repair = Callable[[dict[str, int]], Awaitable[set[str]]]


class ViewCounts:
    """The highest views-written count this projector saw, per partition."""

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions
        self.seen: dict[int, int] = {}

    def saw(self, p: int, count: int) -> None:
        """A views write of partition ``p`` answered ``count``."""
        if count > self.seen.get(p, 0):
            self.seen[p] = count

    async def went_back(self, redis: Any) -> list[int]:
        """The partitions whose count is now lower than the one seen, in one round trip
        (and the counts read are remembered)."""
        # Compared with what was seen before the read: a write answered meanwhile may have
        # run after the read.
        before = dict(self.seen)
        pipe = redis.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.get(keys.views_written_key(p))
        back: list[int] = []
        for p, raw in enumerate(await pipe.execute()):
            count = int(raw or 0)
            if count < before.get(p, 0):
                back.append(p)
                self.seen[p] = count
            else:
                self.saw(p, count)
        return back


async def tables_behind(redis: Any, p: int) -> dict[str, int]:
    """The partition's tables whose views show a seq below their log's head, with the
    head: the table set walked a page at a time, each page's heads and views' seqs read
    in one round trip."""
    found: dict[str, int] = {}
    cursor = 0
    while True:
        cursor, members = await redis.sscan(keys.tables_set(p), cursor, count=SCAN_PAGE)
        table_ids = [m.decode() if isinstance(m, bytes) else str(m) for m in members]
        if table_ids:
            pipe = redis.pipeline(transaction=False)
            for table_id in table_ids:
                pipe.hget(keys.meta_hash(p, table_id), "seq")
                pipe.get(keys.projection_seq_key(p, table_id, keys.VIEWS_GROUP))
            replies = await pipe.execute()
            for table_id, head, shown in zip(table_ids, replies[::2], replies[1::2], strict=True):
                if head is not None and int(head) > int(shown or 0):
                    found[table_id] = int(head)
        if int(cursor) == 0:
            return found


class RevertWatch:
    """Projects again the tables of partitions whose views went back: every partition at
    the start, then those whose count is lower than seen, read every ``check_s``. A
    partition whose look or repair failed (the server unreachable) is tried again at
    the next check."""

    def __init__(
        self,
        redis: Any,
        counts: ViewCounts,
        repair: Repair,
        check_s: float = CHECK_S,
    ) -> None:
        self.redis = redis
        self.counts = counts
        self.repair = repair
        self.check_s = check_s
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name="revert-watch")

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            await stop_task(task)

    async def _run(self) -> None:
        pending = set(range(self.counts.partitions))
        while True:
            if pending:
                pending = await self.repair_partitions(sorted(pending))
            await asyncio.sleep(self.check_s)
            try:
                back = await self.counts.went_back(self.redis)
            except Exception as error:
                log.warning("views_check_failed", error=repr(error))
                continue
            if back:
                log.warning("views_went_back", partitions=back)
                pending.update(back)

    async def repair_partitions(self, partitions: list[int]) -> set[int]:
        """Project again the partitions' tables whose views are behind; answers the
        partitions that could not be looked at or whose tables failed."""
        failed: set[int] = set()
        behind: dict[str, int] = {}
        for p in partitions:
            try:
                behind.update(await tables_behind(self.redis, p))
            except Exception as error:
                log.warning("views_check_failed", partition=p, error=repr(error))
                failed.add(p)
        if behind:
            try:
                not_made = await self.repair(behind)
            except Exception as error:
                log.warning("views_repair_failed", tables=len(behind), error=repr(error))
                not_made = set(behind)
            log.info("views_projected_again", tables=len(behind), failed=len(not_made))
            failed |= {keys.partition_of(t, self.counts.partitions) for t in not_made}
        return failed
