"""``choices.FIRST_OPTIONS``, what the queue's loop lists to know whether a choice has
no option, one (answered at once) or several (its seat must answer): the same options
as ``choices.options`` in the same order, cut after the second at the earliest. Asked of
every choice it cuts, for every seat, in the states random games come to (holdings from
nothing to over the limit, so none, one and several options all come up)."""

from __future__ import annotations

from random import Random

import pytest

from games.federation import GAME, FederationOptions
from games.federation.choices import FIRST_OPTIONS, OPTIONS
from games.federation.state import FederationState
from games.rng import derive_rng
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening

pytestmark = [pytest.mark.unit]

_PAYS = (
    [[0, 0, 0, 1, 0]],
    [[0, 0, 0, 3, 0], [0, 0, 0, 1, 1]],
    [[1, 1, 0, 0, 0]],
    [[0, 2, 1, 0, 0]],
)


def _choices(seat: int) -> list[st.AnyStep]:
    return [
        *(st.PayCost(seat=seat, alternatives=alts) for alts in _PAYS),
        st.ChooseStall(seat=seat),
        st.ChooseStructure(seat=seat),
        st.ChooseSpyTarget(seat=seat),
        st.ChooseSpyTarget(seat=seat, planets_only=True),
        st.DiscardCrystals(seat=seat),
        st.ChooseUpkeep(seat=seat),
        st.ChooseErudite(seat=seat),
        st.ChooseErudite(seat=seat, level_one_only=True),
    ]


def _compare(state: FederationState, counts: dict[int, int]) -> None:
    for seat in range(state.seats):
        for step in _choices(seat):
            kind = type(step)
            every = OPTIONS[kind](state, step)
            first = FIRST_OPTIONS[kind](state, step)
            assert first == every[: len(first)], step
            assert len(first) >= min(2, len(every)), step
            counts[min(len(every), 2)] += 1


@pytest.mark.parametrize("seats", [2, 4])
def test_first_options_begin_the_listing(seats: int) -> None:
    counts = {0: 0, 1: 0, 2: 0}
    for seed in (1, 2):
        state = opening(seats, seed=seed, options=FederationOptions())
        chooser = Random(seed)
        seed_bytes = seed.to_bytes(16, "big")
        n = 0
        while not state.finished:
            if n % 3 == 0:
                _compare(state, counts)
            seat = GAME.status(state).to_move[0]
            command = chooser.choice(GAME.legal_commands(state, seat))
            n += 1
            GAME.play(state, command, seat, derive_rng(seed_bytes, n))
    assert all(counts.values()), counts  # none, one and several options all came up


def test_every_choice_has_first_options() -> None:
    assert set(FIRST_OPTIONS) == set(OPTIONS)
