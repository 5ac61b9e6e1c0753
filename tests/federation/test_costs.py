"""Costs are paid, or the action is not allowed.

The rule text: "ゲーム中保持できるクリスタルは10個までで、超過した分は即座に捨てます" (a player
holds at most 10 crystals; the excess is discarded at once); the assistant room: "コッペル
ニウム(緑クリスタル)1つ払い、助手ダイスの値を計2上げる" (pay 1 coppernium, raise the
assistant die by 2); the spy: "1ラバンジウム(紫クリスタル)払い、… アクションをコピーする"
(pay 1 lavandium, copy an action); envoy C's funding side brings a coppernium, envoy D's a
lavandium ("資源獲得のある面でプレイした場合、即時獲得します": gained at once).

So a crystal the envoy brings can pay the room, the limit of 10 makes the player discard
at once, and what is discarded can never be the crystal the room still has to be paid
with: the same function (``payments.can_settle``) decides whether the placement is allowed,
what may be discarded and how each cost may be paid.
"""

from __future__ import annotations

from random import Random

import pytest

from games.clone import clone
from games.federation import GAME
from games.federation.effect_steps import pay_step
from games.federation.senate import space_votes
from games.federation.state import FederationState
from games.rejection import Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening, play_until, run_steps

ASSISTANT = cat.SPACE_ICON.index(cat.I_ASSISTANT)
SPY = cat.SPACE_ICON.index(cat.I_SPY)
ENVOY_A, ENVOY_C, ENVOY_D = 0, 2, 3  # funding sides: check / +1 coppernium / +1 lavandium
PLUS_TWO_COPP = cat.ALTERATIONS.index((1, 0, (("c", 2),)))  # funding token: +2 coppernium
VOTE_SIX_PAY_LAV = cat.ALTERATIONS.index((3, 6, (("l", -1),)))  # vote 6, pay 1 lavandium
VOTE_TWO_FUNDING = 0  # voting token: vote 2 + also check the mission


def _first_turn(copp: int = 0, lav: int = 0, ocean: int = 0) -> tuple[FederationState, int]:
    """Round 1's first turn of a 4-player game (an empty senate), the crystals given."""
    s = play_until(opening(4, seed=3), "turn")
    seat = s.queue[0].seat
    p = s.players[seat]
    p.copp, p.lav, p.ocean, p.diamond = copp, lav, ocean, 0
    p.die, p.tokens = -1, []
    return s, seat


def _decide(
    s: FederationState, command: CommandBody, seat: int
) -> tuple[FederationState, list[EventBody]]:
    events = GAME.decide(s, command, seat, Random(0))
    s = clone(s)
    for e in events:
        s = GAME.evolve(s, e)
    return s, events


def _paid(events: list[EventBody], reason: str) -> list[tuple[int, int, int]]:
    return [
        (e.copp, e.lav, e.ocean) for e in events if isinstance(e, ev.Gained) and e.reason == reason
    ]


def test_envoy_c_funding_the_assistant_room_with_ten_crystals_pays_its_coppernium() -> None:
    s, seat = _first_turn(lav=10)
    place = cmd.Place(ambassador=ENVOY_C, space=ASSISTANT, funding=True)
    assert place in GAME.legal_commands(s, seat)
    s, events = _decide(s, place, seat)
    p = s.players[seat]
    # 10 lavandium + 1 coppernium: one crystal over; the coppernium is needed, so the
    # only discard is a lavandium; then the coppernium pays and the die rises by 2
    assert _paid(events, "discard") == [(0, -1, 0)]
    assert _paid(events, "pay") == [(-1, 0, 0)]
    assert (p.copp, p.lav, p.ocean, p.die) == (0, 9, 0, 2)
    assert all(step.kind != "pay" for step in s.queue)


def test_the_crystal_a_cost_under_way_needs_cannot_be_discarded() -> None:
    s, seat = _first_turn(lav=10)
    s.players[seat].tokens = [PLUS_TWO_COPP]
    place = cmd.Place(ambassador=ENVOY_A, space=ASSISTANT, funding=True, token=PLUS_TWO_COPP)
    assert place in GAME.legal_commands(s, seat)
    s, _ = _decide(s, place, seat)
    assert s.queue[0].kind == "discard"  # 10 lavandium + 2 coppernium: two over
    # both coppernium may not go (the room still wants one): the other two ways remain
    assert set(GAME.legal_commands(s, seat)) == {
        cmd.Discard(copp=1, lav=1),
        cmd.Discard(lav=2),
    }
    with pytest.raises(Rejected) as refused:
        GAME.decide(s, cmd.Discard(copp=2), seat, Random(0))
    assert refused.value.code == "not_an_option"
    s, events = _decide(s, cmd.Discard(copp=1, lav=1), seat)
    assert _paid(events, "pay") == [(-1, 0, 0)]
    p = s.players[seat]
    assert (p.copp, p.lav, p.die) == (0, 9, 2)


