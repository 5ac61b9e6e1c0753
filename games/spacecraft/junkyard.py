"""Junkyard movement: where a pawn may visit (enter) and where it may search (move)."""

from __future__ import annotations

from functools import lru_cache

from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat

_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))


@lru_cache(maxsize=16)
def _grid(size: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The edge cells of a ``size`` × ``size`` junkyard and each cell's orthogonal
    neighbours (made once per size: every visit and every listing walks them)."""
    edge: list[int] = []
    for i in range(size):
        for x, y in ((i, 0), (i, size - 1), (0, i), (size - 1, i)):
            cell = y * size + x
            if cell not in edge:
                edge.append(cell)
    neighbours = tuple(
        tuple(
            (cell // size + dy) * size + cell % size + dx
            for dx, dy in _DIRS
            if 0 <= cell % size + dx < size and 0 <= cell // size + dy < size
        )
        for cell in range(size * size)
    )
    return tuple(edge), neighbours


def visit_targets(state: SpacecraftState) -> list[int]:
    """Piles a pawn from outside may enter: on the edge, or reachable from outside through
    empty spaces (orthogonally). Pawns standing on empty spaces do not block the way
    (ASSUMED); a pile holding a pawn cannot be entered."""
    pawns = state.pawns
    reachable = _reachable(state.size, tuple(map(bool, state.piles)))
    return [cell for cell in reachable if cell not in pawns]


@lru_cache(maxsize=1024)
def _reachable(size: int, filled: tuple[bool, ...]) -> tuple[int, ...]:
    """The piles reachable from outside through empty spaces, in order, on a junkyard
    whose cells hold a pile where ``filled``: the walk never enters a pile, pawn or not,
    so it depends on which cells are empty alone (made once for each: they change when
    a pile is emptied)."""
    edge, neighbours = _grid(size)
    seen = bytearray(len(neighbours))
    for cell in edge:
        seen[cell] = 1
    frontier = list(edge)
    targets: list[int] = []
    while frontier:
        cell = frontier.pop()
        if filled[cell]:
            targets.append(cell)
            continue
        for n in neighbours[cell]:
            if not seen[n]:
                seen[n] = 1
                frontier.append(n)
    targets.sort()
    return tuple(targets)


def is_visit_target(state: SpacecraftState, cell: int) -> bool:
    """Whether ``cell`` is in ``visit_targets(state)``; a pile on the edge, the usual
    visit, answers it without the walk."""
    piles = state.piles
    if not piles[cell] or cell in state.pawns:
        return False
    size = state.size
    x, y = cell % size, cell // size
    if x == 0 or y == 0 or x == size - 1 or y == size - 1:
        return True
    return cell in _reachable(size, tuple(map(bool, piles)))


def has_visit_target(state: SpacecraftState) -> bool:
    """Whether ``visit_targets(state)`` is not empty. Checked at every turn's end; a free
    pile on the edge, the usual case, answers it without the walk through empty spaces."""
    return has_free_edge_pile(state, -1) or bool(visit_targets(state))


def has_free_edge_pile(state: SpacecraftState, besides: int) -> bool:
    """Whether a pile on the edge other than ``besides`` holds no pawn (a visit target)."""
    piles = state.piles
    pawns = state.pawns
    for cell in _grid(state.size)[0]:
        if piles[cell] and cell not in pawns and cell != besides:
            return True
    return False


def is_search_move(state: SpacecraftState, seat: int, cell: int) -> bool:
    """Whether ``cell`` is in ``search_moves(state, seat)``: only the one straight
    direction from the pawn towards ``cell`` is walked (a move lies in the line of its
    direction, as the adjacent or the farthest pile)."""
    size = state.size
    pawns = state.pawns
    start = pawns[seat]
    if start < 0 or not 0 <= cell < size * size:
        return False
    x0, y0 = start % size, start // size
    x1, y1 = cell % size, cell // size
    if x1 == x0 and y1 != y0:
        direction = 2 if y1 > y0 else 3  # (0, 1) or (0, -1) of _DIRS
    elif y1 == y0 and x1 != x0:
        direction = 0 if x1 > x0 else 1  # (1, 0) or (-1, 0)
    else:
        return False
    piles = state.piles
    last = -1
    for here in _rays(size)[start][direction]:
        if not piles[here] or here in pawns:
            break
        if last < 0 and here == cell:
            return True  # the adjacent pile
        last = here
    return last == cell  # the farthest pile


def search_moves(state: SpacecraftState, seat: int) -> list[int]:
    """Cells the seat's pawn may move to (adjacent pile or farthest reachable pile in each
    straight direction; pawns and empty spaces block), before the weight check."""
    start = state.pawns[seat]
    if start < 0:
        return []
    pawns = set(state.pawns)
    piles = state.piles
    out: list[int] = []
    for ray in _rays(state.size)[start]:  # each direction's cells, nearest first
        last = -1
        for cell in ray:
            if not piles[cell] or cell in pawns:
                break
            if last < 0:
                out.append(cell)
            last = cell
        if last >= 0 and last != out[-1]:
            out.append(last)
    return out


@lru_cache(maxsize=16)
def _rays(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each cell of a ``size`` × ``size`` junkyard, the cells in each direction of
    ``_DIRS`` up to the border, nearest first (made once per size)."""
    rays = []
    for start in range(size * size):
        x0, y0 = start % size, start // size
        mine = []
        for dx, dy in _DIRS:
            ray = []
            x, y = x0 + dx, y0 + dy
            while 0 <= x < size and 0 <= y < size:
                ray.append(y * size + x)
                x, y = x + dx, y + dy
            mine.append(tuple(ray))
        rays.append(tuple(mine))
    return tuple(rays)


def board_weight(board: list[int]) -> int:
    return sum(map(_WEIGHT_OF, board))  # (no generator: asked at every search)


_WEIGHT_OF = cat.JUNK_WEIGHT.__getitem__


def search_targets(state: SpacecraftState, seat: int) -> list[int]:
    """Legal search destinations: the move is legal and the taken tile fits on the board."""
    board = state.boards[seat]
    if len(board) >= cat.BOARD_MAX_TILES:
        return []
    room = cat.BOARD_MAX_WEIGHT - board_weight(board)
    return [c for c in search_moves(state, seat) if cat.JUNK_WEIGHT[state.piles[c][-1]] <= room]


def must_leave(state: SpacecraftState, seat: int) -> bool:
    """On the junkyard with a full board, weight 7, or no legal search move."""
    return state.pawns[seat] >= 0 and not search_targets(state, seat)
