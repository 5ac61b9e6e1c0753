"""The archive store: finished tables in a real database, read and written by URL.

``await open_archive(url)`` connects (``sqlite:///path`` or ``postgresql://…``), applies
the numbered migrations the database has not seen yet (``schema_version``) and returns
an :class:`Archive`:

* :meth:`Archive.put_table` — one transaction per table: the table row and its seat
  rows. Idempotent: the same table again with the same head hash is a no-op (returns
  False); with a different head hash it raises :class:`ArchiveConflict` and overwrites
  nothing (the archiver stops on it and alerts).
  With ``chats``, each table's chat (:mod:`archive.chat`) is written in the same
  transaction, replacing the one stored before (the Redis stream is the truth until
  the table leaves Redis); it is kept apart from the log and its hash chain.
* :meth:`Archive.get_table` / :meth:`Archive.get_summary` — one table, whole or its row.
* :meth:`Archive.get_chat` — a table's chat (None: none stored);
  :meth:`Archive.delete_chat_message` — an operator's delete in an archived chat.
* :meth:`Archive.player_games` / :meth:`Archive.finished_tables` — pages, newest first.
* :meth:`Archive.in_finish_order` — every finished table of a game, oldest first.

Cursors are opaque strings to callers (``<finished_at>:<table_id>``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from archive import sql
from archive.chat import CHAT_FORMAT, pack_chat, unpack_chat, without_message
from archive.databases import ArchiveUnavailable, Database, Row, Transaction, database_for
from archive.model import (
    ArchivedSeat,
    ArchivedTable,
    ArchiveStats,
    ChatEntries,
    Page,
    TableSummary,
)
from archive.packing import LOG_FORMAT, pack, raw_size, unpack
from archive.settings import ARCHIVE_URL_ENV as ARCHIVE_URL_ENV
from orrery_contracts.envelope import RawEnvelope

MAX_PAGE = 100

_json = msgspec.json.Encoder()
_options_decoder = msgspec.json.Decoder(dict[str, Any])


class ArchiveConflict(Exception):
    """The archive holds this table with another head hash: never overwritten."""

    def __init__(self, table_id: str, stored: str, offered: str) -> None:
        super().__init__(
            f"table {table_id} is archived with head {stored[:16]}…, not {offered[:16]}…"
        )
        self.table_id = table_id
        self.stored = stored
        self.offered = offered


class BadCursor(ValueError):
    pass


def default_archive_url(data_dir: Path) -> str:
    """The embedded default: ``<data-dir>/data/archive.sqlite3``."""
    return f"sqlite:///{(data_dir / 'data' / 'archive.sqlite3').resolve()}"


def encode_cursor(summary: TableSummary) -> str:
    return f"{summary.finished_at}:{summary.table_id}"


def decode_cursor(cursor: str) -> tuple[int, str]:
    finished, _, table_id = cursor.partition(":")
    if not finished.isdigit() or not table_id or len(cursor) > 200:
        raise BadCursor("not a cursor of this listing")
    return int(finished), table_id


def _limit(limit: int) -> int:
    return max(1, min(int(limit), MAX_PAGE))


class Archive:
    def __init__(self, db: Database, url: str) -> None:
        self.db = db
        self.url = url
        self.schema_version = 0

    @property
    def kind(self) -> str:
        return self.db.dialect

    # ------------------------------------------------------------ lifecycle

    async def migrate(self) -> int:
        """Applies the migrations not applied yet, each in its own transaction with its
        ``schema_version`` row; returns the version in force."""
        for number, script in sql.migrations():
            async with self.db.transaction() as tx:
                if self.db.dialect == "postgresql":
                    await tx.fetchall(sql.PG_MIGRATION_LOCK)
                await tx.execute(sql.SCHEMA_VERSION_TABLE)
                done = {row[0] for row in await tx.fetchall(sql.SCHEMA_VERSIONS)}
                if number in done:
                    continue
                for statement in sql.statements(script, self.db.blob):
                    await tx.execute(statement)
                await tx.execute(sql.RECORD_VERSION, (number, int(time.time() * 1000)))
        async with self.db.transaction() as tx:
            versions = [row[0] for row in await tx.fetchall(sql.SCHEMA_VERSIONS)]
        self.schema_version = max(versions, default=0)
        return self.schema_version

    async def close(self) -> None:
        await self.db.close()

    async def ping(self) -> bool:
        try:
            async with self.db.transaction() as tx:
                await tx.fetchall(sql.PING)
        except ArchiveUnavailable:
            return False
        return True

    # ------------------------------------------------------------ writes

    async def put_table(self, summary: TableSummary, entries: Sequence[RawEnvelope]) -> bool:
        """Archives a table (its summary from :func:`archive.packing.summarize`); False
        when it was archived already with the same head."""
        written, conflicts = await self.put_tables([(summary, entries)])
        if conflicts:
            raise conflicts[0]
        return summary.table_id in written

    async def put_tables(
        self,
        tables: Sequence[tuple[TableSummary, Sequence[RawEnvelope]]],
        chats: Mapping[str, ChatEntries] | None = None,
    ) -> tuple[set[str], list[ArchiveConflict]]:
        """Archives several tables in one transaction (each whole or not at all): the ids
        written now, and a conflict for each table archived before with another head
        (not written). A table archived before with the same head is neither. The chat
        of every table in ``chats`` that is not a conflict replaces its stored chat (an
        empty one: none stored)."""
        rows: list[tuple[TableSummary, bytes]] = []
        for summary, entries in tables:
            stored = pack(entries)
            complete = msgspec.structs.replace(
                summary,
                archived_at=summary.archived_at or int(time.time() * 1000),
                stored_bytes=len(stored),
                raw_bytes=raw_size(entries),
            )
            rows.append((complete, stored))
        written: set[str] = set()
        present: list[TableSummary] = []
        async with self.db.transaction() as tx:
            for summary, stored in rows:
                if await tx.execute(sql.INSERT_TABLE, (*_summary_row(summary), LOG_FORMAT, stored)):
                    for seat in summary.seats:
                        await tx.execute(sql.INSERT_SEAT, _seat_row(summary, seat))
                    written.add(summary.table_id)
                else:
                    present.append(summary)
            heads = {}
            if present:
                ids = [s.table_id for s in present]
                heads = dict(await tx.fetchall(sql.heads_of(len(ids)), ids))
            same = {s.table_id for s in present if heads.get(s.table_id) == s.head_hash}
            for table_id, chat in (chats or {}).items():
                if table_id in written or table_id in same:
                    await _put_chat(tx, table_id, chat)
        conflicts = [
            ArchiveConflict(s.table_id, heads.get(s.table_id, ""), s.head_hash)
            for s in present
            if heads.get(s.table_id) != s.head_hash
        ]
        return written, conflicts

    async def replace_log(self, table_id: str, entries: Sequence[RawEnvelope]) -> None:
        """Overwrites a stored log without touching its head hash: for tests that tamper
        with an archived table (an audit must then fail). Never used by the service."""
        async with self.db.transaction() as tx:
            await tx.execute(sql.REPLACE_LOG, (pack(entries), table_id))

    async def delete_chat_message(
        self, table_id: str, message_id: str, now_ms: int | None = None
    ) -> bool:
        """Removes a message from an archived chat, leaving its "deleted" marker; False
        when the archived chat has no such message."""
        async with self.db.transaction() as tx:
            rows = await tx.fetchall(sql.CHAT_FOR_UPDATE[self.db.dialect], (table_id,))
            if not rows:
                return False
            chat_format, data = rows[0]
            now = int(time.time() * 1000) if now_ms is None else now_ms
            changed = without_message(unpack_chat(bytes(data), int(chat_format)), message_id, now)
            if changed is None:
                return False
            await _put_chat(tx, table_id, changed)
        return True

    # ------------------------------------------------------------ reads

    async def get_chat(self, table_id: str) -> ChatEntries | None:
        """The table's archived chat, oldest entry first; None when none is stored."""
        return (await self.get_chats([table_id])).get(table_id)

    async def get_chats(self, table_ids: Sequence[str]) -> dict[str, ChatEntries]:
        """The archived chats of several tables (those that have one), by id."""
        if not table_ids:
            return {}
        ids = list(table_ids)
        async with self.db.transaction() as tx:
            rows = await tx.fetchall(sql.chats_of(len(ids)), ids)
        return {table_id: unpack_chat(bytes(data), int(fmt)) for table_id, fmt, data in rows}

    async def get_summary(self, table_id: str) -> TableSummary | None:
        async with self.db.transaction() as tx:
            rows = await tx.fetchall(sql.summaries_of(1), (table_id,))
            summaries = await self._with_seats(tx, rows)
        return summaries[0] if summaries else None

    async def get_table(self, table_id: str) -> ArchivedTable | None:
        """The table with its whole log (hashes recomputed; see ``ArchivedTable.intact``)."""
        return (await self.get_tables([table_id])).get(table_id)

    async def get_tables(self, table_ids: Sequence[str]) -> dict[str, ArchivedTable]:
        """Several whole tables (those archived), by id, read in one transaction."""
        if not table_ids:
            return {}
        ids = list(table_ids)
        async with self.db.transaction() as tx:
            rows = await tx.fetchall(sql.summaries_of(len(ids)), ids)
            summaries = await self._with_seats(tx, rows)
            logs = {row[0]: row[1:] for row in await tx.fetchall(sql.logs_of(len(ids)), ids)}
        found = {}
        for summary in summaries:
            log_format, data = logs[summary.table_id]
            entries = unpack(summary.table_id, bytes(data), int(log_format))
            found[summary.table_id] = ArchivedTable(summary=summary, entries=entries)
        return found

    async def finished_tables(
        self,
        game: str | None = None,
        cursor: str | None = None,
        limit: int = 20,
        final_state: str | None = None,
    ) -> Page:
        """Archived tables (of one game; ``finished`` or ``closed`` only), newest finish
        first."""
        params: list[Any] = [game] if game else []
        if final_state:
            params.append(final_state)
        if cursor:
            params += decode_cursor(cursor)
        query = sql.finished_tables(bool(game), bool(cursor), bool(final_state))
        return await self._page(query, params, limit)

    async def player_games(
        self, player_id: str, game: str | None = None, cursor: str | None = None, limit: int = 20
    ) -> Page:
        """The archived tables where a verified player held a seat, newest finish first."""
        params: list[Any] = [player_id] + ([game] if game else [])
        if cursor:
            params += decode_cursor(cursor)
        return await self._page(sql.player_games(bool(game), bool(cursor)), params, limit)

    async def in_finish_order(
        self, game: str | None = None, chunk: int = 500
    ) -> AsyncIterator[TableSummary]:
        """Every archived table (of one game) that ended with a standing, oldest finish
        first."""
        after: tuple[int, str] | None = None
        while True:
            params: list[Any] = [game] if game else []
            if after is not None:
                params += after
            async with self.db.transaction() as tx:
                rows = await tx.fetchall(
                    sql.in_finish_order(bool(game), after is not None), (*params, chunk)
                )
                summaries = await self._with_seats(tx, rows)
            for summary in summaries:
                yield summary
            if len(rows) < chunk:
                return
            after = (summaries[-1].finished_at, summaries[-1].table_id)

    async def stats(self) -> ArchiveStats:
        async with self.db.transaction() as tx:
            tables, events, stored, raw = (await tx.fetchall(sql.STATS))[0]
        return ArchiveStats(
            tables=int(tables),
            events=int(events),
            stored_bytes=int(stored),
            raw_bytes=int(raw),
            schema_version=self.schema_version,
        )

    async def disk_bytes(self) -> int:
        """What the archive's tables and indexes take on disk."""
        async with self.db.transaction() as tx:
            return int((await tx.fetchall(sql.DISK_BYTES[self.db.dialect]))[0][0])

    async def _page(self, query: str, params: list[Any], limit: int) -> Page:
        limit = _limit(limit)
        async with self.db.transaction() as tx:
            rows = await tx.fetchall(query, (*params, limit + 1))
            summaries = await self._with_seats(tx, rows[:limit])
        more = len(rows) > limit
        return Page(tables=summaries, cursor=encode_cursor(summaries[-1]) if more else None)

    async def _with_seats(self, tx: Transaction, rows: list[Row]) -> list[TableSummary]:
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seats: dict[str, list[ArchivedSeat]] = {table_id: [] for table_id in ids}
        for seat_row in await tx.fetchall(sql.seats_of(len(ids)), ids):
            table_id, seat, name, player_id, bot, conceded, rank, score = seat_row
            seats[table_id].append(
                ArchivedSeat(
                    seat=seat,
                    name=name,
                    player_id=player_id,
                    bot=bool(bot),
                    left=bool(conceded),
                    rank=rank,
                    score=score,
                )
            )
        return [_summary(row, seats[row[0]]) for row in rows]


