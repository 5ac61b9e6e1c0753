"""An erased player's seats as every listing shows them: named
:data:`orrery_contracts.social.ERASED_NAME`, read at answer time from the erased mark
(gateway.erasure), so the name a log or the archive still holds is never shown."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from gateway.models import PastGame
from gateway.reads import get_many
from orrery_contracts.lobby import LobbyTable
from orrery_contracts.social import ERASED_NAME, erased_key


async def erased_among(redis: Any, players: Iterable[str | None]) -> set[str]:
    """Which of ``players`` are erased accounts (one round trip)."""
    asked = sorted({p for p in players if p})
    if not asked:
        return set()
    flags = await get_many(redis, [erased_key(p) for p in asked])
    return {p for p, flag in zip(asked, flags, strict=True) if flag}


def _record(record: LobbyTable, erased: set[str]) -> LobbyTable:
    if not any(seat.player_id in erased for seat in record.players):
        return record
    seats = [
        msgspec.structs.replace(seat, name=ERASED_NAME) if seat.player_id in erased else seat
        for seat in record.players
    ]
    return msgspec.structs.replace(record, players=seats)


async def shown_records(redis: Any, records: list[LobbyTable]) -> list[LobbyTable]:
    """Lobby records as listings show them: erased players' seats renamed."""
    erased = await erased_among(redis, (s.player_id for r in records for s in r.players))
    return [_record(r, erased) for r in records] if erased else records


async def shown_games(redis: Any, games: list[PastGame]) -> list[PastGame]:
    """My games as listed: erased players' seats renamed."""
    erased = await erased_among(redis, (s.player_id for g in games for s in g.seats))
    if not erased:
        return games
    return [
        msgspec.structs.replace(
            game,
            seats=[
                msgspec.structs.replace(s, name=ERASED_NAME) if s.player_id in erased else s
                for s in game.seats
            ],
        )
        for game in games
    ]
