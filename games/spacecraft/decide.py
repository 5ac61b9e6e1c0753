"""decide: validate one command against the state and return the events it causes.

Validation is ``problem`` alone (``decide`` raises what it finds): ``gate`` (phase, turn),
then the command's predicate. ``legal_commands`` asks the same predicates (``gate`` once,
then each parameter: ``visit_cell_problem``, ``slot_problem``, ``pay_problem``,
``fit_problem``, …, or ``accepts`` for a whole command), so the two cannot drift apart.

Both ``problem`` and ``decide`` ``match`` on the command type, one case per command; the
rules live in the turn's modules: ``goals.py`` (the goal choice), ``action_step.py``
(visit, search, leave), ``build_step.py`` (build, arrange), ``design_step.py`` (fulfil,
reserve, mark), ``turn_end.py`` (end turn).
"""

from __future__ import annotations

from random import Random
from typing import Any

from games.rejection import GAME_OVER, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from games.spacecraft import action_step, build_step, design_step, goals, turn_end
from games.spacecraft.state import SpacecraftState
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.spacecraft import COMMAND_TYPES
from orrery_contracts.spacecraft import commands as cmd


def gate(state: SpacecraftState, seat: int, kind: type[CommandBody]) -> Rejected | None:
    """Whether ``seat`` may send a command of this kind now at all (phase and turn)."""
    if state.phase == "over":
        return Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        return Rejected(NOT_YOUR_TURN, "no such seat")
    if kind is cmd.ChooseGoal:
        return None
    if state.phase not in ("play", "final"):
        return Rejected(WRONG_PHASE, "every player must choose a personal goal first")
    if seat != state.current:
        return Rejected(NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    if kind not in COMMAND_TYPES:
        return _not_spacecraft()
    return None


def _not_spacecraft() -> Rejected:
    return Rejected("illegal_command", "not a SPACEcraft command")


def problem(state: SpacecraftState, command: CommandBody, seat: int) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted: the
    one validation (``gate``, then the command's predicate) that ``decide`` and
    ``legal_commands`` share."""
    found = gate(state, seat, type(command))
    if found is not None:
        return found
    # The listing asks most about the design cards, decide about the turn's steps (see
    # ``decide``). ``c`` is ``Any``: mypy does not narrow ``command`` from ``type(command)``.
    c: Any = command
    match type(command):
        case cmd.Fulfil:
            return design_step.fulfil_problem(state, c, seat)
        case cmd.Reserve:
            return design_step.reserve_problem(state, c, seat)
        case cmd.Leave:
            return action_step.leave_problem(state, c, seat)
        case cmd.EndTurn:
            return turn_end.end_turn_problem(state, c, seat)
        case cmd.Mark:
            return design_step.mark_problem(state, c, seat)
        case cmd.Search:
            return action_step.search_problem(state, c, seat)
        case cmd.Build:
            return build_step.build_problem(state, c, seat)
        case cmd.Visit:
            return action_step.visit_problem(state, c, seat)
        case cmd.Arrange:
            return build_step.arrange_problem(state, c, seat)
        case cmd.ChooseGoal:
            return goals.choose_goal_problem(state, c, seat)
        case _:
            return _not_spacecraft()


def accepts(state: SpacecraftState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command."""
    return problem(state, command, seat) is None


def decide(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    found = problem(state, command, seat)
    if found is not None:
        raise found
    # Dotted value patterns on ``type(command)``: a case that misses is one compare of
    # classes (a class pattern is an ``isinstance`` through msgspec's metaclass, several
    # times dearer); the most frequent commands first. ``c`` is ``Any`` (mypy does not
    # narrow ``command`` from ``type(command)``).
    c: Any = command
    match type(command):
        case cmd.Search:
            return action_step.search(state, c, seat)
        case cmd.Build:
            return build_step.build(state, c, seat)
        case cmd.Leave:
            return action_step.leave(state, c, seat)
        case cmd.EndTurn:
            return turn_end.end_turn(state, c, seat)
        case cmd.Visit:
            return action_step.visit(state, c, seat)
        case cmd.Fulfil:
            return design_step.fulfil(state, c, seat)
        case cmd.Reserve:
            return design_step.reserve(state, c, seat)
        case cmd.Arrange:
            return build_step.arrange(state, c, seat)
        case cmd.Mark:
            return design_step.mark(state, c, seat)
        case cmd.ChooseGoal:
            return goals.choose_goal(state, c, seat)
        case _:
            raise _not_spacecraft()
