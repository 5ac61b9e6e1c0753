"""Turn clocks and lobby closes in the pure table decider (no server).

A small log writer decides and seals commands the way the worker does, with the
recorded-at time of each append chosen by the test, so every clock figure is exact.
Every log written here is audited (re-decided from its recorded times) and folded
again through ``apply_entry`` to the same turns and clocks.
"""

from __future__ import annotations

import hashlib
from random import Random
from typing import Any

import msgspec
import pytest

from games.codec import codec_for, json_encoder, msgpack_encoder
from games.registry import get_game
from games.rejection import Rejected
from games.table import (
    TableState,
    advance,
    decide_table,
    seat_deadline,
    settle_turns,
    table_view,
)
from orrery_contracts.envelope import EventEnvelope, RawEnvelope, seal
from orrery_contracts.table import (
    ClockExpired,
    ClockOption,
    CloseTable,
    CreateTable,
    ExpireClock,
    JoinSeat,
    LeaveTable,
    SeatLeft,
    StartTable,
    TableClosed,
    TableFinished,
)
from services.audit import audit_entries
from services.replay import fold
from tests.support.tinygame import Dealt, Draw, Stand, Stood, TurnPassed

pytestmark = pytest.mark.unit

SECRET = hashlib.sha256(b"clock-tests").digest()
SYSTEM = (CreateTable, JoinSeat, ExpireClock, CloseTable)


class Log:
    """A table's log written like the worker writes it, at times the test chooses."""

    def __init__(self, table_id: str = "clocked") -> None:
        self.state = TableState(table_id=table_id)
        self.entries: list[RawEnvelope] = []

    def send(self, body: Any, seat: int | None, now: int) -> list[Any]:
        seat = None if isinstance(body, SYSTEM) else seat
        events = decide_table(self.state, body, seat, SECRET, now)
        command = msgpack_encoder.encode(body)
        command_id = f"c{len(self.entries) + 1}"
        for i, event in enumerate(events):
            sealed = seal(
                EventEnvelope(
                    table_id=self.state.table_id,
                    seq=self.state.seq + 1,
                    command_id=command_id,
                    seat=seat,
                    recorded_at=now,
                    prev_hash=self.state.head_hash,
                    body=msgspec.Raw(msgpack_encoder.encode(event)),
                    command=command if i == 0 else None,
                )
            )
            self.entries.append(sealed)
            self.state = advance(
                self.state,
                event,
                sealed.seq,
                sealed.hash,
                now,
                opens_command=i == 0,
                actor=seat,
            )
        settle_turns(self.state)  # (the worker's decide does it before the next command)
        return events

    def refused(self, body: Any, seat: int | None, now: int) -> str:
        with pytest.raises(Rejected) as rejected:
            self.send(body, seat, now)
        return rejected.value.code

    def clock(self, seat: int | None = None) -> dict[str, Any]:
        """The view's clock as a client decodes it (JSON)."""
        view = msgspec.json.decode(json_encoder.encode(table_view(self.state, seat)))
        assert view["clock"] is not None
        return dict(view["clock"])

    def expire(self, seat: int, now: int) -> list[Any]:
        return self.send(ExpireClock(seat=seat, turn=self.state.turn_seq[seat]), None, now)

    def check(self) -> None:
        """The log audits clean and folds (entry by entry) to the same turns and clocks."""
        report = audit_entries(self.entries)
        assert report.ok, report.as_dict()
        if self.state.phase in ("finished", "closed"):
            assert report.complete and report.commands_redecided == report.commands
        folded = settle_turns(fold(self.entries))
        if self.state.phase == "playing":
            assert table_view(folded, 0) == table_view(self.state, 0)
        assert folded.turn_seq == self.state.turn_seq
        assert folded.remaining_ms == self.state.remaining_ms


def tiny_table(seats: int = 2, clock: ClockOption | None = None, *, start_at: int = 10_000) -> Log:
    log = Log()
    log.send(CreateTable(game="tiny", seats=seats, clock=clock), None, start_at - 1000)
    for s in range(seats):
        log.send(JoinSeat(name=f"P{s}", token_hash=f"h{s}"), None, start_at - 900 + s)
    log.send(StartTable(), 0, start_at)
    return log


def test_banks_and_per_move_time_run_only_while_a_seat_is_to_move() -> None:
    log = tiny_table(clock=ClockOption(bank_s=10.0, per_move_s=2.0))
    clock = log.clock()
    # seat 0 moves first: its bank plus one move's time, running since the start
    assert clock["running"] == [0]
    assert clock["remaining_ms"] == [12_000, 10_000]
    assert clock["deadline_ms"] == [22_000, None] and clock["since_ms"] == [10_000, None]
    log.send(Draw(), 0, 13_000)  # took 3 s: 9 s left; seat 1 to move
    clock = log.clock(1)
    assert clock["running"] == [1] and clock["remaining_ms"] == [9_000, 12_000]
    assert clock["deadline_ms"] == [None, 25_000]
    log.send(Draw(), 1, 14_500)
    assert log.clock()["remaining_ms"] == [11_000, 10_500]
    assert log.clock()["deadline_ms"] == [14_500 + 11_000, None]
    log.check()


