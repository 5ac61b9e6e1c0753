"""The table's side of undo (``table.undo``): the table keeps, per command of the turns
now running, the game state before it (:func:`open_undo_point`), ``table.undone`` puts
one back (:func:`apply_undone`), and :func:`undo_check` says whether a seat may undo now.
When an undo is accepted, what the fold keeps and why the clocks are not given back:
``games/undo.py``.
"""

from __future__ import annotations

import msgspec

from games import undo
from games.table.clocks import ms
from games.table.state import LIFECYCLE_EVENTS, TableState, game_of, moving
from orrery_contracts.base import EventBody
from orrery_contracts.table import TableUndone


def apply_undone(state: TableState, event: TableUndone) -> None:
    """Put back the game state kept at ``to_seq``. Time used stays used: the undo is no
    move (no per-move time starts), and the per-move time each undone command earned is
    withdrawn."""
    kept, undone = undo.restore(state.undo, event.to_seq)
    state.game_state = msgspec.msgpack.decode(kept, type=game_of(state).state_type)
    state.actor = None
    state.undone_by = event.seat
    if state.clock is not None and state.remaining_ms:
        withdrawn = undone * ms(state.clock.per_move_s)
        state.remaining_ms[event.seat] = max(0, state.remaining_ms[event.seat] - withdrawn)


def open_undo_point(state: TableState, first: EventBody) -> None:
    """At a command's first event: keep the game state before it, if the command can
    ever be undone (games/undo.py decides what a point records)."""
    if state.phase != "playing" or isinstance(first, TableUndone):
        state.undo.open = False
        return
    game_state = state.game_state
    undo.open_command(
        state.undo,
        seq=state.seq,
        actor=state.actor,
        to_move=moving(state),
        turn_seq=state.turn_seq,
        game_state=lambda: msgspec.msgpack.encode(game_state),
        blocked=undo_blocker(state, first),
    )


def undo_blocker(state: TableState, event: EventBody) -> str | None:
    """Why ``event`` ends what an undo can reach (a lifecycle event always does; a game
    event when its game's undo rules say so), or None."""
    if isinstance(event, LIFECYCLE_EVENTS):
        return "turn_ended"
    return undo.rules_of(game_of(state)).blocker(event, state.actor)


def undo_check(
    state: TableState, seat: int, to_seq: int | None, to_move: tuple[int, ...] | None = None
) -> int:
    """The seq ``table.undo`` by ``seat`` returns to, or raise ``undo_blocked`` (a
    settled, playing table). ``to_move``: the table's :func:`moving`, when the caller
    has it already (the views ask once for every seat)."""
    return undo.check(
        state.undo,
        seat=seat,
        to_seq=to_seq,
        seq=state.seq,
        to_move=moving(state) if to_move is None else to_move,
        turn_seq=state.turn_seq,
    )