async def _put_chat(tx: Transaction, table_id: str, chat: ChatEntries) -> None:
    if chat:
        await tx.execute(sql.PUT_CHAT, (table_id, CHAT_FORMAT, len(chat), pack_chat(chat)))
    else:
        await tx.execute(sql.DROP_CHAT, (table_id,))


def _summary_row(summary: TableSummary) -> tuple[Any, ...]:
    return (
        summary.table_id,
        summary.game,
        summary.rules_version,
        _json.encode(summary.options).decode(),
        summary.seat_count,
        summary.created_at,
        summary.started_at,
        summary.finished_at,
        summary.final_state,
        summary.reason,
        summary.event_count,
        summary.head_hash,
        summary.seed_commitment,
        summary.archived_at,
        summary.stored_bytes,
        summary.raw_bytes,
        int(summary.rated),
    )


def _seat_row(summary: TableSummary, seat: ArchivedSeat) -> tuple[Any, ...]:
    return (
        summary.table_id,
        seat.seat,
        seat.name,
        seat.player_id,
        int(seat.bot),
        int(seat.left),
        seat.rank,
        seat.score,
        summary.game,
        summary.finished_at,
    )


def _summary(row: Row, seats: list[ArchivedSeat]) -> TableSummary:
    (
        table_id,
        game,
        rules_version,
        options,
        seat_count,
        created_at,
        started_at,
        finished_at,
        final_state,
        reason,
        event_count,
        head_hash,
        seed_commitment,
        archived_at,
        stored_bytes,
        raw_bytes,
        rated,
    ) = row
    return TableSummary(
        table_id=table_id,
        game=game,
        rules_version=rules_version,
        options=_options_decoder.decode(options),
        seats=seats,
        seat_count=int(seat_count),
        created_at=int(created_at),
        started_at=None if started_at is None else int(started_at),
        finished_at=int(finished_at),
        final_state=final_state,
        reason=reason,
        event_count=int(event_count),
        head_hash=head_hash,
        seed_commitment=seed_commitment,
        archived_at=int(archived_at),
        stored_bytes=int(stored_bytes),
        raw_bytes=int(raw_bytes),
        rated=bool(rated),
    )


async def open_archive(url: str) -> Archive:
    """Connects to the archive at ``url`` and brings its schema up to date."""
    db = database_for(url)
    await db.open()
    archive = Archive(db, url)
    try:
        await archive.migrate()
    except BaseException:
        await db.close()
        raise
    return archive
