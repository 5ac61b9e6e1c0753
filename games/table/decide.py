"""A table as a decider: :func:`decide_command` (a command as a client sent it: who may
send it, then the rules) and :func:`decide_table` (a command as recorded, for the
audit). Both are pure: given the table's state, a command, the commanding seat and the
table's secret seed, they return the events (or raise :class:`Rejected`). The RNG for
the command is derived from (seed, first seq of its events).

Deciding never reads a clock: ``decide_table`` gets ``now_ms``, the recorded-at time the
worker will write on the append (the audit passes the recorded one), so re-deciding a
``table.expire``, ``table.close`` or ``table.end`` gives the same answer on any machine, any day. A
move decided before an expiry wins the race (the expiry then finds the clock
restarted: ``not_expired``); a move decided after it finds the turn played.

Seat authentication (the token) is the service's job and happens before this;
``table.expire``, ``table.close`` and ``table.end`` carry no seat: the log's times decide
them.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import msgspec

from games.rejection import Rejected
from games.rng import derive_rng
from games.table.clocks import settle_turns
from games.table.fold import CommandFold
from games.table.lifecycle import (
    close_table,
    create_table,
    end_table,
    expire_clock,
    join_seat,
    leave_table,
    play_move,
    start_table,
    undo_table,
)
from games.table.state import TableState, token_hash
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.envelope import SEAT_TOKEN
from orrery_contracts.table import (
    CloseTable,
    CreateTable,
    EndRequest,
    ExpireClock,
    JoinSeat,
    LeaveSeat,
    LeaveTable,
    SeatJoined,
    StartTable,
    UndoTable,
    default_on_abandon,
)

# Commands decided without a seat: the envelope's seat is ignored, none is recorded.
SEATLESS_COMMANDS = (CreateTable, JoinSeat, ExpireClock, CloseTable, EndRequest)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a command, as the service received it: the envelope's seat and seat
    secret (in clear; only its hash is ever recorded), and the player a gateway vouched
    for (verified by the service; "" when anonymous)."""

    seat: int | None
    token: str | None
    player_id: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """An accepted command: the command as recorded (a join carries the secret's hash,
    never the secret), the seat recorded with it (None for a seat-less command), its
    events, and the table after them, folded once as they were decided.

    ``state`` is the table at its new seq with the events' recorded-at time; its
    ``head_hash`` is the service's to set once it has sealed the entries (the hash
    chain is the log's, not the rules')."""

    command: CommandBody
    seat: int | None
    events: list[EventBody]
    state: TableState

    @property
    def joined_seat(self) -> int | None:
        """The seat a join took."""
        first = self.events[0] if self.events else None
        return first.seat if isinstance(first, SeatJoined) else None


def token_matches(state: TableState, seat: int | None, token: str | None) -> bool:
    """Whether ``token`` is the secret of joined seat ``seat``."""
    if seat is None or token is None or not 0 <= seat < state.seats:
        return False
    expected = state.token_hashes[seat]
    return expected is not None and secrets.compare_digest(expected, token_hash(token))


def decide_command(
    state: TableState, command: CommandBody, caller: Caller, seed: bytes, now_ms: int
) -> Decision:
    """The table's rules for a command as a client sent it (raises :class:`Rejected`).

    Before the rules: a seat-less command ignores the envelope's seat; a join needs a
    strong secret (``weak_token``) and records its hash and the vouched player; any
    other command needs the secret of a joined seat (``unauthorized``). ``seed`` may be
    empty when the table does not exist (``no_such_table`` comes first); ``now_ms`` is
    the recorded-at time the append will carry. ``state`` is left as it was (settled)."""
    seat = caller.seat
    if isinstance(command, SEATLESS_COMMANDS):
        seat = None
    if isinstance(command, CreateTable) and command.on_abandon is None:
        # recorded as decided, so the log keeps the choice a later default may not make
        command = msgspec.structs.replace(command, on_abandon=default_on_abandon(command.seats))
    if isinstance(command, JoinSeat) and state.phase != "none":
        if caller.token is None or not SEAT_TOKEN.match(caller.token):
            raise Rejected(
                "weak_token",
                "a join carries the seat's secret in the envelope's token: 22 to 128 "
                "characters of A-Z a-z 0-9 _ - with at least 128 random bits",
            )
        command = msgspec.structs.replace(
            command, token_hash=token_hash(caller.token), player_id=caller.player_id
        )
    elif (
        not isinstance(command, SEATLESS_COMMANDS)
        and state.phase != "none"
        and not token_matches(state, seat, caller.token)
    ):
        raise Rejected("unauthorized", "seat and token do not match a joined seat")
    fold = _decide(state, command, seat, seed, now_ms)
    return Decision(command=command, seat=seat, events=fold.events, state=fold.state)


def decide_table(
    state: TableState, command: CommandBody, seat: int | None, seed: bytes, now_ms: int = 0
) -> list[EventBody]:
    """The events of a command as recorded (``seat`` trusted: the audit re-decides the
    log with it; ``now_ms``: the recorded-at time of their append)."""
    return _decide(state, command, seat, seed, now_ms).events


def _decide(
    state: TableState, command: CommandBody, seat: int | None, seed: bytes, now_ms: int
) -> CommandFold:
    settle_turns(state)
    fold = CommandFold(state, seat, now_ms)
    rng = derive_rng(seed, state.seq + 1)
    if isinstance(command, CreateTable):
        create_table(fold, command, seed)
        return fold
    if state.phase == "none":
        raise Rejected("no_such_table", f"table {state.table_id!r} does not exist")
    if state.phase == "closed":
        raise Rejected("table_closed", "the table was closed: it was not started in time")
    if state.phase == "finished":  # one answer for every command, lobby commands included
        raise Rejected("game_over", "the game is over")
    if isinstance(command, ExpireClock):
        expire_clock(fold, command, seed, rng, now_ms)
    elif isinstance(command, CloseTable):
        close_table(fold, command, seed, now_ms)
    elif isinstance(command, EndRequest):
        end_table(fold, seed, now_ms)
    elif isinstance(command, JoinSeat):
        join_seat(fold, command)
    elif seat is None or not 0 <= seat < state.seats or state.token_hashes[seat] is None:
        raise Rejected("unauthorized", "this command needs a seat you have joined")
    elif isinstance(command, StartTable):
        start_table(fold, seed, rng)
    elif isinstance(command, LeaveTable):
        bot_token = command.bot_token_hash if isinstance(command, LeaveSeat) else msgspec.UNSET
        leave_table(fold, seat, seed, rng, bot_token or "")
    elif isinstance(command, UndoTable):
        undo_table(fold, command, seat)
    else:
        play_move(fold, command, seat, seed, rng)
    return fold
