"""decide: validate one command against the state and return the events it causes.

Validation is ``problem`` alone (``check`` raises what it finds): ``gate`` (phase, turn),
then the command kind's predicate. ``legal_commands`` asks the same predicates (``gate``
once, then each parameter: ``visit_cell_problem``, ``slot_problem``, ``pay_problem``,
``fit_problem``, …), so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

import msgspec

from games.rejection import GAME_OVER, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from games.spacecraft import rocket
from games.spacecraft.flow import finish_turn
from games.spacecraft.junkyard import board_weight, search_moves, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import (
    Arrange,
    Build,
    ChooseGoal,
    EndTurn,
    Fulfil,
    Leave,
    Mark,
    Placement,
    Reserve,
    Search,
    Visit,
)
from orrery_contracts.spacecraft.events import (
    Arranged,
    CountdownTriggered,
    DesignFulfilled,
    DesignReserved,
    GoalChosen,
    Left,
    MarkerPlaced,
    PartBuilt,
    PlayStarted,
    Searched,
    Visited,
)


def gate(state: SpacecraftState, seat: int, kind: type[CommandBody]) -> Rejected | None:
    """Whether ``seat`` may send a command of this kind now at all (phase and turn)."""
    if state.phase == "over":
        return Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        return Rejected(NOT_YOUR_TURN, "no such seat")
    if kind is ChooseGoal:
        return None
    if state.phase not in ("play", "final"):
        return Rejected(WRONG_PHASE, "every player must choose a personal goal first")
    if seat != state.current:
        return Rejected(NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    if kind not in _CHECKS:
        return Rejected("illegal_command", "not a SPACEcraft command")
    return None


def problem(state: SpacecraftState, command: CommandBody, seat: int) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted: the
    one validation (``gate``, then the kind's predicate) that ``decide`` and
    ``legal_commands`` share."""
    kind = type(command)
    found = gate(state, seat, kind)
    if found is not None:
        return found
    if isinstance(command, ChooseGoal):
        return goal_problem(state, seat, command.goal)
    return _CHECKS[kind](state, command, seat)


def check(state: SpacecraftState, command: CommandBody, seat: int) -> None:
    found = problem(state, command, seat)
    if found is not None:
        raise found


