"""The views projection: one JSON view per seat and one for spectators, per table.

Every view comes from the one ``table_view(state, seat)`` function (no second
redaction code anywhere). All of a table's views and the seq they show are written by
one script, which ignores a seq it has already applied, so redelivery is harmless;
each write adds an entry to the table's updates stream that clients block on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from games.table import TableState, standing_lines, table_view
from orrery_contracts import keys
from projections.writes import ViewsWrite

UPDATES_MAXLEN = 1_000
_SCRIPT = (Path(__file__).parent / "views.lua").read_text()
_json = msgspec.json.Encoder()


def render_views(state: TableState) -> dict[int | None, bytes]:
    viewers: list[int | None] = [None, *range(state.seats)]
    standings = standing_lines(state)  # public: scored once for every viewer
    return {seat: _json.encode(table_view(state, seat, standings)) for seat in viewers}


class ViewWriter:
    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self.script = redis.register_script(_SCRIPT)

    def call(self, state: TableState) -> ViewsWrite:
        """The script call for the table's views (each encoded once)."""
        p = keys.partition_of(state.table_id, self.partitions)
        views = render_views(state)
        view_keys = [keys.view_key(p, state.table_id, seat) for seat in views]
        return ViewsWrite(
            state.table_id,
            self.script,
            [
                keys.projection_seq_key(p, state.table_id, keys.VIEWS_GROUP),
                keys.updates_stream(p, state.table_id),
                *view_keys,
            ],
            [state.seq, UPDATES_MAXLEN, *views.values()],
        )

    async def write(self, state: TableState) -> bool:
        return bool(await self.call(state).run())
