"""Ratings follow verified player ids: anonymous seats and bots are not rated, and a
table is rated among its verified players (when there are at least two)."""

from __future__ import annotations

import pytest

from orrery_contracts.lobby import BOT_PLAYER_ID
from projections.scoreboard import FinishedTable, rate, recompute_ratings

pytestmark = pytest.mark.unit


def finished(players: list[str], ranks: list[int], table: str = "t1", at: int = 1) -> FinishedTable:
    return FinishedTable(
        table_id=table,
        game="tiny",
        finished_at=at,
        players=players,
        ranks=ranks,
        points=[0] * len(players),
    )


def test_only_verified_players_are_rated() -> None:
    rated = rate({}, finished(["pa", "", BOT_PLAYER_ID, "pb"], [2, 1, 3, 4]))
    assert set(rated) == {"pa", "pb"}
    # among the rated, pa placed ahead of pb
    assert rated["pa"].mu > 1500 > rated["pb"].mu
    assert rated["pa"].games == rated["pb"].games == 1


def test_tables_with_fewer_than_two_verified_players_are_not_rated() -> None:
    assert rate({}, finished(["", ""], [1, 2])) == {}
    assert rate({}, finished(["pa", "", BOT_PLAYER_ID], [1, 2, 3])) == {}
    # the same player twice at one table counts once
    assert rate({}, finished(["pa", "pa"], [1, 2])) == {}


def test_recomputing_gives_the_same_ratings_in_finish_order() -> None:
    history = [
        finished(["pa", "pb"], [1, 2], "t1", 1),
        finished(["pb", "pc", ""], [1, 2, 3], "t2", 2),
    ]
    live = rate({}, history[0])
    live.update(rate(live, history[1]))
    assert recompute_ratings(list(reversed(history))) == live
