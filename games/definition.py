"""The one form a game is defined in: a :class:`GameDefinition` naming its rule functions.

A game's ``game.py`` builds ``GAME = GameDefinition(...)`` from its modules' own
functions (``decide=decide.decide``, ``status=status.status``, …): there is no class per
game whose methods forward to the modules. The fields hold plain functions, so
``GAME.decide(state, command, seat, rng)`` calls the rule function itself (no bound
method, no extra call: ``decide`` and ``evolve`` run once per command and per event).
The definition satisfies :class:`games.protocol.Game`.

Two more functions serve a search (a bot simulating thousands of moves), not the
platform: ``clone`` (the copy a simulation starts from, :func:`games.clone.clone`) and
``play`` (``decide`` and the fold of its events in one, into a state the caller owns: a
``decide`` that works on a private copy of the state works on that state itself, and
no event is folded twice). Both give exactly what the platform's path gives: ``play``
returns ``decide``'s events and leaves the state ``evolve`` would make; a rejected
command raises before anything changes. A game whose ``decide`` copies nothing plays
with :func:`decide_then_fold`. Owning the state means that only ``play`` and ``evolve``
change it: a game's ``play`` may remember what it has already looked at in the state it
last left (Federation's "at once" checks), so a state changed by hand is changed in a
copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Generic, TypeVar

import msgspec

from games.clone import clone as clone_state
from games.protocol import Standing, Status
from games.undo import UndoRules
from orrery_contracts.base import CommandBody, EventBody, ViewBody
from orrery_contracts.views import ScorePart

S = TypeVar("S")
V = TypeVar("V", bound=ViewBody)


_CLONE: Callable[[Any], Any] = clone_state  # for any state type (a Struct)


# Not frozen: ``games.protocol.Game`` declares plain (settable) attributes.
@dataclass(slots=True, kw_only=True)
class GameDefinition(Generic[S, V]):
    """A game: what it is (name, seats, wire types) and the functions of its rules;
    ``S`` its state type, ``V`` its view type."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    options_type: type[msgspec.Struct]
    state_type: type[S]
    command_types: tuple[type[CommandBody], ...]
    event_types: tuple[type[EventBody], ...]
    view_type: type[ViewBody]
    initial_state: Callable[[Any, int], S]
    setup: Callable[[Any, int, Random], list[EventBody]]
    decide: Callable[[S, CommandBody, int, Random], list[EventBody]]
    evolve: Callable[[S, EventBody], S]
    view: Callable[[S, int | None], V]
    legal_commands: Callable[[S, int], list[CommandBody]]
    score: Callable[[S], Standing]
    status: Callable[[S], Status]
    play: Callable[[S, CommandBody, int, Random], list[EventBody]]
    # optional: every viewer's view at once (games.protocol), and what undo may take back
    views: Callable[[S, Sequence[int | None]], Sequence[V]] | None = None
    undo: UndoRules | None = None
    # optional, for the bots (bots/): a full state consistent with a seat's view (the
    # hidden parts drawn from what the seat has not seen; ``legal``: its legal commands),
    # and how good a position looks to a seat from its view
    determinize: Callable[[Any, int, Random, Sequence[CommandBody]], S] | None = None
    evaluate: Callable[[Any, int], float] | None = None
    # optional: a finished game's score in parts, per participant (the seats, then the
    # standing's others), each participant's parts summing to its points
    score_parts: Callable[[S], Sequence[Sequence[ScorePart]]] | None = None
    # for a search (see the module docstring): the copy a simulation starts from
    clone: Callable[[S], S] = _CLONE


def decide_then_fold(
    decide: Callable[[S, CommandBody, int, Random], list[EventBody]],
    evolve: Callable[[S, EventBody], S],
) -> Callable[[S, CommandBody, int, Random], list[EventBody]]:
    """``play`` for a game whose ``decide`` copies nothing: decide, then fold the events
    into the state (every game's ``evolve`` updates a state in place)."""

    def play(state: S, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
        events = decide(state, command, seat, rng)
        for event in events:
            evolve(state, event)
        return events

    return play
