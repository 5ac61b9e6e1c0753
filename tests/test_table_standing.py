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
