"""Finished tournaments in the archive: the last view and the whole log, written once
(a second write of the same tournament changes nothing) and read back whole. The log's
entries are kept as Redis held them (msgpack bytes each); the archive never decodes
them: competitions/ does."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
import zstandard

from archive import sql
from archive.store import Archive

_pack = msgspec.msgpack.Encoder()
_unpack = msgspec.msgpack.Decoder(list[bytes])


@dataclass(frozen=True)
class ArchivedTournament:
    entries: list[bytes]
    head_hash: str
    view: str


async def put_tournament(
    archive: Archive,
    tournament_id: str,
    game: str,
    finished_at: int,
    head_hash: str,
    view: str,
    entries: list[bytes],
) -> None:
    log = zstandard.ZstdCompressor(level=3).compress(_pack.encode(entries))
    async with archive.db.transaction() as tx:
        await tx.execute(
            sql.INSERT_TOURNAMENT,
            (tournament_id, game, finished_at, len(entries), head_hash, view, log),
        )


async def get_tournament(archive: Archive, tournament_id: str) -> ArchivedTournament | None:
    async with archive.db.transaction() as tx:
        rows = await tx.fetchall(sql.TOURNAMENT, (tournament_id,))
    if not rows:
        return None
    count, head, view, log = rows[0]
    entries = _unpack.decode(zstandard.ZstdDecompressor().decompress(bytes(log)))
    if len(entries) != int(count):
        raise ValueError(f"tournament {tournament_id}: {len(entries)} entries, {count} recorded")
    return ArchivedTournament(entries=entries, head_hash=str(head), view=str(view))
