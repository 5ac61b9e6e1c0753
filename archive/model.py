"""What the archive keeps of a finished table, as msgspec Structs.

:class:`TableSummary` is the row of the ``archived_tables`` table without the log, with
its :class:`ArchivedSeat` rows: what lists of past games show (a player's games, the
finished tables of a game). :class:`ArchivedTable` is a whole table: the summary plus the
log's envelopes with their hash chain (recomputed on read, see :mod:`archive.packing`).
:class:`Page` is one page of a listing with the cursor of the next one.

Times are unix milliseconds (the log's recorded-at times). A seat's ``player_id`` is the
verified player id its join carried, ``None`` for anonymous and bot seats.

:data:`ChatEntries` is a table's chat as its Redis stream held it: ``(entry id,
__data__ JSON)`` pairs, oldest first (``orrery_contracts.chat`` reads them), deletion
entries included, so a deleted message stays its "deleted" marker. Chat is not part of
the hash-chained log and is stored apart from it.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from orrery_contracts.envelope import RawEnvelope

FinalState = Literal["finished", "closed"]
ChatEntries = list[tuple[str, bytes]]


class ArchivedSeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str
    player_id: str | None = None
    bot: bool = False
    left: bool = False
    rank: int | None = None
    score: int | None = None


class TableSummary(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    game: str
    rules_version: str
    options: dict[str, Any]
    seats: list[ArchivedSeat]
    seat_count: int
    created_at: int
    started_at: int | None
    finished_at: int
    final_state: FinalState
    # why it ended: completed / abandoned / deadline (finished), lobby_ttl (closed)
    reason: str
    event_count: int
    head_hash: str
    seed_commitment: str
    archived_at: int = 0
    rated: bool = True  # false: created unrated (its finish rates nobody)
    # the stored (compressed) log's size and the size of its entries as Redis held them
    stored_bytes: int = 0
    raw_bytes: int = 0


class ArchivedTable(msgspec.Struct, frozen=True, kw_only=True):
    """A whole archived table. ``entries`` carry recomputed hashes: ``intact`` says whether
    the last one equals the head hash stored when the table was archived."""

    summary: TableSummary
    entries: list[RawEnvelope]

    @property
    def intact(self) -> bool:
        if not self.entries:
            return self.summary.event_count == 0
        last = self.entries[-1]
        return last.seq == self.summary.event_count and last.hash == self.summary.head_hash


class Page(msgspec.Struct, frozen=True, kw_only=True):
    """One page of a listing, newest finish first; ``cursor`` fetches the next page
    (``None``: this was the last)."""

    tables: list[TableSummary]
    cursor: str | None = None


class ArchiveStats(msgspec.Struct, frozen=True, kw_only=True):
    tables: int
    events: int
    stored_bytes: int
    raw_bytes: int
    schema_version: int
