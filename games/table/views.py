"""What a viewer may know of the table (:func:`table_view`): the game's own view for
that seat (or a spectator), the seats, whose turn, the clocks, the standing, and the
seat's legal commands (the game's, undo when allowed, leave; start in a full lobby).
Every outward channel renders a table through this one function, or through
:func:`table_views`, the same views of every viewer at once.

:func:`table_views` is what the views projection calls after every command: the parts
that are the same for every viewer (the table's status, seats, clocks and standing, and
the public parts of the game's view when the game can build them once: its optional
``views(state, viewers)``, games/protocol.py) are computed once per table, not once per
viewer. Both functions build a view with the same code (:func:`_view`), from the same
facts; the views of one table share those parts, so they are for reading (encoding),
not for changing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.protocol import Game, Status
from games.registry import get_game
from games.rejection import Rejected
from games.table.clocks import clock_view, settle_turns
from games.table.standing import standing_lines
from games.table.state import TableState, moving, seat_info, table_status, taken_over
from games.table.undo_points import undo_check
from orrery_contracts.base import ViewBody
from orrery_contracts.table import LeaveTable, StartTable, UndoTable
from orrery_contracts.views import ClockView, SeatInfo, StandingLine, TableView


@dataclass(frozen=True, slots=True)
class _Facts:
    """What every viewer of the table is shown alike, read once per table."""

    game: Game[Any] | None
    status: Status
    moving: tuple[int, ...]  # the seats to move that are still playing (undo asks)
    to_move: list[int]
    seats: list[SeatInfo]
    clock: ClockView | None
    standings: list[StandingLine]


def _facts(state: TableState, standings: list[StandingLine] | None) -> _Facts:
    status = table_status(state)
    playing = state.phase == "playing"
    if playing:
        settle_turns(state)  # undo reads the turns (clock_view settles on its own)
    return _Facts(
        game=get_game(state.game) if state.game else None,
        status=status,
        moving=moving(state, status) if playing else (),
        to_move=list(status.to_move),
        seats=[seat_info(state, s) for s in range(state.seats)],
        clock=clock_view(state),
        standings=standing_lines(state) if standings is None else standings,
    )


def _undo_legal(state: TableState, facts: _Facts, seat: int) -> list[UndoTable]:
    try:
        undo_check(state, seat, None, facts.moving)
    except Rejected:
        return []
    return [UndoTable()]


def _legal(state: TableState, facts: _Facts, seat: int | None) -> list[Any]:
    if seat is None:
        return []
    if state.phase == "lobby":
        full = all(name is not None for name in state.names)
        return [StartTable(), LeaveTable()] if full else [LeaveTable()]
    game = facts.game
    if game is None or state.game_state is None or state.phase != "playing":
        return []
    if taken_over(state, seat):  # a bot plays it: the game's moves only
        return list(game.legal_commands(state.game_state, seat))
    if state.left[seat]:
        return []
    return [
        *game.legal_commands(state.game_state, seat),
        *_undo_legal(state, facts, seat),
        LeaveTable(),
    ]


def _game_views(
    state: TableState, game: Game[Any] | None, viewers: Sequence[int | None]
) -> list[ViewBody | None]:
    """The game's view for each viewer: at once when the game offers ``views``."""
    if game is None or state.game_state is None:
        return [None] * len(viewers)
    at_once = getattr(game, "views", None)
    if at_once is None or len(viewers) == 1:
        return [game.view(state.game_state, seat) for seat in viewers]
    views: list[ViewBody | None] = at_once(state.game_state, viewers)
    return views


def _view(
    state: TableState, facts: _Facts, seat: int | None, game_view: ViewBody | None
) -> TableView[Any, Any]:
    return TableView(
        table_id=state.table_id,
        game=state.game,
        seq=state.seq,
        phase=state.phase,
        viewer=seat,
        seats=facts.seats,
        to_move=facts.to_move,
        game_phase=facts.status.phase,
        round=facts.status.round,
        view=game_view,
        legal=_legal(state, facts, seat),
        seed_commitment=state.seed_commitment,
        standing=state.standing,
        seed=state.seed,
        clock=facts.clock,
        standings=facts.standings,
        actor=state.actor,
        undone_by=state.undone_by,
    )


def table_view(
    state: TableState, seat: int | None, standings: list[StandingLine] | None = None
) -> TableView[Any, Any]:
    """What ``seat`` (None: a spectator) may know of the table, with its legal commands.
    ``standings`` (public, the same for every viewer) may be passed in when the caller
    has them already."""
    facts = _facts(state, standings)
    (game_view,) = _game_views(state, facts.game, (seat,))
    return _view(state, facts, seat, game_view)


def table_views(state: TableState) -> dict[int | None, TableView[Any, Any]]:
    """:func:`table_view` of the spectator (None) and of every seat, in that order, with
    the work they share done once."""
    viewers: list[int | None] = [None, *range(state.seats)]
    facts = _facts(state, None)
    game_views = _game_views(state, facts.game, viewers)
    return {
        seat: _view(state, facts, seat, game_view)
        for seat, game_view in zip(viewers, game_views, strict=True)
    }
