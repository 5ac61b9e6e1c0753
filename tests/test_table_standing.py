"""The platform's final standing: the game's ranks, conceded seats after every place."""

from __future__ import annotations

from typing import Any

from games.protocol import Standing
from games.table import final_standing


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
