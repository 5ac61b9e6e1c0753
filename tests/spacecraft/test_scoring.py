"""The seed's scoring example (Agatha): basic 5 + 5 + 40 + 7 = 57, advanced 10 + 5 + 7 + 30 = 52."""

from __future__ import annotations

from games.spacecraft import GAME, rocket, scoring
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat
from tests.spacecraft.support import P, started

# Agatha's rocket: 1 nose, 4 bodies (grey included), 2 engines, 3 fins, 2 connectors;
# white parts 5, gold 2, blue 2; the white body (0,0) carries a white nose and a white engine.
AGATHA = [
    P("nose.W", 0, 1),
    P("body.W", 0, 0),
    P("engine.W", 0, -1),
    P("fin.W", -1, 0),
    P("connector.B", 1, 0),
    P("body.K", 2, 0),
    P("body.W", 2, 1),
    P("body.R", 2, 2),
    P("engine.G", 2, -1),
    P("connector.B", 3, 0),
    P("fin.G", 3, 1),
    P("fin.R", 3, 2),
]
NOSE_ENGINE_GOAL = 38
BLUEPRINT = 33  # 1 nose, 4 bodies, 2 engines, 3 fins, 2 connectors


def _agatha(variant: str) -> SpacecraftState:
    state = started(4, variant)
    assert rocket.invalid_reason(AGATHA) is None
    state.rockets[0] = list(AGATHA)
    state.goals[0] = NOSE_ENGINE_GOAL
    state.blueprint = BLUEPRINT
    state.holder = 0
    return state


def test_basic_scoring_example_57() -> None:
    state = _agatha("basic")
    state.fulfilled[0] = [21, 23, 24, 25, 26]  # 8 points each = 40
    b = scoring.breakdown(state)
    assert (b.trigger[0], b.blueprint[0], b.designs[0], b.goals[0]) == (5, 5, 40, 7)
    assert b.points[0] == 57
    assert GAME.score(state).points[0] == 57


def _card(subject: str) -> int:
    return next(c.id for c in cat.ADVANCED_CARDS if c.subject == subject)


def test_advanced_scoring_example_52() -> None:
    """Seed: 10 (countdown) + 5 (blueprint) + 7 (goal) + gold 2/part = 4, white 1/part = 5,
    nose 7/part = 7, body 1/part = 4, connector 3/part = 6, blue 2/part = 4; "cards No.52
    and No.55 (the two rightmost) carry none of her markers, so they give her nothing";
    total 52."""
    state = _agatha("advanced")
    scored = ["G", "W", "nose", "body", "connector", "B"]
    # four players: 8 cards on side A, left to right as in the example; 52 and 55 rightmost
    state.adv_cards = [*(_card(subject) for subject in scored), 52, 55]
    state.adv_sides = ["A"] * 8
    state.adv_marks = [
        [0, 1],  # gold: 2 per part x 2 = 4
        [0],  # white: 1 x 5 = 5
        [2, 0],  # nose: 7 (two players marked it) x 1 = 7
        [0],  # body: 1 x 4 = 4
        [1, 0, 3],  # connector: 3 x 2 = 6
        [0, 0],  # blue: 2 x 2 = 4 (her second marker does not score twice)
        [1, 2],  # No.52: no marker of hers
        [3],  # No.55: no marker of hers
    ]
    # No.52 and No.55 are subjects she does not score: none of the six cards above
    unscored = {cat.ADVANCED_BY_ID[52].subject, cat.ADVANCED_BY_ID[55].subject}
    assert not unscored & set(scored)
    assert len(set(state.adv_cards)) == 8 and set(state.adv_cards) <= set(cat.ADVANCED_BY_ID)
    assert [scoring.design_points(state, 0)] == [4 + 5 + 7 + 4 + 6 + 4] == [30]
    b = scoring.breakdown(state)
    assert (b.trigger[0], b.blueprint[0], b.goals[0], b.designs[0]) == (10, 5, 7, 30)
    assert b.points[0] == 52
    # her rocket would score on both cards had she marked them: the markers decide
    state.adv_marks[6] = [1, 0]
    state.adv_marks[7] = [3, 0]
    assert scoring.design_points(state, 0) > 30


def test_tie_break_unused_junk_then_shared() -> None:
    assert scoring.rank([10, 10, 8], [2, 1, 5]) == [1, 2, 3]
    assert scoring.rank([10, 10, 8], [2, 2, 5]) == [1, 1, 3]
