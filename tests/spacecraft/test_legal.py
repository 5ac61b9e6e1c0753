"""``legal_commands`` and ``decide`` agree.

Over random positions of every player count and variant, for every seat: every listed
command is accepted, and every command of the candidate set that ``decide`` accepts is
listed. The candidate set holds every goal, visit and search cell, leave, end turn,
design card (fulfil / reserve / mark) and, for builds, one per compartment paid with
every junk tile beside the board: a build of a compartment is listed exactly when some
payment for it is accepted (paying more never hurts), with the cheapest payment.
``sc.arrange`` takes a whole layout: it is only checked to be accepted when listed.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations_with_replacement
from random import Random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.playthrough import fold
from games.spacecraft import GAME, SpacecraftOptions
from games.spacecraft.state import SpacecraftState
from games.spacecraft.workshop import cheapest_payment, payment_problem
from orrery_contracts.base import CommandBody
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
    Search,
    Visit,
)
from tests.support.legality import accepted, listed_exactly_when_accepted

ENCODE = msgspec.msgpack.encode


def candidates(state: SpacecraftState, seat: int) -> Iterator[CommandBody]:
    for goal in range(30, 50):
        yield ChooseGoal(goal=goal)
    for x in range(-1, state.size + 1):
        for y in range(-1, state.size + 1):
            yield Visit(x=x, y=y)
            yield Search(x=x, y=y)
    yield Leave()
    yield EndTurn()
    for card in range(-1, 57):
        yield Fulfil(card=card)
        yield Reserve(card=card)
        yield Mark(card=card)


def everything(state: SpacecraftState, seat: int) -> list[str]:
    return [cat.JUNK_NAMES[t] for t, n in enumerate(state.beside[seat]) for _ in range(n)]


def check_position(state: SpacecraftState) -> None:
    before = ENCODE(state)
    for seat in range(state.players):
        legal = listed_exactly_when_accepted(GAME, state, seat, candidates(state, seat))
        built = {c.slot for c in legal if isinstance(c, Build)}
        assert len(built) == len([c for c in legal if isinstance(c, Build)])
        pay_all = everything(state, seat)
        for slot in range(-1, len(cat.SLOTS) + 1):
            assert accepted(GAME, state, Build(slot=slot, pay=pay_all), seat) == (slot in built), (
                slot
            )
        assert len([c for c in legal if isinstance(c, Arrange)]) <= 1
    assert ENCODE(state) == before


def position(players: int, variant: str, seed: int, fraction: float) -> SpacecraftState:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    chooser = Random(seed)
    state = fold(GAME, options, players, GAME.setup(options, players, Random(seed)))
    states = [ENCODE(state)]
    while not GAME.status(state).finished:
        seat = GAME.status(state).to_move[0]
        legal = GAME.legal_commands(state, seat)
        busy = [c for c in legal if isinstance(c, Build | Fulfil | Reserve | Mark)]
        command = chooser.choice(busy if busy and chooser.random() < 0.8 else legal)
        for e in GAME.decide(state, command, seat, Random(0)):
            state = GAME.evolve(state, e)
        states.append(ENCODE(state))
    index = min(len(states) - 1, int(fraction * len(states)))
    return msgspec.msgpack.decode(states[index], type=SpacecraftState)


@pytest.mark.parametrize("variant", ["basic", "advanced"])
@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), fraction=st.floats(min_value=0, max_value=1))
def test_listed_exactly_when_accepted(
    players: int, variant: str, seed: int, fraction: float
) -> None:
    check_position(position(players, variant, seed, fraction))


def test_listed_exactly_when_accepted_at_the_end() -> None:
    state = position(3, "advanced", 9, 1.0)
    assert GAME.status(state).finished
    check_position(state)


@settings(max_examples=300, deadline=None)
@given(
    beside=st.lists(
        st.integers(min_value=0, max_value=6), min_size=cat.N_JUNK, max_size=cat.N_JUNK
    ),
    token=st.integers(min_value=0, max_value=cat.N_JUNK - 1),
    need=st.sampled_from(sorted(set(cat.PART_WEIGHT.values()))),
)
def test_cheapest_payment_is_accepted_and_cheapest(
    beside: list[int], token: int, need: int
) -> None:
    """The cheapest payment is one ``payment_problem`` accepts, of least weight and then
    fewest tiles among every payment it accepts, and there is none exactly when paying
    every tile is refused."""
    everything = [t for t in range(cat.N_JUNK) for _ in range(beside[t])]
    pay = cheapest_payment(beside, token, need)
    if payment_problem(beside, token, need, everything) is not None:
        assert pay is None
        return
    assert pay is not None
    assert payment_problem(beside, token, need, pay) is None
    weight = sum(cat.JUNK_WEIGHT[t] for t in pay)
    for size in range(1, len(pay) + 1):  # no accepted payment is lighter, or as light and smaller
        for other in combinations_with_replacement(range(cat.N_JUNK), size):
            if payment_problem(beside, token, need, list(other)) is None:
                other_weight = sum(cat.JUNK_WEIGHT[t] for t in other)
                assert (other_weight, size) >= (weight, len(pay))
