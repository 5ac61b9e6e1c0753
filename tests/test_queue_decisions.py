"""A game's queue as a pure aggregate: commands decided into events, folded back into
the same state; a party ticket waits for every member and expires without them; a
realtime ticket expires once its player has been away long enough; a player's waiting
tickets are capped; blocks reach the tickets already waiting."""

from __future__ import annotations

import pytest

from matchmaking.log import Batch
from matchmaking.matchmaker import Writer
from matchmaking.queue import QueueState, decide, expiries, matches, presence
from orrery_contracts.matchmaking import (
    AcceptTicket,
    JoinQueue,
    QueueExpired,
    QueueLeft,
    Rating,
    SetBlocks,
    Ticket,
)

pytestmark = pytest.mark.unit

NOW = 1_800_000_000_000


def state() -> QueueState:
    return QueueState(game="fractured_sky", seat_range=(1, 5), offline_s=30)


def join(
    s: QueueState, player: str, ticket_id: str, at: int = NOW, **fields: object
) -> tuple[list[object], str]:
    party = list(fields.pop("party", []))  # type: ignore[call-overload]
    ticket = Ticket(
        ticket_id=ticket_id,
        player_id=player,
        game="fractured_sky",
        seats_min=int(fields.pop("seats_min", 3)),  # type: ignore[call-overload]
        seats_max=int(fields.pop("seats_max", 3)),  # type: ignore[call-overload]
        party=party,
        names=[player, *party],
        **fields,  # type: ignore[arg-type]
    )
    command = JoinQueue(command_id="c" + ticket_id, player_id=player, ticket=ticket)
    events, answer = decide(s, command, lambda ps: [Rating(mu=1500, sigma=100) for _ in ps])
    writer = Writer(s, Batch(game=s.game, expected_seq=s.seq))
    for event in events:
        writer.add(event, at)
    return list(events), answer.code


def apply(s: QueueState, events: list[object], at: int) -> None:
    writer = Writer(s, Batch(game=s.game, expected_seq=s.seq))
    for event in events:
        writer.add(event, at)  # type: ignore[arg-type]


def test_a_party_waits_for_every_member_and_expires_without_them() -> None:
    s = state()
    join(s, "owner", "t1", party=["friend"])
    join(s, "other", "t2", seats_min=3, seats_max=3)
    assert matches(s, NOW + 1000) == []  # the friend has not accepted
    assert expiries(s, NOW + 59_000) == []
    assert expiries(s, NOW + 60_000) == [QueueExpired(ticket_id="t1", reason="party")]
    events, answer = decide(
        s, AcceptTicket(command_id="a", player_id="friend", ticket_id="t1"), lambda ps: []
    )
    assert answer.ok
    apply(s, events, NOW + 2000)
    (group,) = matches(s, NOW + 2000)
    assert set(group.ids()) == {"t1", "t2"} and group.seats == 3


def test_a_realtime_ticket_expires_after_its_player_is_away_long_enough() -> None:
    s = state()
    join(s, "p", "t1", pace="realtime")
    apply(s, presence(s, online=set()), NOW + 1000)
    assert expiries(s, NOW + 30_999) == []
    assert expiries(s, NOW + 31_000) == [QueueExpired(ticket_id="t1", reason="offline", after_s=30)]
    apply(s, presence(s, online={"p"}), NOW + 20_000)  # back in time: it waits on
    assert expiries(s, NOW + 60_000) == []


def test_a_player_holds_at_most_ten_waiting_tickets_and_a_repeat_is_the_same_ticket() -> None:
    s = state()
    for i in range(10):
        assert join(s, "p", f"t{i}")[1] == ""
    events, code = join(s, "p", "t10")
    assert (events, code) == ([], "too_many_tickets")
    assert join(s, "p", "t3") == ([], "")  # the same id again: as it is
    assert join(s, "q", "t3") == ([], "ticket_taken")


def test_blocks_reach_tickets_already_waiting() -> None:
    s = state()
    join(s, "a", "t1", seats_min=2, seats_max=2)
    events, _ = decide(s, SetBlocks(command_id="b", player_id="a", blocks=["b"]), lambda ps: [])
    apply(s, events, NOW)
    join(s, "b", "t2", seats_min=2, seats_max=2)
    assert matches(s, NOW + 61_000) == []
    join(s, "c", "t3", seats_min=2, seats_max=2)
    (group,) = matches(s, NOW + 61_000)
    assert set(group.ids()) in ({"t1", "t3"}, {"t2", "t3"})


def test_ended_tickets_leave_the_state_a_day_after_they_end() -> None:
    s = state()
    join(s, "p", "old")
    apply(s, [QueueLeft(ticket_id="old", player_id="p")], NOW + 1000)
    assert s.tickets["old"].state == "cancelled" and s.waiting() == []
    join(s, "q", "fresh", at=NOW + 86_400_000)  # a day and a bit later
    assert "old" in s.tickets
    join(s, "r", "later", at=NOW + 86_401_000)
    assert "old" not in s.tickets and [r.ticket.ticket_id for r in s.waiting()] == [
        "fresh",
        "later",
    ]
