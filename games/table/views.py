"""What a viewer may know of the table (:func:`table_view`): the game's own view for
that seat (or a spectator), the seats, whose turn, the clocks, the standing, and the
seat's legal commands (the game's, undo when allowed, leave; start in a full lobby).
Every outward channel renders a table through this one function.
"""

from __future__ import annotations

from typing import Any

from games.registry import get_game
from games.rejection import Rejected
from games.table.clocks import clock_view, settle_turns
from games.table.standing import standing_lines
from games.table.state import TableState, table_status
from games.table.undo_points import undo_check
from orrery_contracts.table import LeaveTable, StartTable, UndoTable
from orrery_contracts.views import SeatInfo, StandingLine, TableView


def _undo_legal(state: TableState, seat: int) -> list[UndoTable]:
    settle_turns(state)
    try:
        undo_check(state, seat, None)
    except Rejected:
        return []
    return [UndoTable()]


def table_view(
    state: TableState, seat: int | None, standings: list[StandingLine] | None = None
) -> TableView[Any, Any]:
    """What ``seat`` (None: a spectator) may know of the table, with its legal commands.
    ``standings`` (public, the same for every viewer) may be passed in when the caller
    builds every seat's view at once."""
    game = get_game(state.game) if state.game else None
    status = table_status(state)
    game_view = None
    legal: list[Any] = []
    if game is not None and state.game_state is not None:
        game_view = game.view(state.game_state, seat)
        if seat is not None and state.phase == "playing" and not state.left[seat]:
            legal = [*game.legal_commands(state.game_state, seat), *_undo_legal(state, seat)]
            legal.append(LeaveTable())
    if seat is not None and state.phase == "lobby":
        full = all(name is not None for name in state.names)
        legal = [StartTable(), LeaveTable()] if full else [LeaveTable()]
    return TableView(
        table_id=state.table_id,
        game=state.game,
        seq=state.seq,
        phase=state.phase,
        viewer=seat,
        seats=[
            SeatInfo(seat=s, name=state.names[s], left=state.left[s]) for s in range(state.seats)
        ],
        to_move=list(status.to_move),
        game_phase=status.phase,
        round=status.round,
        view=game_view,
        legal=legal,
        seed_commitment=state.seed_commitment,
        standing=state.standing,
        seed=state.seed,
        clock=clock_view(state),
        standings=standing_lines(state) if standings is None else standings,
    )
