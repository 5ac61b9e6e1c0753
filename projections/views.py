"""The views projection: one JSON view per seat and one for spectators, per table.

Every view comes from the one ``table_view(state, seat)`` function, here through
``table_views`` (every viewer at once, built by the same code; no second redaction code
anywhere). All of a table's views and the seq they show are written by one script,
which ignores a seq it has already applied, so redelivery is harmless; each write adds
an entry to the table's updates stream that clients block on.

The script keeps these writes out of the AOF (replicas still get them): the views are
derived from the log, and they were most of what the AOF took per command. A restart
from the AOF brings them back older, and the projectors project those tables again
(projections/reverts.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from games.table import TableState, table_views
from orrery_contracts import keys
from projections.writes import ViewsWrite

# Each entry only says "the views changed, to this seq" (the views hold the present, not
# a history): a reader behind by more than the few kept is told the newest.
UPDATES_MAXLEN = 32
_SCRIPT = (Path(__file__).parent / "views.lua").read_text()
_json = msgspec.json.Encoder()


def render_views(state: TableState) -> dict[int | None, bytes]:
    """Every viewer's view (the spectator's first), encoded; what they share is built
    once (``table_views``)."""
    return {seat: _json.encode(view) for seat, view in table_views(state).items()}


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
                keys.views_written_key(p),
                *view_keys,
            ],
            [state.seq, UPDATES_MAXLEN, *views.values()],
        )

    async def write(self, state: TableState) -> bool:
        return bool(await self.call(state).run())
