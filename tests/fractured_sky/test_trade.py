"""The free trade, from the rule text: "フリーアクションとして、プレイヤーはいつでも、任意の
組み合わせの2つの資源を、任意の種類の資源1つと交換できます" (as a free action, a player may
at any time exchange 2 resources in any combination for 1 resource of any type).

"At any time" while the game runs: on and off the seat's turn, during its scout or slot
step, while reward choices are pending. A trade never makes a seat "to move".
"""

from __future__ import annotations

from random import Random

import pytest

from games.fractured_sky import GAME
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    PHASE_START,
    FracturedSkyState,
)
from games.playthrough import fold
from games.rejection import Rejected
from orrery_contracts.fractured_sky import commands as cmd
from tests.fractured_sky.helpers import (
    PLATFORM,
    REGION,
    play_round,
    put_stardust,
    run,
    set_secret,
    started,
)

YELLOW, BLUE, RED, GREEN = 0, 1, 2, 3
CC = REGION["creepy_cove"]  # gold + wood
TWO_FOR_IRON = cmd.Trade(gold=1, wood=1, get="iron")  # any 2 for 1 of any type


def _trades(state: FracturedSkyState, seat: int) -> list[cmd.Trade]:
    return [c for c in GAME.legal_commands(state, seat) if isinstance(c, cmd.Trade)]


def _others(state: FracturedSkyState, seat: int) -> list[object]:
    return [c for c in GAME.legal_commands(state, seat) if not isinstance(c, cmd.Trade)]


def test_any_two_resources_for_one_of_another_type() -> None:
    state = started(3, start=(2, 0, 2))
    run(state, YELLOW, cmd.Trade(gold=2, get="iron"))
    run(state, YELLOW, cmd.Trade(wood=2, get="gold"))
    assert state.resources[YELLOW] == [1, 1, 0]
    # listed: every way to give 2 of what the seat holds, for each type not given
    assert {(c.gold, c.iron, c.wood, c.get) for c in _trades(state, YELLOW)} == {(1, 1, 0, "wood")}


@pytest.mark.parametrize(
    "trade",
    [
        cmd.Trade(wood=2, get="wood"),  # "trade 2 wood for 1 wood"
        cmd.Trade(gold=1, wood=1, get="gold"),  # "trade 1 gold and 1 wood for 1 gold"
    ],
)
def test_a_trade_that_returns_what_it_pays_is_refused_and_never_listed(trade: cmd.Trade) -> None:
    state = started(3, start=(2, 0, 2))
    before = list(state.resources[YELLOW])
    with pytest.raises(Rejected) as refused:
        run(state, YELLOW, trade)
    assert refused.value.code == "pointless_trade"
    assert state.resources[YELLOW] == before
    offered = _trades(state, YELLOW)
    assert offered and trade not in offered
    assert all(getattr(c, c.get) == 0 for c in offered)


def test_off_turn_a_seat_trades_and_the_turn_stays_where_it_was() -> None:
    state = started(4, start=(1, 0, 1))
    assert state.phase == PHASE_PLAY and state.turn == YELLOW
    run(state, BLUE, TWO_FOR_IRON)
    assert state.resources[BLUE] == [0, 1, 0]
    assert state.turn == YELLOW and GAME.status(state).to_move == (YELLOW,)
    # red may trade too: its trades are listed although it is not to move, nothing else is
    assert TWO_FOR_IRON in _trades(state, RED) and _others(state, RED) == []
    assert _trades(state, BLUE) == []  # blue now holds a single iron
    with pytest.raises(Rejected) as poor:
        run(state, BLUE, TWO_FOR_IRON)
    assert poor.value.code == "cannot_afford"
    # off-turn actions other than the trade are still refused
    with pytest.raises(Rejected) as wait:
        run(state, RED, cmd.PlaceAirship(region=CC, chip=3))
    assert wait.value.code == "not_your_turn"


def test_during_the_own_scout_step() -> None:
    state = started(4, start=(3, 0, 1))
    set_secret(state, [REGION["sinister_spires"]])
    run(state, YELLOW, cmd.Scout(card=0))  # 2 gold paid: 1 gold + 1 wood left
    assert state.phase == PHASE_SCOUT
    assert TWO_FOR_IRON in _trades(state, YELLOW)
    assert cmd.ScoutTake() in GAME.legal_commands(state, YELLOW)
    run(state, YELLOW, TWO_FOR_IRON)
    assert state.phase == PHASE_SCOUT and state.turn == YELLOW  # still its scout step
    run(state, BLUE, TWO_FOR_IRON)  # and any other seat meanwhile
    run(state, YELLOW, cmd.ScoutTake(resource="gold"))
    assert state.resources[YELLOW] == [1, 1, 0] and state.turn == BLUE


