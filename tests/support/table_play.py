"""A game played through the platform's pure table decider, as a client would play it.

Create, join, start, then random moves read from each seat's JSON view (``legal``),
decoded back through the game's command union; every event travels as msgpack through
the game's event union. One seat concedes midway when there are more than two.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec

from games.codec import codec_for, json_encoder, msgpack_encoder
from games.table import TableState, decide_table, evolve_table, table_view
from orrery_contracts.table import NOT_MOVES, CreateTable, JoinSeat, LeaveTable, StartTable

SEED = bytes(range(32))


def step(state: TableState, command: Any, seat: int | None, seed: bytes = SEED) -> TableState:
    codec = codec_for(state.game or getattr(command, "game", None))
    for event in decide_table(state, command, seat, seed):
        decoded = codec.decode_event(msgpack_encoder.encode(event))
        assert decoded == event
        state = evolve_table(state, decoded)
        state.seq += 1
    return state


def play_through_views(
    game: str,
    players: int,
    options: dict[str, Any],
    *,
    concede_at: int = 40,
    stop_after: int | None = None,
) -> TableState:
    """The table at the end of the game, or after ``stop_after`` moves (mid-game)."""
    chooser = Random(players)
    state = step(
        TableState(table_id="t1"), CreateTable(game=game, seats=players, options=options), None
    )
    for s in range(players):
        state = step(state, JoinSeat(name=f"bot{s}", token_hash=f"h{s}"), None)
    state = step(state, StartTable(), 0)
    codec = codec_for(game)
    moves = 0
    while state.phase == "playing" and moves != stop_after:
        to_move = [s for s in range(players) if s in table_view(state, s).to_move]
        seat = chooser.choice(to_move)
        legal = msgspec.json.decode(json_encoder.encode(table_view(state, seat)))["legal"]
        assert legal
        choice = chooser.choice([c for c in legal if c["type"] not in NOT_MOVES])
        command = codec.decode_command(msgspec.json.encode(choice), True)
        if moves == concede_at and players > 2:
            command = LeaveTable()  # this seat concedes; the table moves for it from now on
        state = step(state, command, seat)
        moves += 1
        assert moves < 5000
    return state
