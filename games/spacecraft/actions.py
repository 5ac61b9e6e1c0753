"""decide: validate one command against the state and return the events it causes.

Validation is ``check`` alone (``accepts`` wraps it); ``legal_commands`` keeps only the
candidates ``check`` accepts, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

import msgspec

from contracts.base import CommandBody, EventBody
from contracts.spacecraft import catalogue as cat
from contracts.spacecraft.commands import (
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
from contracts.spacecraft.events import (
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
from games.rejection import GAME_OVER, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from games.spacecraft import rocket
from games.spacecraft.flow import finish_turn
from games.spacecraft.junkyard import board_weight, search_moves, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState


def check(state: SpacecraftState, command: CommandBody, seat: int) -> None:
    """Raise the :class:`Rejected` that ``decide`` gives for this command, or return: the
    one validation that ``decide`` and ``legal_commands`` share."""
    if state.phase == "over":
        raise Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        raise Rejected(NOT_YOUR_TURN, "no such seat")
    if isinstance(command, ChooseGoal):
        _check_goal(state, command, seat)
        return
    if state.phase not in ("play", "final"):
        raise Rejected(WRONG_PHASE, "every player must choose a personal goal first")
    if seat != state.current:
        raise Rejected(NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    validate = _CHECKS.get(type(command))
    if validate is None:
        raise Rejected("illegal_command", "not a SPACEcraft command")
    validate(state, command, seat)


def accepts(state: SpacecraftState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command (the test ``legal_commands`` applies)."""
    try:
        check(state, command, seat)
    except Rejected:
        return False
    return True


