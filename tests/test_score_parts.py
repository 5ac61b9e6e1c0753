"""What a view tells beside the game: the final score in parts, and who made the latest
change.

Once a game is over every participant's standing line carries its score in parts, each
game's own (``score_parts``), summing to its points; while it is played the lines carry
none (the live score counts public facts only). Every view names the seat whose command
made the latest change (``actor``), and after an undo the seat that took its move back
(``undone_by``), for every viewer alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.table import table_view, table_views
from orrery_contracts.fractured_sky import commands as fs
from orrery_contracts.table import UndoTable
from tests.support.table_play import play_through_views
from tests.test_undo import Table

pytestmark = pytest.mark.unit

NO_CONCEDE = 10**9
GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("fractured_sky", 1, {"difficulty": "hard"}),
    ("fractured_sky", 3, {}),
    ("spacecraft", 2, {"variant": "basic"}),
    ("spacecraft", 3, {"variant": "advanced"}),
    ("federation", 2, {}),
]
KEYS = {
    "fractured_sky": {"regions", "objectives"},
    "spacecraft": {"trigger", "blueprint", "goals", "designs"},
    "federation": {"play", "medals", "crystals", "diamonds", "ships", "tokens", "projects"},
}


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_a_finished_games_standings_add_up_from_their_parts(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    state = play_through_views(game, seats, options, concede_at=NO_CONCEDE)
    assert state.phase == "finished"
    views = table_views(state)
    lines = views[None].standings
    assert len(lines) >= seats
    for line in lines:
        assert {part.key for part in line.parts} == KEYS[game], line
        assert sum(part.points for part in line.parts) == line.points, line
        assert all(part.label and part.points >= 0 for part in line.parts), line
    # public at the end: every seat reads the same parts
    assert all(view.standings == lines for view in views.values())


@pytest.mark.parametrize(("game", "seats", "options"), GAMES)
def test_no_parts_while_the_game_is_played(game: str, seats: int, options: dict[str, Any]) -> None:
    state = play_through_views(game, seats, options, concede_at=NO_CONCEDE, stop_after=30)
    assert state.phase == "playing"
    assert all(not line.parts for line in table_view(state, 0).standings)


@given(concede_at=st.integers(min_value=0, max_value=120))
@settings(max_examples=4, deadline=None)
def test_parts_add_up_whenever_a_seat_concedes(concede_at: int) -> None:
    """A seat conceding at any move (the table plays on for it) changes the game's
    course: the parts still add up, the conceded seat's too."""
    state = play_through_views("fractured_sky", 3, {}, concede_at=concede_at)
    for line in table_view(state, None).standings:
        assert sum(part.points for part in line.parts) == line.points, line


def test_every_view_names_the_last_mover_and_an_undo() -> None:
    table = Table("fractured_sky", 3)
    for seat in range(3):
        table.run(fs.ChooseStart(gold=2, iron=1, wood=1), seat)
        assert {v.actor for v in table_views(table.state).values()} == {seat}
        assert table_view(table.state, None).undone_by is None
    seat = table.to_move()[0]
    table.run(fs.Trade(gold=1, iron=1, wood=0, get="wood"), seat)
    table.run(UndoTable(), seat)
    for view in table_views(table.state).values():
        assert (view.actor, view.undone_by) == (None, seat)
    # the next command is told as itself again
    table.run(fs.Trade(gold=1, iron=1, wood=0, get="wood"), seat)
    view = table_view(table.state, (seat + 1) % 3)
    assert (view.actor, view.undone_by) == (seat, None)
