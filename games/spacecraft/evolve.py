"""evolve: apply one SPACEcraft fact to the state (no decisions, no randomness).

One small function per event, found by the event's type in a dict (events are never
subclassed, so the exact type is the kind: one lookup, where a ``match`` tries its cases
in turn); an event that is not SPACEcraft's is an error, never silently skipped.

It reads no content data: the workshop stock and the advanced markers come with the
setup events, what a part cost with ``sc.part_built``.
"""

from __future__ import annotations

from typing import Any

from games.folds import fold_functions
from games.spacecraft.state import NO_CARD, OFF_BOARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import events as ev

# ---------------------------------------------------------------------------- set-up


def _junkyard(s: SpacecraftState, e: ev.JunkyardLaid) -> None:
    s.size = e.size
    s.piles = [*map(tuple, e.piles)]
    s.returned = list(e.returned)


def _designs(s: SpacecraftState, e: ev.DesignsLaid) -> None:
    s.lower, s.upper, s.deck = list(e.lower), list(e.upper), list(e.deck)
    s.removed_designs = list(e.removed)


def _advanced(s: SpacecraftState, e: ev.AdvancedLaid) -> None:
    s.adv_cards, s.adv_sides = list(e.cards), list(e.sides)
    s.adv_marks = [[] for _ in e.cards]
    s.adv_removed = list(e.removed)
    s.markers_left = [e.markers] * s.players


def _play_started(s: SpacecraftState, e: ev.PlayStarted) -> None:
    s.goal_options = [[] for _ in range(s.players)]
    s.phase = "play"
    s.step = "action"
    s.current = e.first
    s.turns = 1


# ---------------------------------------------------------------------------- a turn


def _take(s: SpacecraftState, e: ev.Visited | ev.Searched) -> None:
    """A visit or a search: the pawn moves onto the pile and takes its top tile."""
    cell = e.y * s.size + e.x
    seat = e.seat
    s.pawns[seat] = cell
    pile = s.piles[cell]
    s.piles[cell] = pile[:-1]  # a new tuple: copies of the state share the piles
    s.boards[seat].append(pile[-1])


def _left(s: SpacecraftState, e: ev.Left) -> None:
    beside = s.beside[e.seat]
    for t in e.tiles:
        beside[t] += 1
    s.boards[e.seat] = []
    s.pawns[e.seat] = OFF_BOARD
    s.step = "build"


def _built(s: SpacecraftState, e: ev.PartBuilt) -> None:
    beside = s.beside[e.seat]
    for t in e.paid:
        beside[t] -= 1
        s.paid[t] += 1
    s.supply[e.slot] -= 1
    s.rockets[e.seat] = list(e.layout)
    s.builds += 1


def _fulfilled(s: SpacecraftState, e: ev.DesignFulfilled) -> None:
    if e.slot >= 0:
        s.lower[e.slot] = NO_CARD
    else:
        s.reserved[e.seat] = NO_CARD
    s.fulfilled[e.seat].append(e.card)
    s.designs += 1
    s.step = "design"


def _reserved(s: SpacecraftState, e: ev.DesignReserved) -> None:
    s.lower[e.slot] = NO_CARD
    s.reserved[e.seat] = e.card
    s.reserved_now = True
    s.step = "design"


def _marked(s: SpacecraftState, e: ev.MarkerPlaced) -> None:
    s.adv_marks[s.adv_cards.index(e.card)].append(e.seat)
    s.markers_left[e.seat] -= 1
    s.marked = True
    s.step = "design"


def _turn_passed(s: SpacecraftState, e: ev.TurnPassed) -> None:
    if s.phase == "final" and s.final_order:
        s.final_order.pop(0)  # the seat that just took its final leave
    s.current = e.seat
    s.step = "action"
    s.turns += 1
    s.builds = s.designs = 0
    s.reserved_now = s.marked = s.arranged = False


def _final_round(s: SpacecraftState, e: ev.FinalRoundStarted) -> None:
    s.phase = "final"
    s.final_reason = e.reason
    s.final_order = list(e.order)


def _ended(s: SpacecraftState, e: ev.GameEnded) -> None:
    s.phase = "over"
    s.final_order = []
    s.points, s.ranks = list(e.points), list(e.ranks)


def _refilled(s: SpacecraftState, e: ev.RowsRefilled) -> None:
    s.lower, s.upper = list(e.lower), list(e.upper)
    del s.deck[: e.drawn]


def _arranged(s: SpacecraftState, e: ev.Arranged) -> None:
    s.rockets[e.seat] = list(e.layout)
    s.arranged = True


def _goal_chosen(s: SpacecraftState, e: ev.GoalChosen) -> None:
    s.goals[e.seat] = e.goal


def _goals_dealt(s: SpacecraftState, e: ev.GoalsDealt) -> None:
    s.goal_options[e.seat] = list(e.options)
    s.phase = "goals"


def _countdown_advanced(s: SpacecraftState, e: ev.CountdownAdvanced) -> None:
    s.countdown = e.remaining


def _countdown_triggered(s: SpacecraftState, e: ev.CountdownTriggered) -> None:
    s.holder = e.seat


def _workshop(s: SpacecraftState, e: ev.WorkshopLaid) -> None:
    s.tokens, s.supply = list(e.tokens), list(e.supply)


def _blueprint(s: SpacecraftState, e: ev.BlueprintDrawn) -> None:
    s.blueprint = e.card


# Event type → its fold; each function is typed for its event, hence ``Any`` values.
FOLDS: dict[type[EventBody], Any] = {
    ev.TurnPassed: _turn_passed,
    ev.Searched: _take,
    ev.PartBuilt: _built,
    ev.Left: _left,
    ev.Visited: _take,
    ev.RowsRefilled: _refilled,
    ev.DesignFulfilled: _fulfilled,
    ev.DesignReserved: _reserved,
    ev.Arranged: _arranged,
    ev.MarkerPlaced: _marked,
    ev.GoalChosen: _goal_chosen,
    ev.GoalsDealt: _goals_dealt,
    ev.CountdownAdvanced: _countdown_advanced,
    ev.CountdownTriggered: _countdown_triggered,
    ev.FinalRoundStarted: _final_round,
    ev.GameEnded: _ended,
    ev.PlayStarted: _play_started,
    ev.JunkyardLaid: _junkyard,
    ev.WorkshopLaid: _workshop,
    ev.BlueprintDrawn: _blueprint,
    ev.DesignsLaid: _designs,
    ev.AdvancedLaid: _advanced,
}


evolve, evolve_all = fold_functions(FOLDS, "SPACEcraft")
