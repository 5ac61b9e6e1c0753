"""Turn flow: goal choice, design rows (fulfil, reserve, refill), countdown, other endings."""

from __future__ import annotations

import msgspec
import pytest

from games.rejection import Rejected
from games.spacecraft import GAME
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import (
    Arrange,
    Build,
    ChooseGoal,
    EndTurn,
    Fulfil,
    Leave,
    Mark,
    Reserve,
    Visit,
)
from orrery_contracts.spacecraft.events import CountdownTriggered, FinalRoundStarted, GameEnded
from orrery_contracts.table import TableStarted
from tests.spacecraft.support import J, P, apply, beside, slot_of, started


def _reject(state: SpacecraftState, command: object, seat: int) -> str:
    with pytest.raises(Rejected) as info:
        GAME.decide(state, command, seat, None)  # type: ignore[arg-type]
    return info.value.code


def _simple_turn(state: SpacecraftState) -> None:
    """The seat to move visits if outside, else leaves and ends its turn."""
    seat = state.current
    if state.phase != "final" and state.pawns[seat] < 0:
        first = GAME.legal_commands(state, seat)[0]
        assert isinstance(first, Visit)
        apply(state, first, seat)
    else:
        apply(state, Leave(), seat)
        apply(state, EndTurn(), seat)


def test_goal_choice_phase() -> None:
    from random import Random

    from games.playthrough import fold
    from games.spacecraft import SpacecraftOptions

    options = SpacecraftOptions()
    state = fold(GAME, options, 3, GAME.setup(options, 3, Random(5)))
    assert GAME.status(state).to_move == (0, 1, 2)
    assert _reject(state, Leave(), 0) == "wrong_phase"
    other = next(g for g in (35, 36, 37, 38, 39, 40, 41, 42) if g not in state.goal_options[1])
    assert _reject(state, ChooseGoal(goal=other), 1) == "not_an_option"
    apply(state, ChooseGoal(goal=state.goal_options[1][1]), 1)
    assert _reject(state, ChooseGoal(goal=state.goal_options[1][0]), 1) == "already_chosen"
    assert GAME.status(state).to_move == (0, 2)
    # seat 1's choice stays hidden from the others until everybody has chosen
    assert GAME.view(state, 0).seats[1].goal is None
    assert GAME.view(state, 1).seats[1].goal == state.goals[1]
    assert GAME.view(state, 0).seats[1].goal_options is None
    apply(state, ChooseGoal(goal=state.goal_options[0][0]), 0)
    apply(state, ChooseGoal(goal=state.goal_options[2][0]), 2)
    assert state.phase == "play" and GAME.status(state).to_move == (0,)
    assert GAME.view(state, 0).seats[1].goal == state.goals[1]


def test_fulfil_two_then_refill_and_limits() -> None:
    state = started(3)
    state.lower = [9, 3, 1, 5]  # width>=3, 2 bodies, 2 fins, 2 white
    state.upper = [11, 12, 13, 14]
    state.deck = [15, 16, 17]
    state.step = "build"
    state.rockets[0] = [P("body.W", 0, 0), P("connector.B", 1, 0), P("body.K", 2, 0)]
    assert _reject(state, Fulfil(card=1), 0) == "requirements_not_met"
    assert _reject(state, Fulfil(card=20), 0) == "card_not_available"
    apply(state, Fulfil(card=9), 0)
    assert _reject(state, Build(slot=0, pay=["screw"]), 0) == "build_step_over"
    assert _reject(state, Reserve(card=1), 0) == "already_fulfilled"
    apply(state, Fulfil(card=3), 0)
    state.lower[3] = 10
    assert _reject(state, Fulfil(card=5), 0) == "design_limit"
    state.lower[3] = 5
    apply(state, EndTurn(), 0)
    assert state.fulfilled[0] == [9, 3]
    assert state.lower == [11, 12, 1, 5] and state.upper == [15, 16, 13, 14]
    assert state.deck == [17] and state.current == 1


