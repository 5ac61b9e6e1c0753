"""Hidden information: a hidden fact changes only the views of seats that know it."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

import msgspec
import pytest

from games.clone import clone
from games.fractured_sky import GAME
from games.fractured_sky.state import FracturedSkyState
from games.rejection import Rejected
from orrery_contracts.base import CommandBody
from orrery_contracts.fractured_sky import commands as cmd
from tests.fractured_sky.helpers import REGION, run, set_secret, started

YELLOW, BLUE, RED, GREEN = 0, 1, 2, 3
CC = REGION["creepy_cove"]


def position() -> FracturedSkyState:
    """Yellow explored Creepy Cove with a 5, blue scouted card 0, red peeked objective 1."""
    state = started(4, start=(2, 1, 1))
    state.round = 2
    set_secret(state, [REGION["peaceful_plains"], REGION["molten_moor"]])
    run(state, YELLOW, cmd.PlaceAirship(region=CC, chip=5))
    run(state, BLUE, cmd.Scout(card=0))
    run(state, BLUE, cmd.ScoutTake())
    run(state, RED, cmd.Peek(objective=1, gold=1, iron=1))
    run(state, GREEN, cmd.PlaceAirship(region=REGION["dreadful_desert"], chip=10))
    assert state.turn == YELLOW
    return state


def views(state: FracturedSkyState) -> dict[int | None, bytes]:
    return {seat: msgspec.json.encode(GAME.view(state, seat)) for seat in [0, 1, 2, 3, None]}


def differ(change: Callable[[FracturedSkyState], None]) -> set[int | None]:
    state = position()
    other = clone(state)
    change(other)
    assert msgspec.msgpack.encode(other) != msgspec.msgpack.encode(state)
    a, b = views(state), views(other)
    return {seat for seat in a if a[seat] != b[seat]}


def test_chip_value_is_known_only_to_its_owner() -> None:
    def change(s: FracturedSkyState) -> None:
        s.airships[YELLOW][CC] = 6  # black border like the 5

    assert differ(change) == {YELLOW}


def test_white_chip_bluff_is_hidden() -> None:
    def change(s: FracturedSkyState) -> None:
        s.airships[GREEN][REGION["dreadful_desert"]] = 1  # white border like the 10

    assert differ(change) == {GREEN}


def test_secret_card_is_known_only_to_its_scout() -> None:
    def change(s: FracturedSkyState) -> None:
        s.secret_cards[0], s.secret_deck[-1] = s.secret_deck[-1], s.secret_cards[0]

    assert differ(change) == {BLUE}


def test_exploration_draw_is_known_only_to_the_explorer() -> None:
    def change(s: FracturedSkyState) -> None:
        s.drawn[YELLOW][0], s.secret_deck[-1] = s.secret_deck[-1], s.drawn[YELLOW][0]

    assert differ(change) == {YELLOW}


def test_deck_order_is_known_to_nobody() -> None:
    def change(s: FracturedSkyState) -> None:
        s.secret_deck.reverse()

    assert differ(change) == set()


def test_objective_is_known_only_to_who_peeked() -> None:
    def change(s: FracturedSkyState) -> None:
        s.objectives[1], s.objectives[3] = s.objectives[3], s.objectives[1]

    assert differ(change) == {RED}


def test_unpeeked_objectives_are_hidden_from_everyone() -> None:
    def change(s: FracturedSkyState) -> None:
        s.objectives[2], s.objectives[4] = s.objectives[4], s.objectives[2]

    assert differ(change) == set()


def _outcome(state: FracturedSkyState, seat: int, command: CommandBody) -> tuple[str, str]:
    try:
        events = GAME.decide(state, command, seat, Random(3))
    except Rejected as rejected:
        return ("rejected", f"{rejected.code}:{rejected.message}")
    return ("accepted", str(len(events)))


@pytest.mark.parametrize("hidden", ["chip", "secret", "objective"])
def test_commands_do_not_leak_hidden_facts(hidden: str) -> None:
    state = position()
    other = clone(state)
    if hidden == "chip":
        other.airships[GREEN][REGION["dreadful_desert"]] = 1
    elif hidden == "secret":
        other.secret_cards[0], other.secret_deck[-1] = (
            other.secret_deck[-1],
            other.secret_cards[0],
        )
    else:
        other.objectives[2], other.objectives[4] = other.objectives[4], other.objectives[2]
    seat = YELLOW  # knows none of the changed facts
    probes: list[CommandBody] = [
        *GAME.legal_commands(state, seat),
        cmd.PlaceAirship(region=REGION["dreadful_desert"], chip=1),
        cmd.PlaceAirship(region=REGION["dreadful_desert"], chip=10),
        cmd.Scout(card=1),
        cmd.ScoutTake(resource="gold"),
        cmd.Peek(objective=2, gold=1, wood=1),
    ]
    assert GAME.legal_commands(state, seat) == GAME.legal_commands(other, seat)
    for probe in probes:
        assert _outcome(state, seat, probe) == _outcome(other, seat, probe)
    for s in (BLUE, RED, GREEN):
        assert _outcome(state, s, probes[0]) == _outcome(other, s, probes[0])


def test_reveal_makes_chips_and_secret_cards_public() -> None:
    from games.playthrough import play_random

    seen: list[bool] = []

    def check(state: FracturedSkyState, *_: object) -> None:
        if state.revealed:
            spectator = GAME.view(state, None)
            assert all(card.region is not None for card in spectator.secret_cards)
            for region in spectator.regions:
                assert all(ship.chip is not None for ship in region.airships)
            seen.append(True)
        else:
            spectator = GAME.view(state, None)
            assert all(card.region is None for card in spectator.secret_cards)
            for region in spectator.regions:
                assert all(ship.chip is None for ship in region.airships)
            assert spectator.my_chips is None and spectator.my_drawn is None

    play_random(GAME, GAME.options_type(), 3, 5, on_step=check)
    assert seen
