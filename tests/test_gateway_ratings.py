"""Ratings follow verified player ids: anonymous seats and bots are not rated, and a
table is rated among its verified players (when there are at least two), unless it was
created unrated."""

from __future__ import annotations

import msgspec
import pytest

from archive.packing import summarize
from orrery_contracts.lobby import BOT_PLAYER_ID
from projections.scoreboard import FinishedTable, finished_from_summary, rate, recompute_ratings
from services.replay import play_log
from tests.support.logs import with_players

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


def test_an_unrated_table_rates_nobody_live_or_recomputed() -> None:
    friendly = msgspec.structs.replace(finished(["pa", "pb"], [1, 2], "t2", 2), rated=False)
    assert rate({}, friendly) == {}
    history = [finished(["pa", "pb"], [1, 2], "t1", 1), friendly]
    assert recompute_ratings(history) == rate({}, history[0])


def test_an_archived_unrated_table_stays_unrated_in_a_recompute() -> None:
    entries = with_players(
        play_log("spacecraft", 2, 5, table_id="friendly", rated=False)[0], {0: "pa", 1: "pb"}
    )
    summary = summarize(entries)
    assert summary.rated is False
    again = finished_from_summary(summary)
    assert again.players == ["pa", "pb"] and again.rated is False
    assert recompute_ratings([again]) == {}
    # the same game created rated (the field absent from its log, as before) is rated
    rated = with_players(play_log("spacecraft", 2, 5, table_id="ranked")[0], {0: "pa", 1: "pb"})
    assert b"rated" not in bytes(rated[0].body)
    assert set(recompute_ratings([finished_from_summary(summarize(rated))])) == {"pa", "pb"}
