"""``play`` and ``decide`` + ``evolve`` agree on every candidate command.

``play`` checks and folds its frequent commands (placements, slots, trades) itself:
over random positions, for every seat and every command of the bounded candidate set,
it refuses exactly what ``decide`` refuses, with the same code and message and the
state untouched, and otherwise records the same events and leaves the same state.
"""

from __future__ import annotations

from random import Random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.clone import clone
from games.fractured_sky import GAME
from games.fractured_sky.state import FracturedSkyState
from games.rejection import Rejected
from orrery_contracts.base import CommandBody
from tests.fractured_sky.test_legal import candidates, position


def outcome(state: FracturedSkyState, command: CommandBody, seat: int, owned: bool) -> object:
    """What ``play`` (``owned``) or ``decide`` + ``evolve`` make of the command: the
    refusal, or the events and the state after them (msgpack)."""
    rng = Random(7)
    try:
        if owned:
            events = GAME.play(state, command, seat, rng)
        else:
            events = GAME.decide(state, command, seat, rng)
            for event in events:
                state = GAME.evolve(state, event)
    except Rejected as refusal:
        return refusal.code, refusal.message, msgspec.msgpack.encode(state)
    return msgspec.msgpack.encode(events), msgspec.msgpack.encode(state)


def check_position(state: FracturedSkyState) -> None:
    for seat in range(-1, state.participants + 1):
        for command in candidates(state):
            by_play = outcome(clone(state), command, seat, owned=True)
            assert by_play == outcome(clone(state), command, seat, owned=False), command


@pytest.mark.parametrize("seats", [1, 2, 4, 5])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    difficulty=st.sampled_from(["easy", "medium", "hard"]),
    seed=st.integers(min_value=0, max_value=2**32),
    fraction=st.floats(min_value=0, max_value=1),
)
def test_play_agrees_with_decide(seats: int, difficulty: str, seed: int, fraction: float) -> None:
    check_position(position(seats, difficulty, seed, fraction))
