"""The arena's past seasons in the archive: a season's final table is written once (a
second write of the same game and number changes nothing) and read by game and number."""

from __future__ import annotations

import msgspec

from archive import sql
from archive.store import Archive
from orrery_contracts.tournaments import SeasonTable, season_table_decoder


async def put_season(archive: Archive, table: SeasonTable) -> None:
    async with archive.db.transaction() as tx:
        await tx.execute(
            sql.INSERT_SEASON,
            (
                table.game,
                table.number,
                table.started_at,
                table.ended_at,
                msgspec.json.encode(table).decode(),
            ),
        )


async def season_table(archive: Archive, game: str, number: int) -> SeasonTable | None:
    async with archive.db.transaction() as tx:
        rows = await tx.fetchall(sql.SEASON, (game, number))
    return season_table_decoder.decode(rows[0][0]) if rows else None


async def season_numbers(archive: Archive, game: str) -> list[int]:
    async with archive.db.transaction() as tx:
        rows = await tx.fetchall(sql.SEASONS, (game,))
    return [int(row[0]) for row in rows]
