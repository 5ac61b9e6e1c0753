"""Turns and clocks: when a seat's turn begins, how much time it has left, and when it
runs out.

``TableState`` keeps, per seat, the seq at which its current turn began (``turn_seq``, 0
when it is not to move) and, for tables with a clock, its time left and since when its
clock runs. They change only at command boundaries (a command's events share one
recorded-at time, and nobody ever sees the table between them): :func:`settle_turns`
applies the last command's transitions, using nothing but the log's recorded times. A
turn begins when a seat enters ``to_move`` (or re-enters it after its clock expired); a
seat's *move* begins with its turn and again after each of its own commands that leaves
it to move, and each move adds ``per_move`` to its time. The fold settles before each
command's first event; readers (``decide_table``, ``table_view``, the projectors) settle
before they look, which is idempotent.
"""

from __future__ import annotations

from games.table.state import TableState, moving
from orrery_contracts.views import ClockView


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def reset_turns(state: TableState) -> None:
    state.turn_seq = [0] * state.seats
    state.remaining_ms = [0] * state.seats
    state.since_ms = [0] * state.seats


def settle_turns(state: TableState) -> TableState:
    """Apply the turn and clock transitions of the last folded command (idempotent).

    Only for a state at a command boundary: the fold calls it before each command's
    first event, readers before they look at turns or clocks.
    """
    if state.settled_seq >= state.seq:
        return state
    if len(state.turn_seq) != state.seats:  # a lobby, or a snapshot from before clocks
        reset_turns(state)
        if state.clock is not None:
            state.remaining_ms = [ms(state.clock.bank_s)] * state.seats
    to_move: tuple[int, ...] = ()
    if state.phase == "playing":
        to_move = moving(state)
    clock, at, turns = state.clock, state.at_ms, state.turn_seq
    for seat, turn in enumerate(turns):
        if turn and seat not in to_move:  # its turn is over: charge the time it took
            turns[seat] = 0
            if clock is not None:
                _charge(state, seat, at)
    for seat in to_move:
        new_turn = not turns[seat]
        if not new_turn and seat != state.actor:
            continue  # still thinking
        # a move begins: a new turn, or the next move of the seat's own turn
        if new_turn:
            turns[seat] = state.seq
        if clock is not None:
            if not new_turn:
                _charge(state, seat, at)
            state.remaining_ms[seat] += ms(clock.per_move_s)
            state.since_ms[seat] = at
    state.settled_seq = state.seq
    return state


def _charge(state: TableState, seat: int, at: int) -> None:
    spent = max(0, at - state.since_ms[seat])
    state.remaining_ms[seat] = max(0, state.remaining_ms[seat] - spent)


def seat_deadline(state: TableState, seat: int) -> int | None:
    """When the seat's running clock runs out (recorded-time ms), or None (no clock, or
    not to move). Needs a settled state."""
    if state.clock is None or not 0 <= seat < len(state.turn_seq) or not state.turn_seq[seat]:
        return None
    return state.since_ms[seat] + state.remaining_ms[seat]


def clock_view(state: TableState) -> ClockView | None:
    clock = state.clock
    if clock is None:
        return None
    settle_turns(state)
    running = [s for s, turn in enumerate(state.turn_seq) if turn]
    return ClockView(
        bank_ms=ms(clock.bank_s),
        per_move_ms=ms(clock.per_move_s),
        on_expiry=clock.on_expiry,
        running=running,
        remaining_ms=list(state.remaining_ms) or [ms(clock.bank_s)] * state.seats,
        since_ms=[state.since_ms[s] if s in running else None for s in range(state.seats)],
        deadline_ms=[seat_deadline(state, s) for s in range(state.seats)],
    )
