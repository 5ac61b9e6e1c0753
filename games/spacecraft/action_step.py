"""The action step of a turn: visit the junkyard, search it, or leave it (``sc.visit``,
``sc.search``, ``sc.leave``). Where a pawn may go is ``junkyard.py``; a visit or a search
ends the turn (``turn_end.finish_turn``), leaving starts the build step.

Each command has its whole-command predicate (``*_problem`` taking the command) built from
the per-parameter ones that ``legal.py`` asks as well.
"""

from __future__ import annotations

from games.rejection import UNKNOWN_SPACE, WRONG_PHASE, Rejected
from games.spacecraft.junkyard import board_weight, is_search_move, is_visit_target
from games.spacecraft.state import SpacecraftState
from games.spacecraft.turn_end import finish_turn
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Leave, Search, Visit
from orrery_contracts.spacecraft.events import Left, Searched, Visited


def _action_step(state: SpacecraftState) -> Rejected | None:
    if state.step != "action":
        return Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase == "final":
        return Rejected("final_leave_only", "only the final leave is left")
    return None


def _off_grid(state: SpacecraftState, x: int, y: int) -> Rejected | None:
    if not (0 <= x < state.size and 0 <= y < state.size):
        return Rejected(UNKNOWN_SPACE, "that space is not on the junkyard")
    return None


# ---------------------------------------------------------------------------- visit


def visiting_problem(state: SpacecraftState, seat: int) -> Rejected | None:
    """Whether ``seat`` may visit at all now (any pile)."""
    found = _action_step(state)
    if found is None and state.pawns[seat] >= 0:
        return Rejected("in_junkyard", "your pawn is already in the junkyard: search or leave")
    return found


def visit_cell_problem(
    state: SpacecraftState, x: int, y: int, targets: list[int]
) -> Rejected | None:
    """Whether pile (x, y) can be visited, ``targets`` being ``visit_targets(state)``."""
    found = _off_grid(state, x, y)
    if found is None and y * state.size + x not in targets:
        return Rejected("illegal_move", "that pile cannot be reached from outside")
    return found


def visit_problem(state: SpacecraftState, c: Visit, seat: int) -> Rejected | None:
    found = visiting_problem(state, seat) or _off_grid(state, c.x, c.y)
    if found is None and not is_visit_target(state, c.y * state.size + c.x):
        return Rejected("illegal_move", "that pile cannot be reached from outside")
    return found


def visit_at_once(state: SpacecraftState, c: Visit, seat: int) -> list[EventBody] | None:
    """``visit``'s events when ``visit_problem`` surely accepts the command, worked out
    with its check (the seat's pawn outside in the action step of play, a pile on the
    grid it may enter); None otherwise, for the caller to ask ``visit_problem``."""
    size = state.size
    x, y = c.x, c.y
    if (
        state.step != "action"
        or state.phase == "final"
        or state.pawns[seat] >= 0
        or not (0 <= x < size and 0 <= y < size)
    ):
        return None
    if not is_visit_target(state, y * size + x):
        return None
    return visit(state, c, seat)


def visit(state: SpacecraftState, c: Visit, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events = finish_turn(state, seat, cell)
    events.insert(0, Visited(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1]))
    return events


# ---------------------------------------------------------------------------- search


def searching_problem(state: SpacecraftState, seat: int) -> Rejected | None:
    """Whether ``seat`` may search at all now (any pile)."""
    found = _action_step(state)
    if found is None and state.pawns[seat] < 0:
        return Rejected("not_in_junkyard", "your pawn is outside: visit the junkyard")
    return found


def search_cell_problem(
    state: SpacecraftState, seat: int, x: int, y: int, moves: list[int]
) -> Rejected | None:
    """Whether the pawn may move to pile (x, y) and take its top tile, ``moves`` being
    ``search_moves(state, seat)``."""
    found = _off_grid(state, x, y)
    if found is not None:
        return found
    cell = y * state.size + x
    if cell not in moves:
        return Rejected("illegal_move", "move straight to the adjacent or the farthest pile")
    room = board_room(state.boards[seat])
    if room < 0:
        return Rejected("board_full", "your board already holds 4 tiles: leave the junkyard")
    if cat.JUNK_WEIGHT[state.piles[cell][-1]] > room:
        return Rejected("too_heavy", "that tile would make your board heavier than 7")
    return None


def board_room(board: list[int]) -> int:
    """The weight of a tile the board can still take, -1 when it holds all it may."""
    if len(board) >= cat.BOARD_MAX_TILES:
        return -1
    return cat.BOARD_MAX_WEIGHT - board_weight(board)


def search_problem(state: SpacecraftState, c: Search, seat: int) -> Rejected | None:
    found = searching_problem(state, seat)
    if found is not None:
        return found
    # of the pawn's moves only whether this pile is one (the others are not asked)
    cell = c.y * state.size + c.x
    moves = [cell] if is_search_move(state, seat, cell) else []
    return search_cell_problem(state, seat, c.x, c.y, moves)


def search_at_once(state: SpacecraftState, c: Search, seat: int) -> list[EventBody] | None:
    """``search``'s events when ``search_problem`` surely accepts the command, worked out
    with its check (in the action step of play, a move of the seat's pawn to a pile on
    the grid whose top tile its board takes); None otherwise, for the caller to ask
    ``search_problem``."""
    size = state.size
    x, y = c.x, c.y
    if state.step != "action" or state.phase == "final" or not (0 <= x < size and 0 <= y < size):
        return None
    cell = y * size + x
    board = state.boards[seat]
    # is_search_move: the pawn is on the junkyard and the pile is one of its moves
    if len(board) >= cat.BOARD_MAX_TILES or not is_search_move(state, seat, cell):
        return None
    if _WEIGHT[state.piles[cell][-1]] > cat.BOARD_MAX_WEIGHT - board_weight(board):
        return None
    return search(state, c, seat)


_WEIGHT = cat.JUNK_WEIGHT


def search(state: SpacecraftState, c: Search, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events = finish_turn(state, seat, cell)
    events.insert(0, Searched(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1]))
    return events


# ---------------------------------------------------------------------------- leave


def leave_problem(state: SpacecraftState, c: Leave, seat: int) -> Rejected | None:
    if state.step != "action":
        return Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase != "final" and state.pawns[seat] < 0:
        return Rejected("must_visit", "your pawn is outside: visit the junkyard")
    return None


def leave_at_once(state: SpacecraftState, c: Leave, seat: int) -> list[EventBody] | None:
    """``leave``'s events when ``leave_problem`` accepts the command, else None."""
    if state.step != "action" or (state.phase != "final" and state.pawns[seat] < 0):
        return None
    return leave(state, c, seat)


def leave(state: SpacecraftState, c: Leave, seat: int) -> list[EventBody]:
    return [Left(seat=seat, tiles=list(state.boards[seat]))]
