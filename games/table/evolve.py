"""The table's ``evolve``: one fact applied to the table — the lifecycle events (created,
joined, left, taken over by a bot, started, finished, clock expired, closed, undone)
here, every other event to the game's own ``evolve``. It decides nothing and reads no
clock: the events carry the facts.
"""

from __future__ import annotations

import msgspec

from games.table.clocks import ms, reset_turns
from games.table.state import LIFECYCLE_EVENTS, TableState, game_of, game_options
from games.table.undo_points import apply_undone
from orrery_contracts.base import EventBody
from orrery_contracts.table import (
    ClockExpired,
    SeatJoined,
    SeatLeft,
    SeatTakenOver,
    TableClosed,
    TableCreated,
    TableFinished,
    TableStarted,
    TableUndone,
    created_rated,
)


def evolve_table(state: TableState, event: EventBody) -> TableState:
    """Apply one fact to the table (lifecycle events here, the rest to the game)."""
    if not isinstance(event, LIFECYCLE_EVENTS):
        state.game_state = game_of(state).evolve(state.game_state, event)
    elif isinstance(event, TableCreated):
        state.phase = "lobby"
        state.game = event.game
        state.seats = event.seats
        state.options = dict(event.options)
        state.rules_version = event.rules_version
        state.seed_commitment = event.seed_commitment
        state.names = [None] * event.seats
        state.token_hashes = [None] * event.seats
        state.player_ids = [""] * event.seats
        state.left = [False] * event.seats
        state.clock = event.clock
        state.rated = created_rated(event)
        if event.on_abandon is not msgspec.UNSET:
            state.on_abandon = event.on_abandon
        if event.bot_level is not msgspec.UNSET:
            state.bot_level = event.bot_level
        state.bot_from = [0] * event.seats
        if event.ends_at is not msgspec.UNSET:
            state.ends_at = event.ends_at
    elif isinstance(event, SeatJoined):
        state.names[event.seat] = event.name
        state.token_hashes[event.seat] = event.token_hash
        state.player_ids[event.seat] = event.player_id
    elif isinstance(event, SeatLeft):
        if event.conceded:
            state.left[event.seat] = True
        else:
            state.names[event.seat] = None
            state.token_hashes[event.seat] = None
            state.player_ids[event.seat] = ""
    elif isinstance(event, SeatTakenOver):
        state.token_hashes[event.seat] = event.token_hash
        if len(state.bot_from) != state.seats:
            state.bot_from = [0] * state.seats
        state.bot_from[event.seat] = state.seq + 1  # the seq this event gets
    elif isinstance(event, TableStarted):
        game = game_of(state)
        state.phase = "playing"
        state.game_state = game.initial_state(game_options(game, state.options), state.seats)
        reset_turns(state)
        if state.clock is not None:
            state.remaining_ms = [ms(state.clock.bank_s)] * state.seats
    elif isinstance(event, TableFinished):
        state.phase = "finished"
        state.standing = event.standing
        state.seed = event.seed
    elif isinstance(event, ClockExpired):
        # The seat's time is spent and its turn is over; if it is still to move after
        # what follows (on_expiry), a new turn begins at the settle.
        state.turn_seq[event.seat] = 0
        if state.clock is not None:
            state.remaining_ms[event.seat] = 0
    elif isinstance(event, TableClosed):
        state.phase = "closed"
        state.seed = event.seed
    elif isinstance(event, TableUndone):
        apply_undone(state, event)
    return state
