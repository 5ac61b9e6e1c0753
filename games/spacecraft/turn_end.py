"""End of turn (``sc.end_turn``, or a visit or a search): design-row refill, passing the
turn, the countdown, the final round, the end of the game."""

from __future__ import annotations

import msgspec

from games.rejection import WRONG_PHASE, Rejected
from games.spacecraft.junkyard import has_free_edge_pile, has_visit_target
from games.spacecraft.scoring import breakdown
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import EndTurn
from orrery_contracts.spacecraft.events import (
    CountdownAdvanced,
    FinalRoundStarted,
    GameEnded,
    RowsRefilled,
    TurnPassed,
)


def refill(state: SpacecraftState) -> tuple[RowsRefilled | None, bool]:
    """The refill event (None when nothing changes) and whether the upper row stays short."""
    if NO_CARD not in state.lower and NO_CARD not in state.upper:
        return None, False  # both rows full (no card taken): nothing moves, nothing drawn
    lower, upper = list(state.lower), list(state.upper)
    for i in range(cat.ROW_SIZE):
        if lower[i] == NO_CARD and upper[i] != NO_CARD:
            lower[i], upper[i] = upper[i], NO_CARD
    drawn = 0
    for i in range(cat.ROW_SIZE):
        if upper[i] == NO_CARD and drawn < len(state.deck):
            upper[i] = state.deck[drawn]
            drawn += 1
    short = NO_CARD in upper
    if lower == state.lower and upper == state.upper:
        return None, short
    return RowsRefilled(lower=lower, upper=upper, drawn=drawn), short


def _order_from(state: SpacecraftState, seat: int) -> list[int]:
    return [(seat + i) % state.players for i in range(state.players)]


def game_ended(state: SpacecraftState) -> GameEnded:
    b = breakdown(state)
    return GameEnded(
        points=b.points,
        ranks=b.ranks,
        trigger=b.trigger,
        blueprint=b.blueprint,
        goals=b.goals,
        designs=b.designs,
        junk=b.junk,
    )


def _taken(state: SpacecraftState, seat: int, cell: int) -> SpacecraftState:
    """A light copy of the state after ``seat`` took the top tile of ``cell``."""
    piles = list(state.piles)
    piles[cell] = piles[cell][:-1]
    pawns = list(state.pawns)
    pawns[seat] = cell
    return msgspec.structs.replace(state, piles=piles, pawns=pawns)


def finish_turn(state: SpacecraftState, seat: int, took: int = -1) -> list[EventBody]:
    """Events closing ``seat``'s turn. ``state`` already reflects the turn's earlier events
    and is not modified; ``took``: the pile whose top tile ``seat`` took this turn (a
    visit or a search), which ``state`` does not reflect yet. Only the junkyard's piles
    and pawns differ after it, so the light copy reflecting it (``_taken``) is made only
    where they are read."""
    out: list[EventBody] = []
    short = False
    if state.variant != "advanced" and (NO_CARD in state.lower or NO_CARD in state.upper):
        # (both rows full, no card taken: refill has nothing to move or draw)
        refilled, short = refill(state)
        if refilled is not None:
            out.append(refilled)
    if state.phase == "final":
        if len(state.final_order) <= 1:
            out.append(game_ended(state if took < 0 else _taken(state, seat, took)))
        else:
            out.append(TurnPassed(seat=state.final_order[1]))
        return out
    if short:
        out.append(TurnPassed(seat=seat))
        out.append(FinalRoundStarted(reason="designs_exhausted", order=_order_from(state, seat)))
        return out
    nxt = (seat + 1) % state.players
    out.append(TurnPassed(seat=nxt))
    if nxt == state.holder:
        remaining = state.countdown - 1
        out.append(CountdownAdvanced(remaining=remaining))
        if remaining <= 1:
            out.append(FinalRoundStarted(reason="launch", order=_order_from(state, nxt)))
            return out
    # ``nxt`` is another seat (two seats at least): its pawn is the same after ``took``.
    # A free pile on the edge other than ``took``, free before and after the take, is a
    # visit target: the usual case, answered without the light copy.
    if (
        state.pawns[nxt] < 0
        and not has_free_edge_pile(state, took)
        and not has_visit_target(state if took < 0 else _taken(state, seat, took))
    ):
        out.append(FinalRoundStarted(reason="cannot_visit", order=_order_from(state, nxt)))
    return out


def end_turn_problem(state: SpacecraftState, c: EndTurn, seat: int) -> Rejected | None:
    if state.step == "action":
        return Rejected(WRONG_PHASE, "visit, search or leave first")
    return None


def end_turn_at_once(state: SpacecraftState, c: EndTurn, seat: int) -> list[EventBody] | None:
    """``end_turn``'s events when ``end_turn_problem`` accepts the command, else None."""
    return None if state.step == "action" else finish_turn(state, seat)


def end_turn(state: SpacecraftState, c: EndTurn, seat: int) -> list[EventBody]:
    return finish_turn(state, seat)
