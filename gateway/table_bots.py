"""A server-side bot at a table (``POST /v1/tables/{id}/bots``): a bot of a level takes an
open seat, announced to the bot runner (gateway/bots.py) before the join so none is missed.

The bot joins as the verified player ``bot:<level>`` (so the lobby marks the seat with its
level, the runner reads the level there, and the finish rates the level like a player),
named "Bot (<level>)".
"""

from __future__ import annotations

from gateway.errors import ApiError
from gateway.tables import Tables, seat_of
from orrery_contracts.inputs import excerpt
from orrery_contracts.lobby import BOT_LEVELS, DEFAULT_BOT_LEVEL, bot_player_id, gateway_table_key


def bot_name(level: str) -> str:
    return f"Bot ({level})"


def checked_level(level: str | None) -> str:
    """``level``, or the default; 422 ``bad_level`` for a level bots do not play at."""
    if level is None:
        return DEFAULT_BOT_LEVEL
    if level not in BOT_LEVELS:
        raise ApiError(
            422,
            "bad_level",
            f"bots play at the levels {', '.join(BOT_LEVELS)}, not {excerpt(level)!r}",
        )
    return level


class TableBots:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def add(self, player_id: str, table_id: str, seat: int | None, level: str | None) -> int:
        """Seat a bot of ``level`` (at ``seat``, or the first open one) for a player seated
        at the table or its creator; the seat, once the lobby shows it."""
        level = checked_level(level)
        record = await self.tables.record(table_id)
        creator = await self.tables.redis.hget(gateway_table_key(table_id), "creator")
        if seat_of(record, player_id) is None and (creator or b"").decode() != player_id:
            raise ApiError(
                403, "not_seated", "only a player seated here (or the creator) may add bots"
            )
        return await self.tables.take_seat(
            record, seat, bot_name(level), bot_player_id(level), bot=True
        )
