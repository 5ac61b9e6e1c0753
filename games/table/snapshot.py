"""Table snapshots: a table state at a seq, the game's state encoded by its own type,
stamped with the rules version that wrote it; one written under other rules is not
used (the table is folded from the log instead).
"""

from __future__ import annotations

import msgspec

from games.registry import get_game
from games.table.state import TableState


class Snapshot(msgspec.Struct, kw_only=True):
    """A table state at a seq, with the game's state encoded by its own type."""

    rules_version: str
    table: TableState
    game_state: bytes | None


_snapshot_decoder = msgspec.msgpack.Decoder(Snapshot)


def encode_snapshot(state: TableState) -> bytes:
    game = get_game(state.game) if state.game else None
    table = msgspec.structs.replace(state, game_state=None)
    game_bytes = None
    if state.game_state is not None:
        game_bytes = msgspec.msgpack.encode(state.game_state)
    version = game.rules_version if game else ""
    return msgspec.msgpack.encode(
        Snapshot(rules_version=version, table=table, game_state=game_bytes)
    )


def decode_snapshot(data: bytes) -> TableState | None:
    """The snapshot's state, or None when it was written by other rules than today's."""
    snapshot = _snapshot_decoder.decode(data)
    table = snapshot.table
    if snapshot.game_state is None:
        return table
    game = get_game(table.game)
    if game is None or game.rules_version != snapshot.rules_version:
        return None
    table.game_state = msgspec.msgpack.decode(snapshot.game_state, type=game.state_type)
    return table
