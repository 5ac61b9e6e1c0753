"""Legality: whether a command is accepted and why not (``problem``), and the commands
that are (``legal_commands``).

``problem(state, seat, command)`` is the one check: ``gate`` (phase and turn), then the
command's predicate from the turn's modules (``goals.py``, ``action_step.py``,
``build_step.py``, ``design_step.py``, ``turn_end.py``). ``decide`` raises what it finds;
``legal_commands`` keeps a candidate only when the same predicates accept it (``gate``
once, then each parameter's ``*_problem``: ``slot_problem``, ``pay_problem``,
``fit_problem``, …, or ``accepts`` for a whole command; where every candidate passes
part of a predicate by construction, the part that can refuse it: ``board_room`` of a
search, ``designs_met`` of the fulfils), so no rule is written twice and the two cannot
drift apart.

Exact for every command with a small parameter space: goals, visits, searches, leave, the
design cards (fulfil / reserve / mark) and end turn. Two commands take free-form
parameters and are listed by one representative each:

* ``sc.build``: one build per workshop compartment that some payment can pay for, with
  the cheapest such payment (``workshop.cheapest_payment``: least weight, then fewest
  tiles) and automatic placement; any other valid payment or layout is accepted too. A
  compartment is listed exactly when paying every junk tile beside the board would be
  accepted.
* ``sc.arrange``: the automatic layout, once per build step and only when it differs
  from the rocket (``decide`` accepts any number of rearrangements; listing one keeps
  random play from rearranging forever).
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Any

from games.rejection import GAME_OVER, ILLEGAL_COMMAND, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from games.spacecraft import action_step, build_step, design_step, goals, rocket, turn_end
from games.spacecraft.action_step import (
    searching_problem,
    visiting_problem,
)
from games.spacecraft.build_step import building_problem
from games.spacecraft.junkyard import search_moves, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState
from games.spacecraft.workshop import cheapest_payment
from orrery_contracts.base import CommandBody
from orrery_contracts.spacecraft import COMMAND_TYPES
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft import commands as cmd
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

_COMMAND_TYPES = frozenset(COMMAND_TYPES)

# ---------------------------------------------------------------- the check


def gate(state: SpacecraftState, seat: int, kind: type[CommandBody]) -> Rejected | None:
    """Whether ``seat`` may send a command of this kind now at all. In every game the
    same order: the game is over, the seat has no player, not this game's command, then
    the phase and the turn."""
    phase = state.phase
    if (
        seat == state.current
        and (phase == "play" or phase == "final")
        and 0 <= seat < state.players
        and kind in _COMMAND_TYPES
    ):
        # the usual case, this game's command from the seat to move while the game runs,
        # accepted at once (the checks below find nothing to refuse in it)
        return None
    if phase == "over":
        return Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        return Rejected(NOT_YOUR_TURN, "no such seat")
    if kind not in _COMMAND_TYPES:
        return not_spacecraft()
    if kind is ChooseGoal:
        return None
    if phase not in ("play", "final"):
        return Rejected(WRONG_PHASE, "every player must choose a personal goal first")
    if seat != state.current:
        return Rejected(NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    return None


def not_spacecraft() -> Rejected:
    return Rejected(ILLEGAL_COMMAND, "not a SPACEcraft command")


def problem(state: SpacecraftState, seat: int, command: CommandBody) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted:
    ``gate``, then the command's predicate."""
    found = gate(state, seat, type(command))
    if found is not None:
        return found
    # ``gate`` refused a command of another game, so the lookup finds it
    check: Any = CHECKS[type(command)]
    found = check(state, command, seat)
    return found


# Command type → its predicate (each typed for its command).
CHECKS: dict[type[CommandBody], Any] = {
    cmd.Fulfil: design_step.fulfil_problem,
    cmd.Reserve: design_step.reserve_problem,
    cmd.Leave: action_step.leave_problem,
    cmd.EndTurn: turn_end.end_turn_problem,
    cmd.Mark: design_step.mark_problem,
    cmd.Search: action_step.search_problem,
    cmd.Build: build_step.build_problem,
    cmd.Visit: action_step.visit_problem,
    cmd.Arrange: build_step.arrange_problem,
    cmd.ChooseGoal: goals.choose_goal_problem,
}


