"""The rules that apply "at once" see any state: a state edited by hand gets the planet
medals and the discards it has come to at the first look of the next command, in seat
and planet order, exactly as the rule reads (a count at the lowest threshold left, the
medal not held yet; more than 10 crystals and no discard pending). ``play`` looks at a
state whole too, unless it is the very state ``play`` left with nothing folded since."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from games.clone import clone
from games.federation import GAME
from games.federation.automatic import after_step
from games.federation.counts import crystals, influence
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from orrery_contracts.base import EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening, play_until

pytestmark = [pytest.mark.unit]

_STATES = {seats: play_until(opening(seats, seed=seats), "turn", round=2) for seats in (2, 3, 4)}


def _expected(s: FederationState) -> tuple[list[tuple[int, str, int]], list[int]]:
    """The medals (seat, kind, threshold) and the seats told to discard, from the rule."""
    supply = {kind: list(left) for kind, left in s.medal_supply.items()}
    medals = []
    for seat, p in enumerate(s.players):
        for planet, kind in enumerate(cat.PLANETS):
            left = supply[kind]
            if left and influence(p, planet) >= left[0] and kind not in p.medals:
                medals.append((seat, kind, left.pop(0)))
    pending = {q.seat for q in s.queue if type(q) is st.DiscardCrystals}
    over = [
        seat
        for seat, p in enumerate(s.players)
        if crystals(p) > cat.MAX_CRYSTALS and seat not in pending
    ]
    return medals, over


_SEAT = hs.fixed_dictionaries(
    {
        "orange": hs.integers(0, cat.ORANGE_MAX),
        "blue": hs.integers(0, cat.BLUE_MAX),
        "stalls": hs.lists(hs.integers(0, 2), min_size=6, max_size=6),
        "erudite": hs.lists(hs.integers(0, 14), max_size=6, unique=True),
        "built": hs.lists(
            hs.integers(0, cat.N_PRODUCTION + cat.N_MEGA - 1), max_size=5, unique=True
        ),
        "inf_bonus": hs.lists(hs.integers(0, 3), min_size=5, max_size=5),
        "medals": hs.lists(hs.sampled_from(cat.MEDAL_KINDS), max_size=4, unique=True),
        "copp": hs.integers(0, 6),
        "lav": hs.integers(0, 6),
        "ocean": hs.integers(0, 6),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=hs.sampled_from((2, 3, 4)),
    edits=hs.lists(_SEAT, min_size=4, max_size=4),
    taken=hs.lists(hs.integers(0, 3), min_size=5, max_size=5),
    discard_pending=hs.booleans(),
)
def test_first_look_takes_what_a_hand_edited_state_has_come_to(
    seats: int, edits: list[dict[str, object]], taken: list[int], discard_pending: bool
) -> None:
    s = clone(_STATES[seats])
    for p, edit in zip(s.players, edits, strict=False):
        for field, value in edit.items():
            setattr(p, field, value)
    for kind, n in zip(cat.PLANETS, taken, strict=True):  # some thresholds already gone
        s.medal_supply[kind] = s.medal_supply[kind][n:]
    if discard_pending:
        s.queue.insert(0, st.DiscardCrystals(seat=0))
    medals, over = _expected(s)

    ctx = Ctx(s, Random(0))  # as a command's working state starts
    after_step(ctx)

    got_medals = [(e.seat, e.kind, e.threshold) for e in ctx.events if type(e) is ev.MedalTaken]
    got_over = [q.seat for e in ctx.events if type(e) is ev.Queued for q in e.steps]
    assert got_medals == medals
    assert got_over == over  # in seat order (each pushed in front of the one before)
    after = list(ctx.events)
    after_step(ctx)  # looked at: nothing more until an event changes what it counts
    assert ctx.events == after


def test_two_seats_at_one_threshold_in_one_look() -> None:
    """The first seat in order takes the medal; the next threshold is then the one the
    second seat must reach."""
    s = clone(_STATES[2])  # thresholds 4, 6
    for p in s.players:
        p.orange, p.inf_bonus[0], p.medals = 4, 0, []
    s.medal_supply["orange"] = (4, 6)
    s.players[1].inf_bonus[0] = 2  # 6: the second medal too
    ctx = Ctx(s, Random(0))
    after_step(ctx)
    got = [(e.seat, e.kind, e.threshold) for e in ctx.events if type(e) is ev.MedalTaken]
    assert got == [(0, "orange", 4), (1, "orange", 6)]
    s = clone(_STATES[2])
    for p in s.players:
        p.orange, p.inf_bonus[0], p.medals = 5, 0, []
    s.medal_supply["orange"] = (4, 6)
    ctx = Ctx(s, Random(0))
    after_step(ctx)
    got = [(e.seat, e.kind, e.threshold) for e in ctx.events if type(e) is ev.MedalTaken]
    assert got == [(0, "orange", 4)]


def _played(seats: int) -> FederationState:
    """A state ``play`` has just left: every check looked at."""
    s = clone(_STATES[seats])
    seat = GAME.status(s).to_move[0]
    GAME.play(s, GAME.legal_commands(s, seat)[0], seat, Random(1))
    return s


def _next_play_and_decide(s: FederationState) -> tuple[list[EventBody], list[EventBody]]:
    seat = GAME.status(s).to_move[0]
    command = GAME.legal_commands(s, seat)[0]
    decided = GAME.decide(s, command, seat, Random(2))
    return GAME.play(s, command, seat, Random(2)), decided


def _orange_medals(events: list[EventBody]) -> list[int]:
    return [e.seat for e in events if type(e) is ev.MedalTaken and e.kind == "orange"]


@pytest.mark.parametrize("seats", [2, 4])
def test_play_looks_at_everything_in_a_copy_edited_by_hand(seats: int) -> None:
    """``play`` skips the first look only in the very state it left: a copy of it is
    looked at whole, as ``decide`` looks."""
    s = clone(_played(seats))
    p = s.players[1]
    p.orange, p.inf_bonus[0], p.medals = s.medal_supply["orange"][0], 0, []
    played, decided = _next_play_and_decide(s)
    assert played == decided
    assert _orange_medals(played) == [1]


@pytest.mark.parametrize("seats", [2, 4])
def test_play_looks_at_everything_once_an_event_is_folded_from_outside(seats: int) -> None:
    """An event folded with ``evolve`` into the state ``play`` left (not through
    ``play``) makes the next ``play`` look at everything again."""
    s = _played(seats)
    seat = next(i for i, p in enumerate(s.players) if "orange" not in p.medals)
    GAME.evolve(s, ev.OrangeMoved(seat=seat, level=s.medal_supply["orange"][0]))
    played, decided = _next_play_and_decide(s)
    assert played == decided
    assert _orange_medals(played) == [seat]
