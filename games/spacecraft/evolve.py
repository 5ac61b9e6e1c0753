"""evolve: apply one SPACEcraft fact to the state (no decisions, no randomness).

One ``match`` on the event type, one case per event; an event that is not SPACEcraft's
is an error, never silently skipped. The match is on ``type(event)`` with dotted value
patterns (``case ev.Left:``): a case that misses costs one compare of two classes, where a
class pattern (``case ev.Left():``) costs an ``isinstance`` through msgspec's metaclass,
several times more (events are never subclassed, so the exact type is the kind). The
cases stand in the order of how often their events occur (random 4-seat games: a third
of all events pass the turn, then searches, builds, leaves, visits, ...); the set-up
events, once per game, come last.

It reads no content data: the workshop stock and the advanced markers come with the
setup events, what a part cost with ``sc.part_built``.
"""

from __future__ import annotations

from typing import Any

from games.spacecraft.state import NO_CARD, OFF_BOARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import events as ev


def evolve(state: SpacecraftState, event: EventBody) -> SpacecraftState:
    # mypy does not narrow ``event`` from ``type(event)``, hence ``e: Any``.
    e: Any = event
    match type(event):
        case ev.TurnPassed:
            _turn_passed(state, e)
        case ev.Searched:
            _take(state, e.seat, e.x, e.y)
        case ev.PartBuilt:
            _built(state, e)
        case ev.Left:
            _left(state, e)
        case ev.Visited:
            _take(state, e.seat, e.x, e.y)
        case ev.RowsRefilled:
            state.lower, state.upper = list(e.lower), list(e.upper)
            del state.deck[: e.drawn]
        case ev.DesignFulfilled:
            _fulfilled(state, e)
        case ev.DesignReserved:
            _reserved(state, e)
        case ev.Arranged:
            state.rockets[e.seat] = list(e.layout)
            state.arranged = True
        case ev.MarkerPlaced:
            _marked(state, e)
        case ev.GoalChosen:
            state.goals[e.seat] = e.goal
        case ev.GoalsDealt:
            state.goal_options[e.seat] = list(e.options)
            state.phase = "goals"
        case ev.CountdownAdvanced:
            state.countdown = e.remaining
        case ev.CountdownTriggered:
            state.holder = e.seat
        case ev.FinalRoundStarted:
            _final_round(state, e)
        case ev.GameEnded:
            _ended(state, e)
        case ev.PlayStarted:
            _play_started(state, e)
        case ev.JunkyardLaid:
            _junkyard(state, e)
        case ev.WorkshopLaid:
            state.tokens, state.supply = list(e.tokens), list(e.supply)
        case ev.BlueprintDrawn:
            state.blueprint = e.card
        case ev.DesignsLaid:
            _designs(state, e)
        case ev.AdvancedLaid:
            _advanced(state, e)
        case _:
            raise TypeError(f"not a SPACEcraft event: {type(event).__name__}")
    return state


# ---------------------------------------------------------------------------- set-up


def _junkyard(s: SpacecraftState, e: ev.JunkyardLaid) -> None:
    s.size = e.size
    s.piles = [list(p) for p in e.piles]
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


def _take(s: SpacecraftState, seat: int, x: int, y: int) -> None:
    """A visit or a search: the pawn moves onto the pile and takes its top tile."""
    cell = y * s.size + x
    s.pawns[seat] = cell
    s.boards[seat].append(s.piles[cell].pop())


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
