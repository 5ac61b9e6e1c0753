"""Fractured Sky through the platform's pure table decider: create, join, start, play with
the legal commands read from the JSON seat views (one seat conceding midway), events
travelling as msgpack through the game's union; 1-2 player tables with AI options."""

from __future__ import annotations

from typing import Any

import pytest

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
    from games.rejection import Rejected

    state = TableState(table_id="t2")
    with pytest.raises(Rejected) as bad:
        step(
            state,
            CreateTable(game="fractured_sky", seats=1, options={"difficulty": "brutal"}),
            None,
            bytes(32),
        )
    assert bad.value.code == "bad_options"