def test_reserve_then_fulfil_reserved_later() -> None:
    state = started(3)
    state.step = "design"
    state.lower[0] = 9  # width >= 3
    apply(state, Reserve(card=9), 0)
    assert _reject(state, Fulfil(card=state.lower[1]), 0) == "already_reserved"
    # others see only that a card is reserved
    assert GAME.view(state, 1).seats[0].reserved is None
    assert GAME.view(state, 1).seats[0].has_reserved
    assert GAME.view(state, 0).seats[0].reserved == 9
    apply(state, EndTurn(), 0)
    assert state.lower[0] != -1  # refilled from above
    state.current, state.step = 0, "design"
    assert _reject(state, Reserve(card=state.lower[1]), 0) == "reserve_full"
    assert _reject(state, Fulfil(card=9), 0) == "requirements_not_met"
    state.rockets[0] = [P("body.W", 0, 0), P("connector.B", 1, 0), P("body.K", 2, 0)]
    assert Fulfil(card=9) in GAME.legal_commands(state, 0)
    lower = list(state.lower)
    apply(state, Fulfil(card=9), 0)
    assert state.reserved[0] == -1 and state.lower == lower and state.fulfilled[0] == [9]


def test_countdown_timeline_and_final_round() -> None:
    state = started(3)
    state.blueprint = 31  # 1 nose, 3 bodies, 2 engines, 2 fins, 1 connector
    state.rockets[0] = [
        P("nose.W", 0, 1),
        P("body.W", 0, 0),
        P("engine.W", 0, -1),
        P("fin.W", -1, 0),
        P("connector.B", 1, 0),
        P("body.K", 2, 0),
        P("body.B", 2, 1),
        P("engine.G", 2, -1),
    ]
    state.tokens[0] = J["screw"]
    state.beside[0] = beside(screw=2)
    state.step = "build"
    events = apply(state, Build(slot=slot_of("fin.W"), pay=["screw", "screw"]), 0)
    assert isinstance(events[-1], CountdownTriggered) and state.holder == 0
    apply(state, EndTurn(), 0)
    normal_turns = {0: 0, 1: 0, 2: 0}
    while state.phase == "play":
        seat = state.current
        if seat == 0:
            assert state.countdown in (3, 2)
        normal_turns[seat] += 1
        _simple_turn(state)
    assert normal_turns == {0: 2, 1: 3, 2: 3}
    assert state.phase == "final" and state.final_reason == "launch"
    assert state.final_order == [0, 1, 2] and state.current == 0 and state.countdown == 1
    assert _reject(state, Visit(x=0, y=0), 0) == "final_leave_only"
    assert GAME.legal_commands(state, 0) == [Leave()]
    for seat in (0, 1, 2):
        assert state.current == seat
        apply(state, Leave(), seat)
        events = apply(state, EndTurn(), seat)
    assert isinstance(events[-1], GameEnded)
    assert GAME.status(state).finished
    assert state.points[0] >= 5 + 5  # trigger bonus + blueprint
    assert _reject(state, Leave(), 0) == "game_over"


def test_designs_exhausted_final_round_starts_with_that_player() -> None:
    state = started(3)
    state.deck = []
    state.step = "design"
    apply(state, Reserve(card=state.lower[2]), 0)
    events = apply(state, EndTurn(), 0)
    assert isinstance(events[-1], FinalRoundStarted)
    assert state.final_order == [0, 1, 2] and state.current == 0 and state.phase == "final"
    for seat in (0, 1, 2):
        apply(state, Leave(), seat)
        apply(state, EndTurn(), seat)
    assert state.phase == "over"


def test_cannot_visit_final_round_and_no_trigger_bonus() -> None:
    state = started(2)
    state.piles = [() for _ in state.piles]
    state.piles[5] = (J["screw"],)  # (1, 1) is the only pile left, and seat 1 stands on it
    state.pawns = [-1, 5]
    state.current, state.step = 1, "build"
    events = apply(state, EndTurn(), 1)
    # seat 0 is outside and cannot visit: everyone's final leave, starting with seat 0
    assert isinstance(events[-1], FinalRoundStarted)
    assert state.final_reason == "cannot_visit" and state.final_order == [0, 1]
    for seat in (0, 1):
        apply(state, Leave(), seat)
        apply(state, EndTurn(), seat)
    assert state.phase == "over" and state.holder == -1


