"""A table: the lifecycle (create, join, start, leave, finish) around a game, as a decider.

One module per purpose; callers import the names below from ``games.table``:

* ``state`` — :class:`TableState` and the readings of it every part needs (its game and
  options, whose turn, a seat secret's hash, a private copy);
* ``decide`` — the decider: who may send a command, then the rules
  (:func:`decide_command`, :func:`decide_table`, :class:`Caller`, :class:`Decision`);
* ``lifecycle`` — the rules of each command (create, join, start, leave, expire a
  clock, undo, close, a game move) and the platform rules (a seat that left is moved
  for, an abandoned table ends, the end reveals the seed);
* ``evolve`` — one fact applied to the table (:func:`evolve_table`);
* ``fold`` — the log folded into the table (:func:`apply_entry`, :func:`advance`);
* ``clocks`` — turns and clocks, settled at command boundaries (:func:`settle_turns`,
  :func:`seat_deadline`);
* ``undo_points`` — what ``table.undo`` can return to (:func:`undo_check`);
* ``standing`` — the final standing and the lines every view shows;
* ``views`` — what a viewer may know of the table (:func:`table_view`; every viewer
  at once: :func:`table_views`);
* ``snapshot`` — snapshots of a table state (:func:`encode_snapshot`,
  :func:`decode_snapshot`).

Imports point one way: ``state ← clocks ← undo_points ← evolve ← fold ← lifecycle ←
decide``; ``standing``, ``views`` and ``snapshot`` read the state.
"""

from __future__ import annotations

from games.table.clocks import clock_view, seat_deadline, settle_turns
from games.table.decide import (
    SEATLESS_COMMANDS,
    Caller,
    Decision,
    decide_command,
    decide_table,
    token_matches,
)
from games.table.evolve import evolve_table
from games.table.fold import advance, apply_entry
from games.table.lifecycle import MAX_AUTOMATIC_MOVES, takeover_seat
from games.table.snapshot import Snapshot, decode_snapshot, encode_snapshot
from games.table.standing import final_standing, standing_lines
from games.table.state import (
    TableState,
    bot_of,
    clone_game_state,
    copy_table,
    game_of,
    game_options,
    table_status,
    token_hash,
)
from games.table.undo_points import undo_check
from games.table.views import table_view, table_views

__all__ = [
    "MAX_AUTOMATIC_MOVES",
    "SEATLESS_COMMANDS",
    "Caller",
    "Decision",
    "Snapshot",
    "TableState",
    "advance",
    "apply_entry",
    "bot_of",
    "clock_view",
    "clone_game_state",
    "copy_table",
    "decide_command",
    "decide_table",
    "decode_snapshot",
    "encode_snapshot",
    "evolve_table",
    "final_standing",
    "game_of",
    "game_options",
    "seat_deadline",
    "settle_turns",
    "standing_lines",
    "table_status",
    "table_view",
    "table_views",
    "takeover_seat",
    "token_hash",
    "token_matches",
    "undo_check",
]
