"""A table's view (``GET /v1/tables/{id}/view``): my seat's, or the spectator's when I
hold no seat; an archived table's final view is folded again from its log."""

from __future__ import annotations

from gateway.errors import ApiError
from gateway.tables import Tables, seat_of


class Views:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def viewer(self, player_id: str, table_id: str) -> int | None:
        """The player's seat at the table (None: they watch as a spectator)."""
        return seat_of(await self.tables.record(table_id), player_id)

    async def view(self, player_id: str, table_id: str) -> bytes:
        seat = await self.viewer(player_id, table_id)
        raw = await self.tables.client.view_raw(table_id, seat)
        replayer = self.tables.replayer
        if raw is None and replayer is not None:
            # an archived table's views are gone from Redis: its final view, folded again
            found = await replayer.replay(table_id, seat)
            raw = found[1] if found is not None else None
        if raw is None:
            raise ApiError(404, "no_view", "this table has no view yet")
        return raw