def decide(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    check(state, command, seat)
    if isinstance(command, ChooseGoal):
        return _choose_goal(state, command, seat)
    return _EVENTS[type(command)](state, command, seat)


# ---------------------------------------------------------------------------- goals


def _check_goal(state: SpacecraftState, c: ChooseGoal, seat: int) -> None:
    if state.phase != "goals":
        raise Rejected(WRONG_PHASE, "personal goals are chosen at the start only")
    if state.goals[seat] != NO_CARD:
        raise Rejected("already_chosen", "you already chose your personal goal")
    if c.goal not in state.goal_options[seat]:
        raise Rejected("not_an_option", "choose one of the two goals dealt to you")


def _choose_goal(state: SpacecraftState, c: ChooseGoal, seat: int) -> list[EventBody]:
    events: list[EventBody] = [GoalChosen(seat=seat, goal=c.goal)]
    if all(g != NO_CARD for s, g in enumerate(state.goals) if s != seat):
        events.append(PlayStarted(first=0))
    return events


# ---------------------------------------------------------------------------- junkyard


def _need_action_step(state: SpacecraftState) -> None:
    if state.step != "action":
        raise Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase == "final":
        raise Rejected("final_leave_only", "only the final leave is left")


def _cell(state: SpacecraftState, x: int, y: int) -> int:
    if not (0 <= x < state.size and 0 <= y < state.size):
        raise Rejected("illegal_move", "that space is not on the junkyard")
    return y * state.size + x


def _taken(state: SpacecraftState, seat: int, cell: int) -> SpacecraftState:
    """A light copy of the state after ``seat`` took the top tile of ``cell``."""
    piles = list(state.piles)
    piles[cell] = piles[cell][:-1]
    pawns = list(state.pawns)
    pawns[seat] = cell
    return msgspec.structs.replace(state, piles=piles, pawns=pawns)


def _check_visit(state: SpacecraftState, c: Visit, seat: int) -> None:
    _need_action_step(state)
    if state.pawns[seat] >= 0:
        raise Rejected("in_junkyard", "your pawn is already in the junkyard: search or leave")
    if _cell(state, c.x, c.y) not in visit_targets(state):
        raise Rejected("illegal_move", "that pile cannot be reached from outside")


def _visit(state: SpacecraftState, c: Visit, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events: list[EventBody] = [Visited(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1])]
    return events + finish_turn(_taken(state, seat, cell), seat)


def _check_search(state: SpacecraftState, c: Search, seat: int) -> None:
    _need_action_step(state)
    if state.pawns[seat] < 0:
        raise Rejected("not_in_junkyard", "your pawn is outside: visit the junkyard")
    cell = _cell(state, c.x, c.y)
    if cell not in search_moves(state, seat):
        raise Rejected("illegal_move", "move straight to the adjacent or the farthest pile")
    board = state.boards[seat]
    if len(board) >= cat.BOARD_MAX_TILES:
        raise Rejected("board_full", "your board already holds 4 tiles: leave the junkyard")
    if board_weight(board) + cat.JUNK_WEIGHT[state.piles[cell][-1]] > cat.BOARD_MAX_WEIGHT:
        raise Rejected("too_heavy", "that tile would make your board heavier than 7")


def _search(state: SpacecraftState, c: Search, seat: int) -> list[EventBody]:
    cell = c.y * state.size + c.x
    events: list[EventBody] = [Searched(seat=seat, x=c.x, y=c.y, tile=state.piles[cell][-1])]
    return events + finish_turn(_taken(state, seat, cell), seat)


def _check_leave(state: SpacecraftState, c: Leave, seat: int) -> None:
    if state.step != "action":
        raise Rejected(WRONG_PHASE, "you already left the junkyard this turn")
    if state.phase != "final" and state.pawns[seat] < 0:
        raise Rejected("must_visit", "your pawn is outside: visit the junkyard")


def _leave(state: SpacecraftState, c: Leave, seat: int) -> list[EventBody]:
    return [Left(seat=seat, tiles=list(state.boards[seat]))]


# ---------------------------------------------------------------------------- build step


def _need_build_step(state: SpacecraftState) -> None:
    if state.step != "build":
        if state.step == "design":
            raise Rejected("build_step_over", "parts are built before design cards")
        raise Rejected(WRONG_PHASE, "leave the junkyard first")


def _check_layout(state: SpacecraftState, seat: int, layout: list[Placement], extra: str) -> None:
    kinds = [p.kind for p in state.rockets[seat]]
    if extra:
        kinds.append(extra)
    if sorted(kinds) != sorted(p.kind for p in layout):
        raise Rejected("layout_mismatch", "the layout must hold exactly your rocket's parts")
    reason = rocket.invalid_reason(layout)
    if reason is not None:
        raise Rejected("invalid_layout", reason)


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


def _paid(c: Build) -> list[int]:
    try:
        return [cat.JUNK_ID[name] for name in c.pay]
    except KeyError as error:
        raise Rejected("bad_payment", f"unknown junk {error.args[0]!r}") from None


def _check_build(state: SpacecraftState, c: Build, seat: int) -> None:
    _need_build_step(state)
    if state.builds >= 2:
        raise Rejected("build_limit", "at most 2 parts per turn")
    if not 0 <= c.slot < len(cat.SLOTS):
        raise Rejected("no_such_slot", "no such workshop compartment")
    slot = cat.SLOTS[c.slot]
    if state.supply[c.slot] <= 0:
        raise Rejected("sold_out", f"no {slot.kind} left in the workshop")
    token = state.tokens[slot.column]
    need = cat.PART_WEIGHT[rocket.shape(slot.kind)]
    problem = payment_problem(state.beside[seat], token, need, _paid(c))
    if problem == "cannot_afford":
        raise Rejected("cannot_afford", "you do not have that junk beside your board")
    if problem == "missing_required_junk":
        raise Rejected(problem, f"this column needs a {cat.JUNK_NAMES[token]}")
    if problem == "too_light":
        raise Rejected("cannot_afford", "the junk paid is too light for this part")
    if c.layout is not None:
        _check_layout(state, seat, list(c.layout), slot.kind)
    elif not rocket.feasible([*(p.kind for p in state.rockets[seat]), slot.kind]):
        raise Rejected("does_not_fit", "that part cannot fit your rocket")


def _build(state: SpacecraftState, c: Build, seat: int) -> list[EventBody]:
    kind = cat.SLOTS[c.slot].kind
    if c.layout is not None:
        layout = list(c.layout)
    else:
        placed = rocket.place_new(state.rockets[seat], kind)
        assert placed is not None, "a feasible part always finds a layout"
        layout = placed
    events: list[EventBody] = [
        PartBuilt(seat=seat, slot=c.slot, kind=kind, paid=sorted(_paid(c)), layout=layout)
    ]
    if (
        state.holder < 0
        and state.phase == "play"
        and rocket.meets_blueprint(layout, state.blueprint)
    ):
        events.append(CountdownTriggered(seat=seat))
    return events


def _check_arrange(state: SpacecraftState, c: Arrange, seat: int) -> None:
    _need_build_step(state)
    _check_layout(state, seat, list(c.layout), "")


def _arrange(state: SpacecraftState, c: Arrange, seat: int) -> list[EventBody]:
    return [Arranged(seat=seat, layout=list(c.layout))]


# ---------------------------------------------------------------------------- design step


def _need_design_step(state: SpacecraftState, variant: str) -> None:
    if state.step not in ("build", "design"):
        raise Rejected(WRONG_PHASE, "leave the junkyard first")
    if state.variant != variant:
        raise Rejected("wrong_variant", f"only in the {variant} variant")


def _check_fulfil(state: SpacecraftState, c: Fulfil, seat: int) -> None:
    _need_design_step(state, "basic")
    if state.reserved_now:
        raise Rejected("already_reserved", "you reserved a card instead of fulfilling")
    if state.designs >= 2:
        raise Rejected("design_limit", "at most 2 design cards per turn")
    if c.card == NO_CARD or (c.card not in state.lower and c.card != state.reserved[seat]):
        raise Rejected("card_not_available", "that card is not in the lower row nor reserved")
    if not rocket.meets_design(state.rockets[seat], cat.DESIGN_BY_ID[c.card]):
        raise Rejected("requirements_not_met", "your rocket does not meet that design")


def _fulfil(state: SpacecraftState, c: Fulfil, seat: int) -> list[EventBody]:
    slot = state.lower.index(c.card) if c.card in state.lower else -1
    return [DesignFulfilled(seat=seat, card=c.card, slot=slot)]


def _check_reserve(state: SpacecraftState, c: Reserve, seat: int) -> None:
    _need_design_step(state, "basic")
    if state.designs > 0:
        raise Rejected("already_fulfilled", "reserve only when you fulfilled no design")
    if state.reserved_now or state.reserved[seat] != NO_CARD:
        raise Rejected("reserve_full", "you may hold only one reserved card")
    if c.card == NO_CARD or c.card not in state.lower:
        raise Rejected("card_not_available", "that card is not in the lower row")


def _reserve(state: SpacecraftState, c: Reserve, seat: int) -> list[EventBody]:
    return [DesignReserved(seat=seat, card=c.card, slot=state.lower.index(c.card))]


def _check_mark(state: SpacecraftState, c: Mark, seat: int) -> None:
    _need_design_step(state, "advanced")
    if state.marked:
        raise Rejected("already_marked", "one marker per turn")
    if state.markers_left[seat] <= 0:
        raise Rejected("no_markers", "you have no markers left")
    if c.card not in state.adv_cards:
        raise Rejected("card_not_available", "that card is not on display")
    i = state.adv_cards.index(c.card)
    if len(state.adv_marks[i]) >= len(cat.advanced_track(c.card, state.adv_sides[i])):
        raise Rejected("card_full", "that card has no free space")


def _mark(state: SpacecraftState, c: Mark, seat: int) -> list[EventBody]:
    space = len(state.adv_marks[state.adv_cards.index(c.card)])
    return [MarkerPlaced(seat=seat, card=c.card, space=space)]


def _check_end_turn(state: SpacecraftState, c: EndTurn, seat: int) -> None:
    if state.step == "action":
        raise Rejected(WRONG_PHASE, "visit, search or leave first")


def _end_turn(state: SpacecraftState, c: EndTurn, seat: int) -> list[EventBody]:
    return finish_turn(state, seat)


_CHECKS: dict[type, Callable[[SpacecraftState, Any, int], None]] = {
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
