"""decide: validate one command against the state and return the events it causes.

Validation is ``legal.problem`` alone (``decide`` raises what it finds), the one check
``legal_commands`` asks as well. Then one ``match`` on the command type, one case per
command; the rules live in the turn's modules: ``goals.py`` (the goal choice),
``action_step.py`` (visit, search, leave), ``build_step.py`` (build, arrange),
``design_step.py`` (fulfil, reserve, mark), ``turn_end.py`` (end turn).
"""

from __future__ import annotations

from random import Random
from typing import Any

from games.spacecraft import action_step, build_step, design_step, goals, turn_end
from games.spacecraft.legal import not_spacecraft, problem
from games.spacecraft.state import SpacecraftState
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.spacecraft import commands as cmd


def decide(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    found = problem(state, seat, command)
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
            raise not_spacecraft()
