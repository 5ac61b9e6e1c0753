"""The platform's final standing: the game's ranks, conceded seats after every place."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from games.protocol import Standing
from games.table import final_standing

pytestmark = pytest.mark.unit


class FixedScore:
    def __init__(self, points: tuple[int, ...], ranks: tuple[int, ...]) -> None:
        self.standing = Standing(points=points, ranks=ranks)

    def score(self, state: Any) -> Standing:
        return self.standing


def test_nobody_left_keeps_the_games_ranks() -> None:
    game: Any = FixedScore((5, 9, 9), (3, 1, 1))
    assert final_standing(game, None, [False] * 3).ranks == [3, 1, 1]


def test_a_solo_player_behind_built_in_opponents_keeps_its_place() -> None:
    game: Any = FixedScore((2,), (3,))
    assert final_standing(game, None, [False]).ranks == [3]


def test_conceded_seats_rank_after_everyone_in_their_own_order() -> None:
    game: Any = FixedScore((10, 4, 8, 1), (1, 3, 2, 4))
    standing = final_standing(game, None, [True, False, True, False])
    assert standing.ranks == [3, 1, 4, 2]
    assert standing.points == [10, 4, 8, 1]


# ---------------------------------------------------------------- in every view


def test_every_view_carries_the_standings_with_the_built_in_opponents() -> None:
    """A solo Fractured Sky game: the view's standings list the two AIs beside the seat,
    from the game's own score while playing and the final standing at the end."""
    from games.registry import get_game
    from games.table import table_view
    from tests.support.table_play import play_through_views

    state = play_through_views("fractured_sky", 1, {"difficulty": "easy"})
    assert state.phase == "finished" and state.standing is not None
    lines = table_view(state, 0).standings
    assert [line.rank for line in lines] == sorted(line.rank for line in lines)
    assert sorted(line.rank for line in lines) == [1, 2, 3]
    ais = [line for line in lines if line.ai]
    assert [a.name for a in sorted(ais, key=lambda a: a.participant)] == ["Black AI", "Orange AI"]
    assert all(a.seat is None and a.participant >= 1 for a in ais)
    (mine,) = [line for line in lines if line.seat == 0]
    assert (mine.points, mine.rank) == (state.standing.points[0], state.standing.ranks[0])
    score = get_game("fractured_sky").score(state.game_state)
    assert {a.points for a in ais} <= {*score.points, *(o.points for o in score.others)}
    assert table_view(state, None).standings == lines  # public: the spectator's too


def test_final_standings_follow_the_final_standing_and_conceded_seats_end_last() -> None:
    from games.table import table_view
    from tests.support.table_play import play_through_views

    state = play_through_views("spacecraft", 3, {}, concede_at=20)
    assert state.phase == "finished" and state.standing is not None
    lines = table_view(state, 1).standings
    assert {line.seat: line.points for line in lines} == dict(enumerate(state.standing.points))
    assert {line.seat: line.rank for line in lines} == dict(enumerate(state.standing.ranks))
    gone = [line for line in lines if line.left]
    assert gone and gone[-1] == lines[-1]


# ---------------------------------------------------------------- on the scoreboard


class OldScoreLine(msgspec.Struct, frozen=True, kw_only=True):
    """A scoreboard line as readers written before the built-in opponents' lines read it."""

    seat: int
    name: str | None
    points: int
    rank: int
    left: bool = False


class OldTableScore(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    seq: int
    lines: list[OldScoreLine]


@pytest.mark.parametrize("stop_after", [12, None])
def test_the_scoreboard_has_the_same_participants_as_the_standings(
    stop_after: int | None,
) -> None:
    """A solo Fractured Sky game, live and finished: the scoreboard (TableScore) has a
    line per seat first, then one per AI, with the view's standings' points and ranks;
    a reader of the older shape still decodes it, seat 0 first."""
    from games.table import table_view
    from projections.scoreboard import table_score
    from tests.support.table_play import play_through_views

    state = play_through_views("fractured_sky", 1, {"difficulty": "easy"}, stop_after=stop_after)
    assert state.phase == ("finished" if stop_after is None else "playing")
    score = table_score(state)
    standings = table_view(state, None).standings
    assert len(score.lines) == len(standings) == 3
    assert (score.lines[0].seat, score.lines[0].participant, score.lines[0].ai) == (0, 0, False)
    assert {(s.participant, s.name, s.points, s.rank, s.ai) for s in score.lines} == {
        (s.participant, s.name, s.points, s.rank, s.ai) for s in standings
    }
    ais = score.lines[1:]
    assert [a.name for a in ais] == ["Black AI", "Orange AI"]
    assert all(a.ai and a.seat == a.participant >= state.seats for a in ais)
    assert sorted(s.rank for s in score.lines) == sorted(s.rank for s in standings)
    old = msgspec.json.decode(msgspec.json.encode(score), type=OldTableScore)
    assert old.lines[0] == OldScoreLine(
        seat=0,
        name=state.names[0],
        points=score.lines[0].points,
        rank=score.lines[0].rank,
    )


def test_the_scoreboard_of_a_game_without_built_in_opponents_is_one_line_per_seat() -> None:
    from projections.scoreboard import table_score
    from tests.support.table_play import play_through_views

    state = play_through_views("spacecraft", 3, {}, concede_at=20)
    assert state.standing is not None
    score = table_score(state)
    assert [(s.seat, s.participant, s.ai) for s in score.lines] == [(s, s, False) for s in range(3)]
    assert [s.points for s in score.lines] == list(state.standing.points)
    assert [s.rank for s in score.lines] == list(state.standing.ranks)
    assert [s.left for s in score.lines] == list(state.left)
