"""The game object: the decider surface of games.protocol.Game for Fractured Sky.

Only the definition (name, seats, types) and the wiring to the modules that hold the
rules: ``setup``, ``decide``, ``evolve``, ``views``, ``legal``, ``scoring`` and ``turns``.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

import msgspec

from games.fractured_sky import decide, legal, scoring, setup, turns, views
from games.fractured_sky.evolve import evolve
from games.fractured_sky.state import FracturedSkyState
from games.fractured_sky.undo import UNDO
from games.protocol import Standing, Status
from orrery_contracts.base import CommandBody, EventBody, ViewBody
from orrery_contracts.fractured_sky import COMMAND_TYPES, EVENT_TYPES, FracturedSkyOptions
from orrery_contracts.fractured_sky.views import FracturedSkyView


class FracturedSky:
    __slots__ = ()  # no instance dict: one lookup less for every ``GAME.decide``/``evolve``
    name: str = "fractured_sky"
    title: str = "Fractured Sky"
    rules_version: str = "2"
    min_seats: int = 1  # 1-2 players play against automated opponents
    max_seats: int = 5
    options_type: type[msgspec.Struct] = FracturedSkyOptions
    state_type: type[FracturedSkyState] = FracturedSkyState
    command_types: tuple[type[CommandBody], ...] = COMMAND_TYPES
    event_types: tuple[type[EventBody], ...] = EVENT_TYPES
    view_type: type[ViewBody] = FracturedSkyView
    undo = UNDO  # which outcomes table.undo can take back (games/undo.py)

    def initial_state(self, options: Any, seats: int) -> FracturedSkyState:
        return setup.initial_state(options, seats)

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        return setup.setup(options, seats, rng)

    # ``decide`` and ``evolve`` are the rule modules' functions themselves, not methods
    # that call them: they run once per command and once per event (an extra Python
    # call each, a few % of ``orrery bench rules``).
    decide = staticmethod(decide.decide)
    evolve = staticmethod(evolve)

    def view(self, state: FracturedSkyState, seat: int | None) -> FracturedSkyView:
        return views.view(state, seat)

    def views(
        self, state: FracturedSkyState, viewers: Sequence[int | None]
    ) -> list[FracturedSkyView]:
        return views.views(state, viewers)

    def legal_commands(self, state: FracturedSkyState, seat: int) -> list[CommandBody]:
        return legal.legal_commands(state, seat)

    def score(self, state: FracturedSkyState) -> Standing:
        return scoring.score(state)

    def status(self, state: FracturedSkyState) -> Status:
        return turns.status(state)


GAME = FracturedSky()