def test_during_the_own_slot_step() -> None:
    state = started(4, start=(1, 0, 1))
    regions = [REGION["molten_moor"], REGION["peaceful_plains"], REGION["creepy_cove"]]
    while state.phase != PHASE_SLOT:
        seat = state.turn
        region = next(r for r in regions if state.airships[seat][r] < 0)
        run(state, seat, cmd.PlaceAirship(region=region, chip=state.ships[seat]))
    assert state.turn == YELLOW
    assert TWO_FOR_IRON in _trades(state, YELLOW)
    run(state, YELLOW, TWO_FOR_IRON)
    assert state.phase == PHASE_SLOT and state.turn == YELLOW
    assert {c.slot for c in GAME.legal_commands(state, YELLOW) if isinstance(c, cmd.ChooseSlot)}
    run(state, YELLOW, cmd.ChooseSlot(slot=1))
    assert state.phase == PHASE_PLAY and state.turn == BLUE


def test_while_reward_choices_are_pending() -> None:
    state = started(4, start=(1, 0, 2))
    put_stardust(state, CC)
    set_secret(state, [REGION["careening_cliffs"]])
    state.turn = GREEN
    run(state, GREEN, cmd.BuildMarket(platform=PLATFORM["p7"]))  # bridged to Creepy Cove
    state.turn = YELLOW
    others = [REGION["molten_moor"], REGION["peaceful_plains"]]
    placements = {
        seat: [(CC, power), (others[0], 0), (others[1], 0)]
        for seat, power in ((YELLOW, 4), (BLUE, 3), (RED, 2), (GREEN, 1))
    }
    play_round(state, placements, slots={YELLOW: 1, BLUE: 2, RED: 3, GREEN: 4})
    assert state.phase == PHASE_REWARDS
    assert GAME.status(state).to_move == (RED, GREEN)
    state.resources[RED] = [1, 0, 1]
    state.resources[YELLOW] = [2, 0, 0]
    # red, with a choice pending, trades first and still owes its choice
    assert TWO_FOR_IRON in _trades(state, RED)
    run(state, RED, TWO_FOR_IRON)
    assert state.phase == PHASE_REWARDS and GAME.status(state).to_move == (RED, GREEN)
    assert cmd.ChooseResource(resource="gold") in GAME.legal_commands(state, RED)
    # yellow has no choice pending: it may trade, and that is all it may do
    assert _others(state, YELLOW) == [] and _trades(state, YELLOW)
    run(state, YELLOW, cmd.Trade(gold=2, get="wood"))
    assert state.resources[YELLOW] == [0, 0, 1]
    assert GAME.status(state).to_move == (RED, GREEN)
    run(state, RED, cmd.ChooseResource(resource="gold"))
    run(state, GREEN, cmd.ChooseResource(resource="wood"))
    assert state.round == 2 and state.phase == PHASE_PLAY


def test_in_the_start_phase_once_the_starting_resources_are_chosen() -> None:
    options = GAME.options_type()
    state = fold(GAME, options, 3, GAME.setup(options, 3, Random(4)))
    assert state.phase == PHASE_START
    gold = state.resources[BLUE][0]
    run(state, BLUE, cmd.ChooseStart(iron=4))
    run(state, BLUE, cmd.Trade(iron=2, get="wood"))
    assert state.resources[BLUE] == [gold, 2, 1]
    assert state.phase == PHASE_START and BLUE not in GAME.status(state).to_move


def test_never_for_automated_opponents_nor_after_the_end() -> None:
    state = started(1, difficulty="medium", start=(2, 2, 2))
    with pytest.raises(Rejected) as ai:
        run(state, 1, TWO_FOR_IRON)
    assert ai.value.code == "not_your_turn"
    assert GAME.legal_commands(state, 1) == []
    state.phase = PHASE_FINISHED
    with pytest.raises(Rejected) as over:
        run(state, 0, TWO_FOR_IRON)
    assert over.value.code == "game_over"
    assert GAME.legal_commands(state, 0) == []


@pytest.mark.parametrize("seats", [1, 3, 5])
def test_trade_happy_players_still_finish_the_game(seats: int) -> None:
    """Players who trade whenever they can, on and off their turn: every trade costs the
    seat one resource, so trades run out and the game ends as usual."""
    options = GAME.options_type(difficulty="hard")
    chooser = Random(seats)
    state = fold(GAME, options, seats, GAME.setup(options, seats, Random(seats)))
    trades = 0
    for step in range(20_000):
        status = GAME.status(state)
        if status.finished:
            break
        traders = [s for s in range(seats) if _trades(state, s)]
        if traders and chooser.random() < 0.9:
            seat = chooser.choice(traders)
            command: object = chooser.choice(_trades(state, seat))
            trades += 1
        else:
            seat = chooser.choice(status.to_move)
            command = chooser.choice(_others(state, seat) or GAME.legal_commands(state, seat))
        for event in GAME.decide(state, command, seat, Random(step)):  # type: ignore[arg-type]
            GAME.evolve(state, event)
    assert GAME.status(state).finished
    assert trades > 0