def test_arrange_and_layout_rules_in_build_step() -> None:
    state = started(3)
    state.step = "build"
    state.rockets[0] = [P("body.K", 0, 0), P("fin.W", 1, 0)]
    assert _reject(state, Arrange(layout=[P("body.K", 0, 0)]), 0) == "layout_mismatch"
    bad = [P("body.K", 0, 0), P("fin.W", 0, 1)]
    assert _reject(state, Arrange(layout=bad), 0) == "invalid_layout"
    apply(state, Arrange(layout=[P("body.K", 5, 5), P("fin.W", 4, 5)]), 0)
    state.beside[0] = beside(screw=3, bulb=3)
    state.tokens[0] = J["screw"]
    layout = [P("body.K", 5, 5), P("fin.W", 4, 5), P("engine.R", 5, 4)]
    apply(
        state,
        Build(slot=slot_of("engine.R"), pay=["screw", "bulb", "screw", "bulb"], layout=layout),
        0,
    )
    assert state.rockets[0] == layout
    assert _reject(state, Mark(card=47), 0) == "wrong_variant"


def test_advanced_markers() -> None:
    state = started(2, "advanced")
    assert len(state.adv_cards) == 6 and set(state.adv_sides) == {"B"}
    state.step = "build"
    card = state.adv_cards[0]
    assert _reject(state, Fulfil(card=1), 0) == "wrong_variant"
    apply(state, Mark(card=card), 0)
    assert _reject(state, Mark(card=card), 0) == "already_marked"
    apply(state, EndTurn(), 0)
    assert state.adv_marks[0] == [0] and state.markers_left[0] == cat.MARKERS_PER_PLAYER - 1
    state.current, state.step = 1, "design"
    apply(state, Mark(card=card), 1)
    state.marked = False
    apply(state, Mark(card=card), 1)
    state.marked = False
    assert _reject(state, Mark(card=card), 1) == "card_full"  # side B: 3 spaces
    state.markers_left[1] = 0
    assert _reject(state, Mark(card=state.adv_cards[1]), 1) == "supply_exhausted"


def test_agatha_fulfils_two_designs_with_one_new_connector() -> None:
    """Seed example: after building a two-coloured connector Agatha meets "1 white + 2 blue"
    and "3 connectors" at once (W/B connector here: the provisional inventory has no W/G)."""
    state = started(3)
    state.current = 2
    state.step = "build"
    state.lower = [11, 12, 1, 2]
    state.tokens[0] = J["screw"]
    state.beside[2] = beside(screw=1, gear=1)
    state.rockets[2] = [
        P("body.K", 0, 0),
        P("connector.B", 1, 0),
        P("body.B", 2, 0),
        P("connector.G", -1, 0),
    ]
    assert _reject(state, Fulfil(card=11), 2) == "requirements_not_met"
    apply(state, Build(slot=slot_of("connector.WB"), pay=["screw", "gear"]), 2)
    apply(state, Fulfil(card=12), 2)  # 1 white + 2 blue: the W/B connector counts for both
    apply(state, Fulfil(card=11), 2)  # 3 connectors
    assert state.fulfilled[2] == [12, 11]
    # the parts stay on the rocket
    assert len(state.rockets[2]) == 5


def test_evolve_refuses_an_event_that_is_not_spacecraft_s() -> None:
    """An unknown event is an error, never silently skipped (it would fork the state)."""
    state = started(2)
    before = msgspec.msgpack.encode(state)
    with pytest.raises(TypeError, match="TableStarted"):
        GAME.evolve(state, TableStarted())
    assert msgspec.msgpack.encode(state) == before