def accepts(state: SpacecraftState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command."""
    return problem(state, command, seat) is None


def decide(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    check(state, command, seat)
    if isinstance(command, ChooseGoal):
        return _choose_goal(state, command, seat)
    return _EVENTS[type(command)](state, command, seat)


# ---------------------------------------------------------------------------- goals


def goal_problem(state: SpacecraftState, seat: int, goal: int) -> Rejected | None:
    if state.phase != "goals":
        return Rejected(WRONG_PHASE, "personal goals are chosen at the start only")
    if state.goals[seat] != NO_CARD:
        return Rejected("already_chosen", "you already chose your personal goal")
    if goal not in state.goal_options[seat]:
        return Rejected("not_an_option", "choose one of the two goals dealt to you")
    return None


def _choose_goal(state: SpacecraftState, c: ChooseGoal, seat: int) -> list[EventBody]:
    events: list[EventBody] = [GoalChosen(seat=seat, goal=c.goal)]
    if all(g != NO_CARD for s, g in enumerate(state.goals) if s != seat):
        events.append(PlayStarted(first=0))
    return events


# ---------------------------------------------------------------------------- junkyard


def _action_step(state: SpacecraftState) -> Rejected | None:
    if state.step != "action":
        return Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase == "final":
        return Rejected("final_leave_only", "only the final leave is left")
    return None


def _off_grid(state: SpacecraftState, x: int, y: int) -> Rejected | None:
    if not (0 <= x < state.size and 0 <= y < state.size):
        return Rejected("illegal_move", "that space is not on the junkyard")
    return None


def _taken(state: SpacecraftState, seat: int, cell: int) -> SpacecraftState:
    """A light copy of the state after ``seat`` took the top tile of ``cell``."""
    piles = list(state.piles)
    piles[cell] = piles[cell][:-1]
    pawns = list(state.pawns)
    pawns[seat] = cell
    return msgspec.structs.replace(state, piles=piles, pawns=pawns)


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


def _check_visit(state: SpacecraftState, c: Visit, seat: int) -> Rejected | None:
    found = visiting_problem(state, seat)
    return found or visit_cell_problem(state, c.x, c.y, visit_targets(state))


def _visit(state: SpacecraftState, c: Visit, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events: list[EventBody] = [Visited(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1])]
    return events + finish_turn(_taken(state, seat, cell), seat)


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
    board = state.boards[seat]
    if len(board) >= cat.BOARD_MAX_TILES:
        return Rejected("board_full", "your board already holds 4 tiles: leave the junkyard")
    if board_weight(board) + cat.JUNK_WEIGHT[state.piles[cell][-1]] > cat.BOARD_MAX_WEIGHT:
        return Rejected("too_heavy", "that tile would make your board heavier than 7")
    return None


def _check_search(state: SpacecraftState, c: Search, seat: int) -> Rejected | None:
    found = searching_problem(state, seat)
    return found or search_cell_problem(state, seat, c.x, c.y, search_moves(state, seat))


def _search(state: SpacecraftState, c: Search, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events: list[EventBody] = [Searched(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1])]
    return events + finish_turn(_taken(state, seat, cell), seat)


def _check_leave(state: SpacecraftState, c: Leave, seat: int) -> Rejected | None:
    if state.step != "action":
        return Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase != "final" and state.pawns[seat] < 0:
        return Rejected("must_visit", "your pawn is outside: visit the junkyard")
    return None


def _leave(state: SpacecraftState, c: Leave, seat: int) -> list[EventBody]:
    return [Left(seat=seat, tiles=list(state.boards[seat]))]


# ---------------------------------------------------------------------------- build step


def _build_step(state: SpacecraftState) -> Rejected | None:
    if state.step != "build":
        if state.step == "design":
            return Rejected("build_step_over", "parts are built before design cards")
        return Rejected(WRONG_PHASE, "leave the junkyard first")
    return None


def _layout_problem(
    state: SpacecraftState, seat: int, layout: list[Placement], extra: str
) -> Rejected | None:
    kinds = [p.kind for p in state.rockets[seat]]
    if extra:
        kinds.append(extra)
    if sorted(kinds) != sorted(p.kind for p in layout):
        return Rejected("layout_mismatch", "the layout must hold exactly your rocket's parts")
    reason = rocket.invalid_reason(layout)
    if reason is not None:
        return Rejected("invalid_layout", reason)
    return None


def payment_problem(beside: list[int], token: int, need: int, pay: list[int]) -> str | None:
    """Why paying ``pay`` (junk ids) for a part of weight ``need`` in a column requiring
    ``token`` fails, or None: the one affordability rule (``decide`` and the cheapest
    payment that ``legal_commands`` lists both use it)."""
    counts = [0] * cat.N_JUNK
    weight = 0
    for t in pay:
        counts[t] += 1
        weight += cat.JUNK_WEIGHT[t]
    for t, n in enumerate(counts):
        if n > beside[t]:
            return "cannot_afford"
    if counts[token] == 0:
        return "missing_required_junk"
    if weight < need:
        return "too_light"
    return None


def _paid(names: list[str]) -> list[int] | None:
    try:
        return [cat.JUNK_ID[name] for name in names]
    except KeyError:
        return None


def building_problem(state: SpacecraftState, seat: int) -> Rejected | None:
    """Whether ``seat`` may build a part at all now (any compartment)."""
    found = _build_step(state)
    if found is None and state.builds >= 2:
        return Rejected("build_limit", "at most 2 parts per turn")
    return found


def slot_problem(state: SpacecraftState, slot: int) -> Rejected | None:
    """Whether compartment ``slot`` exists and still holds a part."""
    if not 0 <= slot < len(cat.SLOTS):
        return Rejected("no_such_slot", "no such workshop compartment")
    if state.supply[slot] <= 0:
        return Rejected("sold_out", f"no {cat.SLOTS[slot].kind} left in the workshop")
    return None


def pay_problem(state: SpacecraftState, seat: int, slot: int, pay: list[str]) -> Rejected | None:
    """Whether ``pay`` (junk names) pays for a part of compartment ``slot``."""
    paid = _paid(pay)
    if paid is None:
        unknown = next(name for name in pay if name not in cat.JUNK_ID)
        return Rejected("bad_payment", f"unknown junk {unknown!r}")
    part = cat.SLOTS[slot]
    token = state.tokens[part.column]
    need = cat.PART_WEIGHT[rocket.shape(part.kind)]
    reason = payment_problem(state.beside[seat], token, need, paid)
    if reason == "cannot_afford":
        return Rejected("cannot_afford", "you do not have that junk beside your board")
    if reason == "missing_required_junk":
        return Rejected(reason, f"this column needs a {cat.JUNK_NAMES[token]}")
    if reason == "too_light":
        return Rejected("cannot_afford", "the junk paid is too light for this part")
    return None


def fit_problem(state: SpacecraftState, seat: int, kind: str) -> Rejected | None:
    """Whether a part of ``kind`` fits the rocket, rearranged if need be."""
    if not rocket.feasible([*(p.kind for p in state.rockets[seat]), kind]):
        return Rejected("does_not_fit", "that part cannot fit your rocket")
    return None


def _check_build(state: SpacecraftState, c: Build, seat: int) -> Rejected | None:
    found = building_problem(state, seat) or slot_problem(state, c.slot)
    found = found or pay_problem(state, seat, c.slot, c.pay)
    if found is not None:
        return found
    kind = cat.SLOTS[c.slot].kind
    if c.layout is not None:
        return _layout_problem(state, seat, list(c.layout), kind)
    return fit_problem(state, seat, kind)


def _build(state: SpacecraftState, c: Build, seat: int) -> list[EventBody]:
    kind = cat.SLOTS[c.slot].kind
    if c.layout is not None:
        layout = list(c.layout)
    else:
        placed = rocket.place_new(state.rockets[seat], kind)
        assert placed is not None, "a feasible part always finds a layout"
        layout = placed
    events: list[EventBody] = [
        PartBuilt(seat=seat, slot=c.slot, kind=kind, paid=sorted(_paid(c.pay) or []), layout=layout)
    ]
    if (
        state.holder < 0
        and state.phase == "play"
        and rocket.meets_blueprint(layout, state.blueprint)
    ):
        events.append(CountdownTriggered(seat=seat))
    return events


def _check_arrange(state: SpacecraftState, c: Arrange, seat: int) -> Rejected | None:
    return _build_step(state) or _layout_problem(state, seat, list(c.layout), "")


def _arrange(state: SpacecraftState, c: Arrange, seat: int) -> list[EventBody]:
    return [Arranged(seat=seat, layout=list(c.layout))]


# ---------------------------------------------------------------------------- design step


def _design_step(state: SpacecraftState, variant: str) -> Rejected | None:
    if state.step not in ("build", "design"):
        return Rejected(WRONG_PHASE, "leave the junkyard first")
    if state.variant != variant:
        return Rejected("wrong_variant", f"only in the {variant} variant")
    return None


def _check_fulfil(state: SpacecraftState, c: Fulfil, seat: int) -> Rejected | None:
    found = _design_step(state, "basic")
    if found is not None:
        return found
    if state.reserved_now:
        return Rejected("already_reserved", "you reserved a card instead of fulfilling")
    if state.designs >= 2:
        return Rejected("design_limit", "at most 2 design cards per turn")
    if c.card == NO_CARD or (c.card not in state.lower and c.card != state.reserved[seat]):
        return Rejected("card_not_available", "that card is not in the lower row nor reserved")
    if not rocket.meets_design(state.rockets[seat], cat.DESIGN_BY_ID[c.card]):
        return Rejected("requirements_not_met", "your rocket does not meet that design")
    return None


def _fulfil(state: SpacecraftState, c: Fulfil, seat: int) -> list[EventBody]:
    slot = state.lower.index(c.card) if c.card in state.lower else -1
    return [DesignFulfilled(seat=seat, card=c.card, slot=slot)]


def _check_reserve(state: SpacecraftState, c: Reserve, seat: int) -> Rejected | None:
    found = _design_step(state, "basic")
    if found is not None:
        return found
    if state.designs > 0:
        return Rejected("already_fulfilled", "reserve only when you fulfilled no design")
    if state.reserved_now or state.reserved[seat] != NO_CARD:
        return Rejected("reserve_full", "you may hold only one reserved card")
    if c.card == NO_CARD or c.card not in state.lower:
        return Rejected("card_not_available", "that card is not in the lower row")
    return None


def _reserve(state: SpacecraftState, c: Reserve, seat: int) -> list[EventBody]:
    return [DesignReserved(seat=seat, card=c.card, slot=state.lower.index(c.card))]


def _check_mark(state: SpacecraftState, c: Mark, seat: int) -> Rejected | None:
    found = _design_step(state, "advanced")
    if found is not None:
        return found
    if state.marked:
        return Rejected("already_marked", "one marker per turn")
    if state.markers_left[seat] <= 0:
        return Rejected("no_markers", "you have no markers left")
    if c.card not in state.adv_cards:
        return Rejected("card_not_available", "that card is not on display")
    i = state.adv_cards.index(c.card)
    if len(state.adv_marks[i]) >= len(cat.advanced_track(c.card, state.adv_sides[i])):
        return Rejected("card_full", "that card has no free space")
    return None


def _mark(state: SpacecraftState, c: Mark, seat: int) -> list[EventBody]:
    space = len(state.adv_marks[state.adv_cards.index(c.card)])
    return [MarkerPlaced(seat=seat, card=c.card, space=space)]


def _check_end_turn(state: SpacecraftState, c: EndTurn, seat: int) -> Rejected | None:
    if state.step == "action":
        return Rejected(WRONG_PHASE, "visit, search or leave first")
    return None


def _end_turn(state: SpacecraftState, c: EndTurn, seat: int) -> list[EventBody]:
    return finish_turn(state, seat)


_CHECKS: dict[type, Callable[[SpacecraftState, Any, int], Rejected | None]] = {
    Visit: _check_visit,
    Search: _check_search,
    Leave: _check_leave,
    Build: _check_build,
    Arrange: _check_arrange,
    Fulfil: _check_fulfil,
    Reserve: _check_reserve,
    Mark: _check_mark,
    EndTurn: _check_end_turn,
}
_EVENTS: dict[type, Callable[[SpacecraftState, Any, int], list[EventBody]]] = {
    Visit: _visit,
    Search: _search,
    Leave: _leave,
    Build: _build,
    Arrange: _arrange,
    Fulfil: _fulfil,
    Reserve: _reserve,
    Mark: _mark,
    EndTurn: _end_turn,
}