def test_envoy_d_funding_the_spy_with_ten_crystals_pays_its_lavandium() -> None:
    s, seat = _first_turn(copp=10)
    place = cmd.Place(ambassador=ENVOY_D, space=SPY, funding=True)
    assert place in GAME.legal_commands(s, seat)
    s, events = _decide(s, place, seat)
    assert _paid(events, "discard") == [(-1, 0, 0)]
    assert _paid(events, "pay") == [(0, -1, 0)]
    p = s.players[seat]
    assert (p.copp, p.lav) == (9, 0)
    assert s.queue[0].kind == "spy"  # paid: the copy follows


def test_one_payment_never_leaves_the_next_cost_unpayable() -> None:
    # vote 6 costs 1 lavandium, the assistant room 1 coppernium; holding 1 lavandium and
    # 1 oceanium, only "lavandium for the token, oceanium for the room" pays both
    s, seat = _first_turn(lav=1, ocean=1)
    s.players[seat].tokens = [VOTE_SIX_PAY_LAV]
    place = cmd.Place(ambassador=ENVOY_A, space=ASSISTANT, token=VOTE_SIX_PAY_LAV)
    assert place in GAME.legal_commands(s, seat)
    s, events = _decide(s, place, seat)
    assert _paid(events, "pay") == [(0, -1, 0), (0, 0, -1)]
    p = s.players[seat]
    assert (p.copp, p.lav, p.ocean, p.die) == (0, 0, 0, 2)
    assert s.space_votes[ASSISTANT] == 6


def test_a_placement_whose_cost_cannot_be_paid_is_not_allowed() -> None:
    s, seat = _first_turn(lav=10)
    for place in (
        cmd.Place(ambassador=ENVOY_A, space=ASSISTANT),  # no coppernium, no oceanium
        cmd.Place(ambassador=ENVOY_D, space=ASSISTANT, funding=True),  # its lavandium won't do
    ):
        assert place not in GAME.legal_commands(s, seat)
        with pytest.raises(Rejected) as refused:
            GAME.decide(s, place, seat, Random(0))
        assert refused.value.code == "cannot_afford"


def test_a_pay_step_with_nothing_to_pay_is_never_skipped() -> None:
    s, seat = _first_turn()
    with pytest.raises(RuntimeError):
        run_steps(s, pay_step(seat, cat.ASSISTANT_COST), st.RaiseDie(seat=seat, amount=2))


def test_a_voting_envoy_with_the_die_and_a_voting_token_is_listed() -> None:
    """Item 4: "投票側でプレイする場合、手元の助手ダイスを一緒にプレイし投票数に加えることが
    できます" (the die may join a voting envoy) and an alteration token may go on the envoy
    played: both at once is a placement like any other."""
    s, seat = _first_turn()
    p = s.players[seat]
    p.die, p.tokens = 3, [VOTE_TWO_FUNDING]
    legal = GAME.legal_commands(s, seat)
    both = [c for c in legal if isinstance(c, cmd.Place) and c.die and c.token >= 0]
    free = [i for i in range(cat.N_SPACES) if s.space_seat[i] == -1]
    # every free ambassador on every free space (none of them costs anything here but
    # the spy and the assistant and ships rooms, which this seat cannot pay)
    costly = (cat.I_SPY, cat.I_ASSISTANT, cat.I_SHIPS)
    paid = {i for i in free if cat.SPACE_ICON[i] in costly}
    spaces = {c.space for c in both}
    assert spaces == {i for i in free if i not in paid}
    assert {c.ambassador for c in both} == {0, 1, 2, 3}
    place = cmd.Place(ambassador=ENVOY_C, space=0, die=True, token=VOTE_TWO_FUNDING)
    assert place in both
    s2, _ = _decide(s, place, seat)
    assert s2.space_die[0] and s2.space_votes[0] == 2 and space_votes(s2, 0) == 2 + 3


def test_the_outer_space_takes_an_envoy_on_neither_side() -> None:
    """The rule text: "外部にある『オセアニウム1つ獲得』に置きます … 投票・資金調達に関与
    しません" (the outer space: gain 1 oceanium; no part in votes or funding)."""
    s, seat = _first_turn()
    legal = GAME.legal_commands(s, seat)
    outer = [c for c in legal if isinstance(c, cmd.Place) and c.space == cat.OUTER]
    assert outer == [cmd.Place(ambassador=a, space=cat.OUTER) for a in range(4)]
    with pytest.raises(Rejected) as refused:
        GAME.decide(s, cmd.Place(ambassador=0, space=cat.OUTER, funding=True), seat, Random(0))
    assert refused.value.code == "funding_not_allowed"
