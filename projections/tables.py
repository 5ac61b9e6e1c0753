"""The projectors' own copy of table states, folded from the log (read only).

A cache of recent tables; a table is caught up by reading the log after its cached
seq, starting from the deciders' snapshot when one exists.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from contracts import keys
from contracts.envelope import decode_entry
from games.table import TableState, apply_entry, decode_snapshot

CACHE_SIZE = 5_000


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

    async def state(self, table_id: str, min_seq: int = 0) -> TableState:
        """The table at least at ``min_seq`` (at the log's end when read)."""
        p = keys.partition_of(table_id, self.partitions)
        state = self.tables.get(table_id)
        if state is None or state.seq < min_seq:
            if state is None:
                snapshot = await self.redis.get(keys.snapshot_key(p, table_id))
                state = decode_snapshot(snapshot) if snapshot else None
                state = state or TableState(table_id=table_id)
            entries = await self.redis.xrange(keys.log_stream(p, table_id), f"({state.seq}-0", "+")
            for _, fields in entries:
                entry = decode_entry(fields[b"e"])
                # Another projection of this process may have caught up meanwhile.
                if entry.seq > state.seq:
                    state = apply_entry(state, entry)
            self.tables[table_id] = state
            if len(self.tables) > CACHE_SIZE:
                self.tables.popitem(last=False)
        self.tables.move_to_end(table_id)
        return state

    def forget(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
