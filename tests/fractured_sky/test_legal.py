"""``legal_commands`` and ``decide`` agree.

Over random positions of every player count and difficulty, for every seat: every
listed command is accepted, and every command of the candidate set that ``decide``
accepts is listed. The candidate set is the whole bounded command space (every region,
chip, platform, card, objective, slot and amount, a step beyond each range included),
so nothing ``decide`` accepts can be missing from the lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.fractured_sky import GAME
from games.fractured_sky.state import FracturedSkyState
from games.playthrough import fold
from orrery_contracts.base import CommandBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from tests.support.legality import listed_exactly_when_accepted

RESOURCES = (*cat.RESOURCES, "stone")
AMOUNTS = [(g, i, w) for g in range(3) for i in range(3) for w in range(3)]


def candidates(state: FracturedSkyState) -> Iterator[CommandBody]:
    regions = range(-1, cat.REGION_COUNT + 1)
    for g in range(5):
        for i in range(5 - g):
            yield cmd.ChooseStart(gold=g, iron=i, wood=4 - g - i)
    yield cmd.ChooseStart(gold=5)
    for g, i, w in AMOUNTS:
        for r in RESOURCES:
            yield cmd.Trade(gold=g, iron=i, wood=w, get=r)  # type: ignore[arg-type]
    for region in regions:
        for chip in range(-1, 12):
            yield cmd.PlaceAirship(region=region, chip=chip)
        yield cmd.PlaceSkimmer(region=region)
    for p in range(-1, cat.PLATFORM_COUNT + 1):
        yield cmd.BuildFortress(platform=p)
        yield cmd.BuildMarket(platform=p)
    for card in range(-1, len(state.secret_cards) + 1):
        yield cmd.Scout(card=card)
    yield cmd.ScoutTake()
    for r in RESOURCES:
        yield cmd.ScoutTake(resource=r)  # type: ignore[arg-type]
        yield cmd.ChooseResource(resource=r)  # type: ignore[arg-type]
    for objective in range(-1, len(state.objectives) + 1):
        for g, i, w in AMOUNTS:
            yield cmd.Peek(objective=objective, gold=g, iron=i, wood=w)
    for slot in range(7):
        yield cmd.ChooseSlot(slot=slot)


def check_position(state: FracturedSkyState) -> None:
    before = msgspec.msgpack.encode(state)
    pool = list(candidates(state))
    for seat in range(state.participants + 1):
        legal = listed_exactly_when_accepted(GAME, state, seat, pool)
        status = GAME.status(state)
        if seat in status.to_move:
            assert any(not isinstance(c, cmd.Trade) for c in legal)
        elif not status.finished:  # a seat not to move may only trade
            assert all(isinstance(c, cmd.Trade) for c in legal)
    assert msgspec.msgpack.encode(state) == before


def position(seats: int, difficulty: str, seed: int, fraction: float) -> FracturedSkyState:
    """The state ``fraction`` of the way through a random game (off-turn trades and
    actions other than airships preferred now and then)."""
    options = GAME.options_type(difficulty=difficulty)  # type: ignore[arg-type]
    chooser = Random(seed)
    state = fold(GAME, options, seats, GAME.setup(options, seats, Random(seed)))
    states = [msgspec.msgpack.encode(state)]
    for step in range(5000):
        status = GAME.status(state)
        if status.finished:
            break
        seat = chooser.choice(status.to_move)
        if chooser.random() < 0.1:  # now and then a trade from anybody who can
            seat = chooser.randrange(seats)
        legal = GAME.legal_commands(state, seat)
        if not legal:
            continue
        busy = [c for c in legal if not isinstance(c, cmd.PlaceAirship)]
        command = chooser.choice(busy if busy and chooser.random() < 0.5 else legal)
        for event in GAME.decide(state, command, seat, Random(seed + step)):
            GAME.evolve(state, event)
        states.append(msgspec.msgpack.encode(state))
    index = min(len(states) - 1, int(fraction * len(states)))
    return msgspec.msgpack.decode(states[index], type=FracturedSkyState)


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 5])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    difficulty=st.sampled_from(["easy", "medium", "hard"]),
    seed=st.integers(min_value=0, max_value=2**32),
    fraction=st.floats(min_value=0, max_value=1),
)
def test_listed_exactly_when_accepted(
    seats: int, difficulty: str, seed: int, fraction: float
) -> None:
    check_position(position(seats, difficulty, seed, fraction))


def test_listed_exactly_when_accepted_at_the_end() -> None:
    state = position(2, "hard", 3, 1.0)
    assert GAME.status(state).finished
    check_position(state)
