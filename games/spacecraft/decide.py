"""decide: validate one command against the state and return the events it causes.

Validation is ``legal.problem`` alone (``decide`` raises what it finds), the one check
``legal_commands`` asks as well. Then the command type's function, found in a dict; the
rules live in the turn's modules: ``goals.py`` (the goal choice), ``action_step.py``
(visit, search, leave), ``build_step.py`` (build, arrange), ``design_step.py`` (fulfil,
reserve, mark), ``turn_end.py`` (end turn). ``play`` (a search's decide + evolve) folds
the events into the state it is given.

``play`` makes the usual commands (a visit, a search, a build without a layout, a
fulfil of the lower row, a rearrangement, a leave, an end of turn) with their checks at
once: each ``*_at_once`` function returns the maker's events only where every test of
the command's predicate surely passes, and None in any other case, which the predicate
then decides. So every rejection still comes from ``legal.problem``'s predicates alone
(``tests/spacecraft/test_play.py`` compares ``play`` and ``decide`` on commands of
every kind, accepted and refused).
"""

from __future__ import annotations

from random import Random
from typing import Any

from games.spacecraft import action_step, build_step, design_step, goals, turn_end
from games.spacecraft.evolve import FOLDS
from games.spacecraft.legal import CHECKS, problem
from games.spacecraft.state import SpacecraftState
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.spacecraft import commands as cmd


def decide(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    found = problem(state, seat, command)
    if found is not None:
        raise found
    # ``problem`` refuses a command of another game first, so the lookup finds it
    made: Any = _MAKERS[type(command)]
    events: list[EventBody] = made(state, command, seat)
    return events


def play(state: SpacecraftState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    """``decide``, its events folded into ``state`` (the caller owns ``state``; a
    rejection raises before it changes): decide copies nothing, so this is decide then
    the fold. A search plays many commands, so the usual case is written out: the seat
    to move's command while the game runs (``gate``'s own first test), made at once
    when its kind has an ``*_at_once`` function that accepts it, else its check and its
    maker found by type; each event's fold found by type."""
    kind = type(command)
    phase = state.phase
    if (
        seat == state.current
        and (phase == "play" or phase == "final")
        and 0 <= seat < state.players
        and kind in _MAKERS
    ):
        at_once = _AT_ONCE.get(kind)
        made = None if at_once is None else at_once(state, command, seat)
        if made is None:
            found = CHECKS[kind](state, command, seat)
            if found is not None:
                raise found
            made = _MAKERS[kind](state, command, seat)
        events: list[EventBody] = made
    else:
        events = decide(state, command, seat, rng)
    folds = FOLDS
    for event in events:
        folds[type(event)](state, event)  # the events just made: each has its fold
    return events


# Command type → the function making its events (each typed for its command).
_MAKERS: dict[type[CommandBody], Any] = {
    cmd.Search: action_step.search,
    cmd.Build: build_step.build,
    cmd.Leave: action_step.leave,
    cmd.EndTurn: turn_end.end_turn,
    cmd.Visit: action_step.visit,
    cmd.Fulfil: design_step.fulfil,
    cmd.Reserve: design_step.reserve,
    cmd.Arrange: build_step.arrange,
    cmd.Mark: design_step.mark,
    cmd.ChooseGoal: goals.choose_goal,
}


# Command type → the function making its events at once when its check surely accepts
# the command (the usual command, its check worked out with its events), else None.
_AT_ONCE: dict[type[CommandBody], Any] = {
    cmd.Search: action_step.search_at_once,
    cmd.Build: build_step.build_at_once,
    cmd.Visit: action_step.visit_at_once,
    cmd.EndTurn: turn_end.end_turn_at_once,
    cmd.Leave: action_step.leave_at_once,
    cmd.Fulfil: design_step.fulfil_at_once,
    cmd.Arrange: build_step.arrange_at_once,
}