def test_a_seat_that_stays_to_move_gets_a_new_move_after_each_of_its_commands() -> None:
    # one seat: it is always to move, and every command of its own begins a new move
    log = tiny_table(seats=1, clock=ClockOption(bank_s=0.0, per_move_s=5.0))
    turn = log.state.turn_seq[0]
    log.send(Draw(), 0, 14_000)
    assert log.clock()["remaining_ms"] == [1_000 + 5_000]
    assert seat_deadline(log.state, 0) == 14_000 + 6_000
    # the same turn (no new "your turn" notice), a later deadline
    assert log.state.turn_seq[0] == turn
    log.check()


def test_expiry_with_bot_plays_a_random_legal_move_and_restarts_the_clock() -> None:
    log = tiny_table(clock=ClockOption(bank_s=1.0, per_move_s=1.0, on_expiry="bot"))
    deadline = seat_deadline(log.state, 0)
    assert deadline == 12_000
    turn = log.state.turn_seq[0]
    # before the deadline (by the time the append records) it is refused
    assert log.refused(ExpireClock(seat=0, turn=turn), None, deadline - 1) == "not_expired"
    # a seat that is not to move, or another turn, has nothing to expire
    assert log.refused(ExpireClock(seat=1, turn=turn), None, deadline + 5) == "not_expired"
    assert log.refused(ExpireClock(seat=0, turn=turn - 1), None, deadline) == "not_expired"
    events = log.send(ExpireClock(seat=0, turn=turn), None, deadline)
    assert events[0] == ClockExpired(seat=0)
    # the bot's move: the tiny game's own events (a draw or a stand); then seat 1 moves
    assert isinstance(events[1], Dealt | Stood) and isinstance(events[-1], TurnPassed)
    assert log.state.turn_seq[0] == 0 and log.state.turn_seq[1] > 0
    clock = log.clock()
    assert clock["remaining_ms"][0] == 0  # the bank is spent
    assert clock["running"] == [1] and clock["deadline_ms"][1] == deadline + 2_000
    # the expiry cannot be applied twice
    assert log.refused(ExpireClock(seat=0, turn=turn), None, deadline + 10) == "not_expired"
    # seat 0's next turn begins with one move's time (bank 0 + per move)
    log.send(Stand(), 1, deadline + 500)
    if log.state.phase == "playing":
        assert log.clock()["remaining_ms"][0] == 1_000
    log.check()


def test_expiry_with_concede_makes_the_seat_leave_and_the_last_one_abandons() -> None:
    log = tiny_table(seats=2, clock=ClockOption(bank_s=0.0, per_move_s=1.0, on_expiry="concede"))
    events = log.expire(0, 11_000)
    assert events[:2] == [ClockExpired(seat=0), SeatLeft(seat=0, conceded=True)]
    assert log.state.left == [True, False] and log.state.phase == "playing"
    # seat 1 keeps playing; the bot plays for seat 0 from now on, never expiring it
    assert log.state.turn_seq[0] == 0
    deadline = seat_deadline(log.state, 1)
    assert deadline == 12_000
    events = log.expire(1, deadline + 3)
    assert isinstance(events[-1], TableFinished) and events[-1].reason == "abandoned"
    assert log.state.phase == "finished"
    log.check()


def test_a_move_decided_first_wins_the_race_against_the_expiry() -> None:
    log = tiny_table(clock=ClockOption(bank_s=0.0, per_move_s=1.0))
    # the expiry first: the seat's own move then comes out of turn
    turn, deadline = log.state.turn_seq[0], seat_deadline(log.state, 0)
    assert deadline is not None
    log.send(ExpireClock(seat=0, turn=turn), None, deadline)
    assert log.refused(Draw(), 0, deadline + 1) == "not_your_turn"
    # the move first (even a little late: the expiry had not been decided yet)
    turn, deadline = log.state.turn_seq[1], seat_deadline(log.state, 1)
    assert deadline is not None
    log.send(Stand(), 1, deadline + 20)
    assert log.refused(ExpireClock(seat=1, turn=turn), None, deadline + 30) == "not_expired"
    log.check()


def test_a_table_without_a_clock_never_expires() -> None:
    log = tiny_table(clock=None)
    assert table_view(log.state, 0).clock is None
    assert seat_deadline(log.state, 0) is None
    code = log.refused(ExpireClock(seat=0, turn=log.state.turn_seq[0]), None, 10**13)
    assert code == "no_clock"
    log.check()


