"""The bots' evaluation of a Federation position counts what the round's end brings as
the senate stands: each row's majority scores its authority level, the law the wings'
votes pass scores twice the influence on its planet, weighed by the votes still in hand."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from games.federation import GAME
from games.federation.evaluate import evaluate, round_end
from orrery_contracts.federation import views as vw
from tests.federation.helpers import opening, play_until

pytestmark = [pytest.mark.unit]


def _round_start() -> vw.FederationView:
    """A two-seat view at a turn of round 1 with an empty senate and no ambassador used."""
    view = GAME.view(play_until(opening(2), "turn", round=1), 0)
    spaces = [vw.SpaceView(icon=s.icon) for s in view.spaces]
    players = [
        replace(p, ambassadors_used=[False] * 4, authority_level=2, die_on_board=False)
        for p in view.players
    ]
    return replace(view, spaces=spaces, players=players, laws=[0, 1])


def _placed(view: vw.FederationView, *placed: tuple[int, int, int]) -> vw.FederationView:
    """``view`` with (space, seat, votes) placements and every ambassador used."""
    spaces = list(view.spaces)
    for space, seat, votes in placed:
        spaces[space] = replace(spaces[space], seat=seat, votes=votes)
    players = [replace(p, ambassadors_used=[True] * 4) for p in view.players]
    return replace(view, spaces=spaces, players=players)


def test_a_row_majority_scores_its_seats_authority_level() -> None:
    view = _placed(_round_start(), (0, 0, 3), (1, 1, 2), (7, 1, 1))
    rows_and_law = round_end(view)
    influence = [p.influence[0] for p in view.players]  # the left law's planet
    assert rows_and_law == [2 + 2 * influence[0], 2 + 2 * influence[1]]


def test_a_neutral_tile_with_more_votes_keeps_the_row_from_everyone() -> None:
    view = _placed(_round_start(), (0, 0, 1), (1, -3, 2), (3, 1, 1))
    left_law = [2 * p.influence[0] for p in view.players]  # the left wing has 3 votes to 1
    assert round_end(view) == left_law


def test_the_law_is_weighed_by_the_votes_still_in_hand() -> None:
    start = _round_start()
    players = [replace(p, influence=[3, 0, 0, 0, 0]) for p in start.players]
    start = replace(start, players=players)
    spaces = list(start.spaces)
    spaces[0] = replace(spaces[0], seat=0, votes=1)
    early = replace(start, spaces=spaces)  # a lead of 1, 14 votes in hand
    decided = _placed(start, (0, 0, 1))  # the same lead, nothing in hand
    law = 2 * 3
    assert round_end(decided)[1] == law
    assert 0.5 * law < round_end(early)[1] < law


def test_holding_a_majority_is_worth_more_than_leaving_it_to_the_rival() -> None:
    start = _round_start()
    start = replace(start, players=[replace(p, influence=[0] * 5) for p in start.players])
    mine = _placed(start, (2, 0, 3), (3, 1, 1))
    theirs = _placed(start, (2, 0, 1), (3, 1, 3))
    assert evaluate(mine, 0) > evaluate(theirs, 0)
