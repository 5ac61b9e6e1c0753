"""The projectors' own copy of table states, folded from the log (read only).

A cache of recent tables; a table is caught up by reading the log after its cached
seq, starting from the deciders' snapshot when one exists. :meth:`TableCache.states`
catches up a batch's cached tables with one pipelined ``XRANGE`` each (one round trip).

A cached state is checked against the log before each use: the read starts at the
cached seq itself, whose entry must still carry the cached head hash. After a cluster
failover the promoted replica may not have the newest events (replication is
asynchronous) and later ones get the same seqs; a cache that held the lost events is
then dropped and the table read again, so no view shows an event the log lost.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from games.table import TableState, apply_entry, decode_snapshot
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry

CACHE_SIZE = 5_000
# Tables read one by one at once per process (each holds a Redis connection): a burst of
# new tables over every partition must not exhaust the client's pool.
COLD_READS = 32


async def read_table(
    redis: Any, partitions: int, table_id: str, to_seq: int | None = None
) -> TableState:
    """The table folded from its log up to ``to_seq`` (default: the end), without snapshots."""
    p = keys.partition_of(table_id, partitions)
    end = "+" if to_seq is None else f"{to_seq}-0"
    state = TableState(table_id=table_id)
    for _, fields in await redis.xrange(keys.log_stream(p, table_id), "-", end):
        state = apply_entry(state, decode_entry(fields[b"e"]))
    return state


class TableCache:
    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self.tables: OrderedDict[str, TableState] = OrderedDict()
        self.cold = asyncio.Semaphore(COLD_READS)

    async def state(self, table_id: str, min_seq: int = 0) -> TableState:
        """The table at least at ``min_seq`` (at the log's end when read)."""
        p = keys.partition_of(table_id, self.partitions)
        log = keys.log_stream(p, table_id)
        state = self.tables.get(table_id)
        if state is not None and state.seq > 0:
            # (another projection of this process may fold the same copy meanwhile)
            seq, head_hash = state.seq, state.head_hash
            entries = await self.redis.xrange(log, f"{seq}-0", "+")
            head = decode_entry(entries[0][1][b"e"]) if entries else None
            if head is None or head.seq != seq or head.hash != head_hash:
                state = None  # the log no longer has what this copy folded
            else:
                state = self._fold(state, entries[1:])
        if state is None or state.seq < min_seq:
            if state is None:
                snapshot = await self.redis.get(keys.snapshot_key(p, table_id))
                state = decode_snapshot(snapshot) if snapshot else None
                state = state or TableState(table_id=table_id)
            entries = await self.redis.xrange(log, f"({state.seq}-0", "+")
            state = self._fold(state, entries)
        self._keep(table_id, state)
        return state

    async def states(
        self, wanted: dict[str, int], also: Callable[[Any], int] | None = None
    ) -> tuple[dict[str, TableState | BaseException], list[Any]]:
        """Each table at least at its seq in ``wanted`` (or what failed): the cached ones
        caught up in one pipeline, the others (and any whose copy no longer matches the
        log) read one by one, concurrently. ``also(pipe)`` queues the caller's own reads on
        that pipeline (one round trip for both) and returns how many; their replies (or
        errors) come second."""
        out: dict[str, TableState | BaseException] = {}
        cached = [(t, s) for t in wanted if (s := self.tables.get(t)) is not None and s.seq > 0]
        extra: list[Any] = []
        if cached or also is not None:
            pipe = self.redis.pipeline(transaction=False)
            for table_id, state in cached:
                p = keys.partition_of(table_id, self.partitions)
                pipe.xrange(keys.log_stream(p, table_id), f"{state.seq}-0", "+")
            count = also(pipe) if also is not None else 0
            replies = await pipe.execute(raise_on_error=False) if len(pipe) else []
            if count:
                replies, extra = replies[:-count], replies[-count:]
            for (table_id, state), entries in zip(cached, replies, strict=True):
                if isinstance(entries, BaseException):
                    out[table_id] = entries
                    continue
                head = decode_entry(entries[0][1][b"e"]) if entries else None
                if head is None or head.seq != state.seq or head.hash != state.head_hash:
                    continue  # the log no longer has what this copy folded: read again
                state = self._fold(state, entries[1:])
                if state.seq >= wanted[table_id]:
                    self._keep(table_id, state)
                    out[table_id] = state
        rest = [t for t in wanted if t not in out]
        if rest:
            for table_id in rest:
                self.tables.pop(table_id, None)
            read = await asyncio.gather(
                *(self._cold(t, wanted[t]) for t in rest), return_exceptions=True
            )
            out.update(zip(rest, read, strict=True))
        return out, extra

    async def _cold(self, table_id: str, min_seq: int) -> TableState:
        async with self.cold:
            return await self.state(table_id, min_seq)

    def _keep(self, table_id: str, state: TableState) -> None:
        self.tables[table_id] = state
        if len(self.tables) > CACHE_SIZE:
            self.tables.popitem(last=False)
        self.tables.move_to_end(table_id)

    @staticmethod
    def _fold(state: TableState, entries: list[Any]) -> TableState:
        for _, fields in entries:
            entry = decode_entry(fields[b"e"])
            # Another projection of this process may have caught up meanwhile.
            if entry.seq > state.seq:
                state = apply_entry(state, entry)
        return state

    def forget(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
