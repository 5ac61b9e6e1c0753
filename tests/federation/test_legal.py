"""``legal_commands`` and ``decide`` agree.

Over random positions of every player count and option variant, for every seat: every
listed command is accepted, and every command of the candidate set that ``decide``
accepts is listed. The candidate set is the bounded command space: every placement
(each ambassador, space, side, with or without the die, with no token, each held token
and one not held) and every answer to every kind of pending choice, with amounts and
ids a step beyond their ranges.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from random import Random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.federation import GAME, FederationOptions
from games.federation.state import FederationState
from games.playthrough import fold
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from tests.federation.test_properties import VARIANTS
from tests.support.legality import listed_exactly_when_accepted

ENCODE = msgspec.msgpack.encode


def _placements(s: FederationState, seat: int) -> Iterator[CommandBody]:
    held = sorted(set(s.players[seat].tokens))
    tokens = [-1, *held, next(t for t in range(len(cat.ALTERATIONS)) if t not in held)]
    for amb, space, funding, die, token in product(
        range(5), range(cat.OUTER + 2), (False, True), (False, True), tokens
    ):
        yield cmd.Place(ambassador=amb, space=space, funding=funding, die=die, token=token)


def _answers(s: FederationState) -> Iterator[CommandBody]:
    small = range(-1, 4)
    for c, lv, o, d in product(range(3), range(3), range(3), range(2)):
        yield cmd.Pay(copp=c, lav=lv, ocean=o, diamond=d)
    for c, lv, o in product(range(4), range(4), range(4)):
        yield cmd.Discard(copp=c, lav=lv, ocean=o)
    for level in range(2, 6):
        for c, lv, o in product(range(2), range(2), range(2)):
            yield cmd.Upkeep(level=level, copp=c, lav=lv, ocean=o)
    for k in small:
        yield cmd.Crystal(kind=k)
        yield cmd.DeadAsteroid(reward=k)
        yield cmd.LawChoice(side=k)
    for level, spot in product(range(9), range(-1, cat.BLUE_SPOTS + 1)):
        yield cmd.TakeToken(level=level, spot=spot)
    for stall, upper in product(range(-1, 7), (False, True)):
        yield cmd.Stall(stall=stall, upper=upper)
    for i in range(-1, 16):
        yield cmd.Erudite(tile=i)
        yield cmd.UseTile(tile=i)
    for i in range(-1, 9):
        yield cmd.Build(structure=i)
        yield cmd.Retrigger(structure=i)
        yield cmd.StartTile(tile=i)
        yield cmd.Project(project=i)
        yield cmd.Income(structure=i, take=True)
        yield cmd.Income(structure=i, take=False)
    for i in range(-1, 13):
        yield cmd.Check(mission=i)
        yield cmd.Spy(target=i)
        yield cmd.Mission(mission=i)
    for i in range(-1, 6):
        yield cmd.Influence(planet=i)
        yield cmd.DeepSpace(index=i)
    for kind in (*cat.MEDAL_KINDS, "nothing"):
        yield cmd.Medal(kind=kind)
    yield cmd.Fork(straight=True)
    yield cmd.Fork(straight=False)
    yield cmd.EndTurn()


def candidates(s: FederationState, seat: int) -> Iterator[CommandBody]:
    if s.queue and s.queue[0].kind == "turn":
        yield from _placements(s, seat)
        yield cmd.EndTurn()
    else:
        yield from _answers(s)
        yield cmd.Place(ambassador=0, space=cat.OUTER)


def check_position(s: FederationState) -> None:
    before = ENCODE(s)
    for seat in range(s.seats):
        listed_exactly_when_accepted(GAME, s, seat, candidates(s, seat))
    assert ENCODE(s) == before


def position(seats: int, options: FederationOptions, seed: int, fraction: float) -> FederationState:
    chooser = Random(seed)
    state = fold(GAME, options, seats, GAME.setup(options, seats, Random(seed)))
    states = [ENCODE(state)]
    while not GAME.status(state).finished:
        seat = GAME.status(state).to_move[0]
        legal = GAME.legal_commands(state, seat)
        costly = [c for c in legal if isinstance(c, cmd.Place) and c.space != cat.OUTER]
        command = chooser.choice(costly if costly and chooser.random() < 0.7 else legal)
        for e in GAME.decide(state, command, seat, Random(chooser.random())):
            state = GAME.evolve(state, e)
        states.append(ENCODE(state))
    index = min(len(states) - 1, int(fraction * len(states)))
    return msgspec.msgpack.decode(states[index], type=FederationState)


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
@pytest.mark.parametrize("seats", [2, 3, 4])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), fraction=st.floats(min_value=0, max_value=1))
def test_listed_exactly_when_accepted(seats: int, variant: int, seed: int, fraction: float) -> None:
    check_position(position(seats, VARIANTS[variant], seed, fraction))


def test_listed_exactly_when_accepted_in_choices_with_crystals_to_spare() -> None:
    """Positions where payments and discards offer several ways: before each placement
    the seat to move gets a random handful of crystals (up to 10, the limit)."""
    chooser = Random(5)
    s = position(3, VARIANTS[0], 11, 0.3)
    for _ in range(80):
        if GAME.status(s).finished:
            break
        seat = GAME.status(s).to_move[0]
        if s.queue[0].kind == "turn":
            p = s.players[seat]
            p.copp, p.lav = chooser.randrange(6), chooser.randrange(4)
            p.ocean = chooser.randrange(11 - p.copp - p.lav)
            if p.tokens == [] and chooser.random() < 0.5:
                p.tokens = [chooser.randrange(len(cat.ALTERATIONS))]
        check_position(s)
        command = chooser.choice(GAME.legal_commands(s, seat))
        for e in GAME.decide(s, command, seat, Random(0)):
            s = GAME.evolve(s, e)