def accepts(state: SpacecraftState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command."""
    return problem(state, seat, command) is None


# ---------------------------------------------------------------- the listing


def _open(state: SpacecraftState, seat: int, kind: type[CommandBody]) -> bool:
    return gate(state, seat, kind) is None


# Each compartment's index, part shape, column and part weight, looked up once.
_SLOT_FACTS = tuple(
    (i, rocket.shape(slot.kind), slot.column, cat.PART_WEIGHT[rocket.shape(slot.kind)])
    for i, slot in enumerate(cat.SLOTS)
)


def _builds(state: SpacecraftState, seat: int) -> list[CommandBody]:
    """One build per compartment, paid the cheapest way: listed exactly when paying every
    junk tile would be accepted (both payments are valid or neither is, the rest of the
    check is the same). What a compartment's check needs beyond its supply depends on
    its part's shape (the fit: the shapes that fit are looked up per rocket) and on its
    column's token and the part's weight (the payment: the cheapest payment of a token
    and weight is looked up per junk beside the board)."""
    out: list[CommandBody] = []
    beside = state.beside[seat]
    if not any(beside) or building_problem(state, seat) is not None:
        return out
    fitting = rocket.fitting_shapes(tuple(map(_KIND_OF, state.rockets[seat])))
    supply = state.supply
    paid = _paid(tuple(beside))
    for i, key in _fitting_slots(tuple(state.tokens), fitting):  # fit_problem passed
        if supply[i] <= 0:  # slot_problem: sold out
            continue
        names = paid.get(key, False)
        if names is False:
            # pay_problem of the compartment's column token and part weight is
            # payment_problem of the ids (these names are junk), which the cheapest
            # payment has passed: it is not asked again
            pay = cheapest_payment(beside, key >> 3, key & 7)
            names = paid[key] = None if pay is None else tuple([cat.JUNK_NAMES[t] for t in pay])
        if names is not None:
            out.append(_build(i, names))
    return out


@lru_cache(maxsize=1024)
def _fitting_slots(tokens: tuple[int, ...], fitting: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The compartments whose part has a shape of ``fitting``, each as its index and the
    key of its payment in ``_paid``: its column token and part weight, ``token * 8 +
    weight`` (made once per workshop's tokens and shapes that fit)."""
    return tuple(
        (i, tokens[column] * 8 + weight)
        for i, shape, column, weight in _SLOT_FACTS
        if shape in fitting
    )


@lru_cache(maxsize=4096)
def _paid(held: tuple[int, ...]) -> dict[int, tuple[str, ...] | None]:
    """The cheapest payment's junk names of a column token and part weight (``token * 8 +
    weight``) for a seat holding ``held`` beside its board, None when nothing pays; filled
    as the listings ask (every game sees a few hundred holdings, asked again and again)."""
    return {}


@lru_cache(maxsize=8192)
def _build(slot: int, pay: tuple[str, ...]) -> Build:
    """A listed build, made once (frozen, so shared; at most a payment of up to four
    tiles per compartment)."""
    return Build(slot=slot, pay=list(pay))


_KIND_OF = attrgetter("kind")


@lru_cache(maxsize=1024)
def _arrangement(current: tuple[Placement, ...]) -> Arrange | None:
    """The listed rearrangement of a rocket: its automatic layout when it differs and
    ``arrange_problem`` accepts it (in the build step, where the caller lists it, only
    ``layout_check`` can refuse it); made once per rocket (frozen, so shared)."""
    now = list(current)
    auto = rocket.auto_layout([p.kind for p in now])
    if auto is None or auto == now or build_step.layout_check(now, auto, "") is not None:
        return None
    return Arrange(layout=auto)


# The design commands are few values, frozen: each is made once and handed out again.
_FULFIL: dict[int, Fulfil] = {}
_RESERVE: dict[int, Reserve] = {}
_MARK: dict[int, Mark] = {}
_END_TURN = EndTurn()
_LEAVE = Leave()


def _made(made: dict[int, Any], kind: Any, card: int) -> Any:
    found = made.get(card)
    if found is None:
        found = made[card] = kind(card=card)
    return found


def _design(state: SpacecraftState, seat: int) -> list[CommandBody]:
    """The design step's commands the predicates accept. The caller's ``gate`` holds for
    every command of the seat to move but the goal's, so each candidate is asked its own
    predicate, not ``problem`` again."""
    out: list[CommandBody] = []
    if state.variant == "advanced":
        for card in state.adv_cards:
            mark = _made(_MARK, Mark, card)
            if design_step.mark_problem(state, mark, seat) is None:
                out.append(mark)
        return out
    # each command's predicate in its two parts: whether the step allows the command at
    # all (asked once), then each card's
    lower = [c for c in state.lower if c != NO_CARD]
    if design_step.fulfilling_problem(state) is None:
        mine = [state.reserved[seat]] if state.reserved[seat] != NO_CARD else []
        # fulfil_card_problem of a card of the lower row or the seat's reserved one: only
        # whether the rocket meets it can refuse
        for card in rocket.designs_met(state.rockets[seat], lower + mine):
            out.append(_made(_FULFIL, Fulfil, card))
    if design_step.reserving_problem(state, seat) is None:
        # reserve_card_problem accepts every card of the lower row
        for card in lower:
            out.append(_made(_RESERVE, Reserve, card))
    return out


@lru_cache(maxsize=16)
def _visits(size: int) -> tuple[Visit, ...]:
    """A visit of each cell of a ``size`` × ``size`` junkyard, made once per size."""
    return tuple(Visit(x=c % size, y=c // size) for c in range(size * size))


@lru_cache(maxsize=16)
def _searches(size: int) -> tuple[Search, ...]:
    """A search of each cell of a ``size`` × ``size`` junkyard, made once per size."""
    return tuple(Search(x=c % size, y=c // size) for c in range(size * size))


def _action(state: SpacecraftState, seat: int) -> list[CommandBody]:
    size = state.size
    out: list[CommandBody] = []
    if visiting_problem(state, seat) is None:
        # visit_cell_problem accepts every target (on the grid, in the targets)
        visits = _visits(size)
        out = [visits[c] for c in visit_targets(state)]
    elif searching_problem(state, seat) is None:
        # search_cell_problem of a move (on the grid, a pile, in the moves): whether the
        # board takes the pile's top tile
        room = action_step.board_room(state.boards[seat])
        if room >= 0:
            piles = state.piles
            weight = cat.JUNK_WEIGHT
            searches = _searches(size)
            out = [searches[c] for c in search_moves(state, seat) if weight[piles[c][-1]] <= room]
    if action_step.leave_problem(state, _LEAVE, seat) is None:  # the caller's gate holds
        out.append(_LEAVE)
    return out


def legal_commands(state: SpacecraftState, seat: int) -> list[CommandBody]:
    if state.phase == "goals":
        if not _open(state, seat, ChooseGoal):
            return []
        goals = [ChooseGoal(goal=g) for g in state.goal_options[seat]]
        return [c for c in goals if accepts(state, c, seat)]
    if seat != state.current or not _open(state, seat, Leave):
        return []  # not this seat's turn (gate's answer, without making it), or game over
    if state.step == "action":
        return _action(state, seat)
    out: list[CommandBody] = _builds(state, seat)
    if state.step == "build" and not state.arranged:
        arrange = _arrangement(tuple(state.rockets[seat]))
        if arrange is not None:
            out.append(arrange)
    out += _design(state, seat)
    if turn_end.end_turn_problem(state, _END_TURN, seat) is None:  # gate holds (above)
        out.append(_END_TURN)
    return out
