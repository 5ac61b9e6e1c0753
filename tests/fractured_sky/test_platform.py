"""Fractured Sky through the platform's pure table decider: create, join, start, play with
the legal commands read from the JSON seat views (one seat conceding midway), events
travelling as msgpack through the game's union; 1-2 player tables with AI options."""

from __future__ import annotations

from typing import Any

import pytest

from games.rejection import Rejected
from games.table import TableState
from orrery_contracts.table import CreateTable
from tests.support.table_play import play_through_views, step


@pytest.mark.parametrize(
    ("players", "options"),
    [(4, {}), (3, {}), (5, {}), (1, {"difficulty": "hard"}), (2, {"difficulty": "medium"})],
)
def test_table_plays_to_the_end_through_json_views(players: int, options: dict[str, Any]) -> None:
    state = play_through_views("fractured_sky", players, options)
    assert state.phase == "finished" and state.standing is not None
    assert len(state.standing.ranks) == players


def test_bad_options_are_rejected() -> None:
    state = TableState(table_id="t2")
    with pytest.raises(Rejected) as bad:
        step(
            state,
            CreateTable(game="fractured_sky", seats=1, options={"difficulty": "brutal"}),
            None,
            bytes(32),
        )
    assert bad.value.code == "bad_options"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_one_to_five_seats_with_every_difficulty(difficulty: str) -> None:
    """The options' types and the game's seat range are the whole check (declared once:
    ``FracturedSkyOptions`` and ``min_seats``/``max_seats``, applied by the table)."""
    for seats in range(1, 6):
        options = {"difficulty": difficulty}
        state = step(
            TableState(table_id="t3"),
            CreateTable(game="fractured_sky", seats=seats, options=options),
            None,
        )
        assert (state.phase, state.seats) == ("lobby", seats)
    for seats in (0, 6):
        with pytest.raises(Rejected) as bad:
            step(TableState(table_id="t3"), CreateTable(game="fractured_sky", seats=seats), None)
        assert bad.value.code == "bad_seats"
