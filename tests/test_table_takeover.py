"""Abandoned seats as the table's rules decide them (games/table/lifecycle.py): with
``on_abandon: bot`` a leave (or a clock run out to ``concede``) that carries the bot's
secret hash gives the seat to a bot — ``table.seat_taken_over`` — whose secret moves it
from then on, while the player's does not and the worker moves nothing for it; with
``end`` the table ends; the defaults follow the seat count; a table created before the
option keeps the worker's random moves; a bad level is refused."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import msgspec
import pytest
from hypothesis import given, settings

from games.rejection import Rejected
from games.table import (
    Caller,
    Decision,
    TableState,
    decide_command,
    decide_table,
    settle_turns,
    table_status,
    token_hash,
)
from orrery_contracts.base import CommandBody
from orrery_contracts.table import (
    ClockOption,
    CreateTable,
    ExpireSeat,
    JoinSeat,
    LeaveSeat,
    SeatLeft,
    SeatTakenOver,
    StartTable,
    TableCreated,
    TableFinished,
)
from tests.support.tinygame import Draw, Stand

pytestmark = pytest.mark.unit

SEED = bytes(range(32))
TOKENS = [f"secret-of-seat-{s}-0123456789abcdef" for s in range(5)]
BOT_TOKEN = "the-bot-secret-of-this-seat-0123456789"
NOW = 1_700_000_000_000


def _table(seats: int, **create: Any) -> TableState:
    state = TableState(table_id="t1")
    state = decide_command(
        state, CreateTable(game="tiny", seats=seats, **create), Caller(None, None), SEED, NOW
    ).state
    for s in range(seats):
        join = JoinSeat(name=f"P{s}", seat=s)
        state = decide_command(state, join, Caller(None, TOKENS[s]), SEED, NOW).state
    return decide_command(state, StartTable(), Caller(0, TOKENS[0]), SEED, NOW).state


def _as(state: TableState, seat: int, command: CommandBody, token: str | None = None) -> Decision:
    return decide_command(state, command, Caller(seat, token or TOKENS[seat]), SEED, NOW)


def test_three_seats_a_leaver_is_taken_over_by_a_bot_of_the_tables_level() -> None:
    state = _table(3, bot_level="ismcts")
    assert (state.on_abandon, state.bot_level) == ("bot", "ismcts")
    decision = _as(state, 1, LeaveSeat(bot_token_hash=token_hash(BOT_TOKEN)))
    events = decision.events
    assert events[:2] == [
        SeatLeft(seat=1, conceded=True),
        SeatTakenOver(seat=1, level="ismcts", token_hash=token_hash(BOT_TOKEN)),
    ]
    after = decision.state
    assert after.bot_from[1] == after.seq - len(events) + 2 and after.left[1]
    # nothing moves for the seat but the bot: play until the seat is to move
    while after.phase == "playing" and 1 not in table_status(after).to_move:
        mover = table_status(after).to_move[0]
        after = _as(after, mover, Stand()).state
    if after.phase != "playing":
        return  # the others ended the game first (a tiny game can)
    with pytest.raises(Rejected) as refused:
        _as(after, 1, Draw())  # the player's own secret no longer moves it
    assert refused.value.code == "unauthorized"
    moved = _as(after, 1, Stand(), BOT_TOKEN)
    assert moved.events


def test_without_the_bots_secret_the_worker_moves_for_the_seat() -> None:
    state = _table(3)
    events = _as(state, 0, LeaveSeat()).events
    assert not [e for e in events if isinstance(e, SeatTakenOver)]


def test_two_seats_end_and_end_can_be_asked_for_at_more() -> None:
    for seats, create in ((2, {}), (3, {"on_abandon": "end"})):
        state = _table(seats, **create)
        assert state.on_abandon == "end"
        events = _as(state, 0, LeaveSeat(bot_token_hash="x" * 64)).events
        assert isinstance(events[-1], TableFinished) and events[-1].reason == "abandoned"
        ranks = events[-1].standing.ranks
        assert all(ranks[0] > r for r in ranks[1:])  # the leaver last


def test_a_bot_on_two_seats_when_asked_and_the_table_ends_when_only_bots_play() -> None:
    state = _table(2, on_abandon="bot")
    decision = _as(state, 0, LeaveSeat(bot_token_hash=token_hash(BOT_TOKEN)))
    assert any(isinstance(e, SeatTakenOver) for e in decision.events)
    state = decision.state
    if state.phase == "playing":
        events = _as(state, 1, LeaveSeat(bot_token_hash="y" * 64)).events
        assert isinstance(events[-1], TableFinished) and events[-1].reason == "abandoned"


def test_a_clock_run_out_to_concede_is_taken_over_too() -> None:
    clock = ClockOption(bank_s=1, on_expiry="concede")
    state = settle_turns(_table(3, clock=clock))
    seat = table_status(state).to_move[0]
    command = ExpireSeat(seat=seat, turn=state.turn_seq[seat], bot_token_hash="z" * 64)
    events = decide_command(state, command, Caller(None, None), SEED, NOW + 5_000).events
    assert [type(e).__name__ for e in events[:3]] == [
        "ClockExpired",
        "SeatLeft",
        "SeatTakenOver",
    ]


def test_a_table_from_before_the_option_keeps_the_old_way() -> None:
    """A create recorded without on_abandon (as before the option) re-decides to a
    table.created without it, and its leavers get no bot."""
    recorded = CreateTable(game="tiny", seats=3)
    created = decide_table(TableState(table_id="t1"), recorded, None, SEED)[0]
    assert isinstance(created, TableCreated)
    assert created.on_abandon is created.bot_level is msgspec.UNSET  # both absent
    as_sent = decide_command(TableState(table_id="t1"), recorded, Caller(None, None), SEED, NOW)
    assert isinstance(as_sent.command, CreateTable) and as_sent.command.on_abandon == "bot"


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(Rejected) as refused:
        _table(3, bot_level="grandmaster")
    assert refused.value.code == "bad_level"


@settings(max_examples=25, deadline=None)
@given(leaver=st.integers(0, 3), seats=st.integers(3, 4))
def test_a_takeover_never_moves_the_seat_inline(leaver: int, seats: int) -> None:
    state = _table(seats)
    if leaver >= seats:
        return
    events = _as(state, leaver, LeaveSeat(bot_token_hash="b" * 64)).events
    taken = events.index(SeatTakenOver(seat=leaver, level="greedy", token_hash="b" * 64))
    assert taken == 1
    # what follows are other seats' automatic moves or the end, never the leaver's
    assert all(getattr(e, "seat", None) != leaver for e in events[2:])