def test_clock_options_are_checked() -> None:
    log = Log()
    zero = CreateTable(game="tiny", seats=2, clock=ClockOption(bank_s=0.0, per_move_s=0.0))
    assert log.refused(zero, None, 1) == "bad_clock"
    decode = codec_for("tiny").command_json.decode
    for bad in (
        b'{"type":"table.create","game":"tiny","seats":2,"clock":{"bank_s":-1}}',
        b'{"type":"table.create","game":"tiny","seats":2,"clock":{"on_expiry":"kick"}}',
        b'{"type":"table.create","game":"tiny","seats":2,"clock":{"bank":5}}',
    ):
        with pytest.raises(msgspec.ValidationError):
            decode(bad)
    ok = decode(b'{"type":"table.create","game":"tiny","seats":2,"clock":{"per_move_s":86400}}')
    assert ok.clock == ClockOption(bank_s=0.0, per_move_s=86400.0, on_expiry="bot")


def test_expiries_before_the_start_or_after_the_end_are_refused() -> None:
    log = Log()
    log.send(CreateTable(game="tiny", seats=1, clock=ClockOption(per_move_s=1.0)), None, 1)
    assert log.refused(ExpireClock(seat=0, turn=1), None, 10**6) == "not_started"
    log.send(JoinSeat(name="Ann", token_hash="h"), None, 2)
    log.send(StartTable(), 0, 3)
    while log.state.phase == "playing":
        log.expire(0, seat_deadline(log.state, 0) or 0)
    assert log.refused(ExpireClock(seat=0, turn=1), None, 10**7) == "game_over"
    log.check()


def test_a_table_not_started_within_the_lobby_ttl_is_closed() -> None:
    log = Log()
    log.send(CreateTable(game="tiny", seats=2), None, 1_000)
    log.send(JoinSeat(name="Ann", token_hash="h"), None, 1_500)
    ttl = CloseTable(lobby_ttl_ms=60_000)
    assert log.refused(ttl, None, 60_999) == "not_expired"
    # a worker without a lobby TTL (0) never closes
    assert log.refused(CloseTable(lobby_ttl_ms=0), None, 10**12) == "not_expired"
    events = log.send(ttl, None, 61_000)
    assert events == [TableClosed(reason="lobby_ttl", seed=SECRET.hex())]
    assert log.state.phase == "closed" and table_view(log.state, 0).legal == []
    assert log.refused(JoinSeat(name="Bob", token_hash="h2"), None, 61_001) == "table_closed"
    assert log.refused(StartTable(), 0, 61_001) == "table_closed"
    log.check()
    report = audit_entries(log.entries)
    assert report.finished and report.verdict == "PASSED"


def test_a_started_table_is_not_closed() -> None:
    log = tiny_table()
    assert log.refused(CloseTable(lobby_ttl_ms=1), None, 10**12) == "table_started"


@pytest.mark.parametrize(
    ("game", "seats"), [("fractured_sky", 2), ("spacecraft", 2), ("federation", 3)]
)
def test_every_game_finishes_by_expiries_alone_and_audits(game: str, seats: int) -> None:
    g = get_game(game)
    assert g is not None
    log = Log(f"{game}-clocked")
    clock = ClockOption(bank_s=0.0, per_move_s=0.5, on_expiry="bot")
    log.send(CreateTable(game=game, seats=seats, clock=clock), None, 1_000)
    for s in range(seats):
        log.send(JoinSeat(name=f"P{s}", token_hash=f"h{s}"), None, 1_001 + s)
    log.send(StartTable(), 0, 2_000)
    chooser = Random(seats)
    now = 2_000
    for _ in range(5_000):
        if log.state.phase != "playing":
            break
        running = [s for s, turn in enumerate(log.state.turn_seq) if turn]
        assert running, "a playing table always has a clock running"
        seat = chooser.choice(running)
        deadline = seat_deadline(log.state, seat)
        assert deadline is not None
        now = max(now, deadline)
        log.expire(seat, now)
    assert log.state.phase == "finished"
    log.check()


def test_every_command_to_a_finished_table_is_game_over() -> None:
    log = tiny_table()
    for seat in range(2):
        if log.state.phase == "playing":
            log.send(LeaveTable(), seat, 11_000 + seat)
    assert log.state.phase == "finished"
    for body, seat in [
        (StartTable(), 0),
        (JoinSeat(name="Late", token_hash="h9"), None),
        (CloseTable(lobby_ttl_ms=1), None),
        (LeaveTable(), 0),
        (Draw(), 1),
        (ExpireClock(seat=0, turn=0), None),
    ]:
        assert log.refused(body, seat, 20_000) == "game_over", body
