"""The one form a game is defined in: a :class:`GameDefinition` naming its rule functions.

A game's ``game.py`` builds ``GAME = GameDefinition(...)`` from its modules' own
functions (``decide=decide.decide``, ``status=status.status``, …): there is no class per
game whose methods forward to the modules. The fields hold plain functions, so
``GAME.decide(state, command, seat, rng)`` calls the rule function itself (no bound
method, no extra call: ``decide`` and ``evolve`` run once per command and per event).
The definition satisfies :class:`games.protocol.Game`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Generic, TypeVar

import msgspec

from games.protocol import Standing, Status
from games.undo import UndoRules
from orrery_contracts.base import CommandBody, EventBody, ViewBody

S = TypeVar("S")
V = TypeVar("V", bound=ViewBody)


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
    # optional: every viewer's view at once (games.protocol), and what undo may take back
    views: Callable[[S, Sequence[int | None]], Sequence[V]] | None = None
    undo: UndoRules | None = None
    # optional, for the bots (bots/): a full state consistent with a seat's view (the
    # hidden parts drawn from what the seat has not seen; ``legal``: its legal commands),
    # and how good a position looks to a seat from its view
    determinize: Callable[[Any, int, Random, Sequence[CommandBody]], S] | None = None
    evaluate: Callable[[Any, int], float] | None = None
