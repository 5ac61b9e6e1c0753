"""The log, folded: a log entry (:func:`apply_entry`) or an event at its log position
(:func:`advance`) into the table — turns settled before each command's first event,
its undo point opened, the event evolved, seq, head hash and recorded-at time kept.
:class:`CommandFold` folds a command's events as they are decided, into a private copy.
"""

from __future__ import annotations

from typing import Any

from games import undo
from games.codec import codec_for
from games.table.clocks import settle_turns
from games.table.evolve import evolve_table
from games.table.state import LIFECYCLE_EVENTS, TableState, copy_table
from games.table.undo_points import open_undo_point, undo_blocker
from orrery_contracts.base import EventBody
from orrery_contracts.table import TableCreated, TableFinished


def apply_entry(state: TableState, envelope: Any) -> TableState:
    """Fold one log entry (an ``EventEnvelope`` with a raw msgpack body) into the table."""
    if envelope.seq != state.seq + 1:
        raise ValueError(f"table {state.table_id}: seq {envelope.seq} after {state.seq}")
    body = codec_for(state.game or None).decode_event(envelope.body)
    return advance(
        state,
        body,
        envelope.seq,
        envelope.hash,
        envelope.recorded_at,
        opens_command=envelope.command is not None,
        actor=envelope.seat,
    )


def advance(
    state: TableState,
    event: EventBody,
    seq: int,
    entry_hash: str,
    recorded_at: int,
    *,
    opens_command: bool = False,
    actor: int | None = None,
) -> TableState:
    """Fold one event together with its log position.

    ``opens_command``: this is the first event of a command (the log entry carrying the
    command), sent by seat ``actor`` (the envelope's seat); the previous command's turn
    and clock transitions are settled first.
    """
    if opens_command:
        settle_turns(state)
        state.actor = actor
        state.undone_by = None
        open_undo_point(state, event)
    state = evolve_table(state, event)
    if state.undo.open:
        undo.note_event(state.undo, undo_blocker(state, event))
    state.seq = seq
    state.head_hash = entry_hash
    state.at_ms = recorded_at
    if isinstance(event, LIFECYCLE_EVENTS):
        state.lifecycle_seq = seq
    if isinstance(event, TableFinished):
        state.finished_at = recorded_at
    elif isinstance(event, TableCreated):
        state.created_at = recorded_at
    return state


class CommandFold:
    """A command's events, each folded into a private copy of the table as it is
    decided (the rules that follow an event read the table after it), with the seqs and
    recorded-at time the log will give it. The copy is made at the first event, so a
    rejection copies nothing."""

    def __init__(self, state: TableState, seat: int | None, now_ms: int) -> None:
        self.before = state
        self.state = state
        self.seat = seat
        self.now_ms = now_ms
        self.events: list[EventBody] = []

    def add(self, *events: EventBody) -> None:
        for event in events:
            if not self.events:
                self.state = copy_table(self.before)
            self.state = advance(
                self.state,
                event,
                self.state.seq + 1,
                "",
                self.now_ms,
                opens_command=not self.events,
                actor=self.seat,
            )
            self.events.append(event)
