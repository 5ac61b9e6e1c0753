"""``choices.surely_an_option`` tells whether one command answers a costly choice
without listing the options: it says True of every option (so an accepted command is
not listed again) and of nothing else (so every refusal still comes from the listing),
in every choice random games come to."""

from __future__ import annotations

from itertools import product
from random import Random

import pytest

from games.federation import GAME, FederationOptions
from games.federation.choices import options, surely_an_option
from games.federation.legal import problem
from games.rng import derive_rng
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening

pytestmark = [pytest.mark.unit]

_SMALL = range(4)
# Commands of each covered choice's kind, options or not (and one of another kind).
_CANDIDATES: dict[type[st.Step], list[CommandBody]] = {
    st.PayCost: [
        cmd.Pay(copp=c, lav=v, ocean=o, diamond=d) for c, v, o, d in product(_SMALL, repeat=4)
    ],
    st.ChooseStall: [cmd.Stall(stall=i, upper=u) for i in range(-1, 8) for u in (False, True)],
    st.ChooseErudite: [cmd.Erudite(tile=t) for t in range(-1, 17)],
    st.ChooseStructure: [cmd.Build(structure=k) for k in range(-1, 10)],
    st.ChooseSpyTarget: [cmd.Spy(target=t) for t in range(-1, 13)],
    st.AfterPlacement: [
        *(cmd.Mission(mission=m) for m in range(-1, 13)),
        *(cmd.UseTile(tile=t) for t in range(-1, 16)),
    ],
    st.DiscardCrystals: [
        cmd.Discard(copp=c, lav=v, ocean=o) for c, v, o in product(range(-1, 5), repeat=3)
    ],
    st.ChooseToken: [
        cmd.TakeToken(level=lvl, spot=i) for lvl in range(-1, 9) for i in range(-1, 5)
    ],
    st.ChooseUpkeep: [
        cmd.Upkeep(level=lvl, copp=c, lav=v, ocean=o)
        for lvl in range(7)
        for c, v, o in product(range(3), repeat=3)
    ],
}
_OTHER = cmd.EndTurn()


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_surely_an_option_is_the_listing_for_one_command(seats: int) -> None:
    seen: set[type[st.Step]] = set()
    for seed in (1, 2, 3):
        state = opening(seats, seed=seed, options=FederationOptions())
        chooser = Random(seed)
        seed_bytes = seed.to_bytes(16, "big")
        n = 0
        while not state.finished:
            step = state.queue[0]
            candidates = _CANDIDATES.get(type(step))
            if candidates is not None:
                seen.add(type(step))
                listed = options(state, step)
                for c in listed:
                    assert surely_an_option(state, step, c), (step, c)
                for c in [*candidates, _OTHER]:
                    if surely_an_option(state, step, c):
                        assert c in listed, (step, c)
                    else:
                        assert (problem(state, step.seat, c) is None) == (c in listed)
            seat = GAME.status(state).to_move[0]
            command = chooser.choice(GAME.legal_commands(state, seat))
            n += 1
            GAME.play(state, command, seat, derive_rng(seed_bytes, n))
    assert seen == set(_CANDIDATES)  # every covered choice came up


def test_a_payment_that_leaves_what_follows_unpaid_is_no_option() -> None:
    state = opening(2)
    p = state.players[0]
    p.copp, p.lav, p.ocean, p.diamond = 0, 1, 1, 0
    any_crystal = st.PayCost(seat=0, alternatives=[[0, 0, 0, 1, 0]])
    state.queue[0:0] = [any_crystal, st.PayCost(seat=0, alternatives=[[0, 0, 1, 0, 0]])]
    assert options(state, any_crystal) == [cmd.Pay(lav=1)]
    assert surely_an_option(state, any_crystal, cmd.Pay(lav=1))
    assert not surely_an_option(state, any_crystal, cmd.Pay(ocean=1))  # the oceanium is owed


def test_no_upkeep_is_an_option_below_level_three() -> None:
    state = opening(2)
    state.players[0].authority_step = cat.LEVEL_BOTTOM[2]
    upkeep = st.ChooseUpkeep(seat=0)
    state.queue.insert(0, upkeep)
    assert options(state, upkeep) == []
    assert not any(surely_an_option(state, upkeep, c) for c in _CANDIDATES[st.ChooseUpkeep])
