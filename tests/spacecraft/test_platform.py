"""SPACEcraft through the platform's pure table decider: create, join, start, play with the
legal commands read from the JSON seat views, one seat conceding midway (automatic moves)."""

from __future__ import annotations

import pytest

from tests.support.table_play import play_through_views


@pytest.mark.parametrize(("players", "variant"), [(3, "basic"), (2, "advanced"), (4, "basic")])
def test_table_plays_to_the_end_through_json_views(players: int, variant: str) -> None:
    state = play_through_views("spacecraft", players, {"variant": variant})
    assert state.phase == "finished" and state.standing is not None
    assert sorted(state.standing.ranks)[0] == 1
