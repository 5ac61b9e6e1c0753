"""Fractured Sky through the platform's pure table decider: create, join, start, play with
the legal commands read from the JSON seat views (one seat conceding midway), events
travelling as msgpack through the game's union; 1-2 player tables with AI options."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from contracts.table import CreateTable, JoinSeat, LeaveTable, StartTable
from games.codec import codec_for, json_encoder, msgpack_encoder
from games.table import TableState, decide_table, evolve_table, table_view


def _step(state: TableState, command: Any, seat: int | None, seed: bytes) -> TableState:
    for event in decide_table(state, command, seat, seed):
        decoded = codec_for("fractured_sky").decode_event(msgpack_encoder.encode(event))
        assert decoded == event
        state = evolve_table(state, decoded)
        state.seq += 1
    return state


@pytest.mark.parametrize(
    ("players", "options"),
    [(4, {}), (3, {}), (5, {}), (1, {"difficulty": "hard"}), (2, {"difficulty": "medium"})],
)
def test_table_plays_to_the_end_through_json_views(players: int, options: dict[str, Any]) -> None:
    seed = bytes(range(32))
    chooser = Random(players)
    state = TableState(table_id="t1")
    create = CreateTable(game="fractured_sky", seats=players, options=options)
    state = _step(state, create, None, seed)
    for s in range(players):
        state = _step(state, JoinSeat(name=f"bot{s}", token_hash=f"h{s}"), None, seed)
    state = _step(state, StartTable(), 0, seed)
    codec = codec_for("fractured_sky")
    moves = 0
    while state.phase == "playing":
        to_move = [s for s in range(players) if table_view(state, s).to_move.count(s)]
        seat = chooser.choice(to_move)
        raw = json_encoder.encode(table_view(state, seat))
        legal = msgspec.json.decode(raw)["legal"]
        assert legal
        choice = chooser.choice([c for c in legal if c["type"] != "table.leave"])
        command = codec.decode_command(msgspec.json.encode(choice), True)
        if moves == 40 and players > 2:
            command = LeaveTable()  # this seat concedes; the table moves for it from now on
        state = _step(state, command, seat, seed)
        moves += 1
        assert moves < 5000
    assert state.phase == "finished" and state.standing is not None
    assert len(state.standing.ranks) == players


def test_bad_options_are_rejected() -> None:
    from games.rejection import Rejected

    state = TableState(table_id="t2")
    with pytest.raises(Rejected) as bad:
        _step(
            state,
            CreateTable(game="fractured_sky", seats=1, options={"difficulty": "brutal"}),
            None,
            bytes(32),
        )
    assert bad.value.code == "bad_options"
