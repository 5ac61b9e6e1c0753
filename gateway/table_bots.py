"""A server-side bot at a table (``POST /v1/tables/{id}/bots``): it takes an open seat,
announced to the bot runner (gateway/bots.py) before the join so none is missed."""

from __future__ import annotations

from gateway.errors import ApiError
from gateway.tables import Tables, seat_of
from orrery_contracts.lobby import BOT_PLAYER_ID, gateway_table_key


class TableBots:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def add(self, player_id: str, table_id: str, seat: int | None) -> int:
        """Seat a bot (at ``seat``, or the first open one) for a player seated at the
        table or its creator; the seat, once the lobby shows it."""
        record = await self.tables.record(table_id)
        creator = await self.tables.redis.hget(gateway_table_key(table_id), "creator")
        if seat_of(record, player_id) is None and (creator or b"").decode() != player_id:
            raise ApiError(
                403, "not_seated", "only a player seated here (or the creator) may add bots"
            )
        return await self.tables.take_seat(record, seat, None, BOT_PLAYER_ID)
