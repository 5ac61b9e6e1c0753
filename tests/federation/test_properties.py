"""Random legal play to the end, with invariants at every step."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.federation import GAME, FederationOptions
from games.federation.counts import crystals
from games.federation.state import FederationState
from games.playthrough import fold, play_random
from games.rejection import Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd

VARIANTS = [
    FederationOptions(),
    FederationOptions(law_effect="majority", project_prizes="en", president_medal="intrigue"),
]


def check_invariants(s: FederationState) -> None:
    leading_discards = set()
    for step in s.queue:
        if step.kind != "discard":
            break
        leading_discards.add(step.seat)
    for seat, p in enumerate(s.players):
        assert min(p.copp, p.lav, p.ocean, p.diamond, p.hangar, p.pp) >= 0, p
        assert crystals(p) <= cat.MAX_CRYSTALS or seat in leading_discards
        assert p.hangar + sum(p.missions) <= cat.MAX_SHIPS
        assert sum(p.missions) <= cat.MAX_MISSIONS
        assert len(p.medals) == len(set(p.medals)) <= 7
        assert all(p.checks[m] or not p.missions[m] for m in range(12)) or p.deep_space
        assert 1 <= p.authority_step <= cat.MAX_STEP
        assert -1 <= p.die <= cat.MAX_DIE
        assert p.orange <= cat.ORANGE_MAX and p.blue <= cat.BLUE_MAX
        assert len(p.erudite) == len(set(p.erudite))
        assert len(p.built) == len(set(p.built))
    assert all(0 <= x <= cat.PROJECT_MAX for x in s.projects)
    assert s.projects[cat.COMMON] == sum(p.common for p in s.players)
    assert all(f <= len(cat.MEGA_SLOTS) for f in s.mega_filled)


def other_seat_command(s: FederationState, seat: int) -> None:
    """Commands from the wrong seat, or of the wrong kind, are rejected with a code."""
    other = (seat + 1) % s.seats
    for legal in GAME.legal_commands(s, seat)[:2]:
        with pytest.raises(Rejected) as err:
            GAME.decide(s, legal, other, Random(0))
        assert err.value.code == "not_your_turn"
    kind = s.queue[0].kind
    wrong: CommandBody = cmd.EndTurn() if kind == "turn" else cmd.Place(ambassador=0, space=18)
    with pytest.raises(Rejected) as err:
        GAME.decide(s, wrong, seat, Random(0))
    assert isinstance(err.value.code, str)
    if kind == "turn":
        taken = [i for i in range(cat.N_SPACES) if s.space_seat[i] >= 0]
        free_amb = s.players[seat].used.index(False)
        for i in taken[:1]:
            with pytest.raises(Rejected) as err:
                GAME.decide(s, cmd.Place(ambassador=free_amb, space=i), seat, Random(0))
            assert err.value.code == "space_taken"


def make_checker(rng: Random) -> Any:
    def on_step(
        s: FederationState, seat: int, command: CommandBody, events: list[EventBody]
    ) -> None:
        check_invariants(s)
        status = GAME.status(s)
        if status.finished:
            return
        assert len(status.to_move) == 1
        mover = status.to_move[0]
        legal = GAME.legal_commands(s, mover)
        assert legal, "a seat to move has no legal command"
        for other in range(s.seats):
            if other != mover:
                assert GAME.legal_commands(s, other) == []
        before = msgspec.msgpack.encode(s)
        for c in rng.sample(legal, min(3, len(legal))):
            GAME.decide(s, c, mover, Random(rng.random()))  # accepted: no Rejected
        assert msgspec.msgpack.encode(s) == before, "decide mutated the state"
        if rng.random() < 0.2:
            other_seat_command(s, mover)

    return on_step


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_play_to_the_end(seats: int, variant: int, seed: int) -> None:
    options = VARIANTS[variant]
    result = play_random(GAME, options, seats, seed, on_step=make_checker(Random(seed)))
    s = result.state
    assert GAME.status(s).finished and s.round == cat.ROUNDS
    standing = GAME.score(s)
    assert standing.points == tuple(s.final_points)
    best = max(standing.points)
    assert all(
        (r == 1) == (p == best) for p, r in zip(standing.points, standing.ranks, strict=True)
    )
    # fold: the events alone rebuild the final state; the snapshot round-trips
    assert fold(GAME, options, seats, result.events) == s
    snapshot = msgspec.msgpack.encode(s)
    assert msgspec.msgpack.decode(snapshot, type=GAME.state_type) == s
    # every event and view survives the wire
    for e in result.events[:50]:
        msgspec.json.encode(e)
    for seat in (None, *range(seats)):
        msgspec.json.encode(GAME.view(s, seat))


def test_finished_game_rejects_everything() -> None:
    result = play_random(GAME, FederationOptions(), 2, 7)
    with pytest.raises(Rejected) as err:
        GAME.decide(result.state, cmd.EndTurn(), 0, Random(0))
    assert err.value.code == "game_over"
    assert GAME.legal_commands(result.state, 0) == []


def test_same_seed_same_game() -> None:
    a = play_random(GAME, FederationOptions(), 3, 42)
    b = play_random(GAME, FederationOptions(), 3, 42)
    assert a.events == b.events and a.state == b.state
