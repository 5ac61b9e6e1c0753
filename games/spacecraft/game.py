"""The SPACEcraft game object (``games.protocol.Game``): its name, seats, options and
types, each method wired to the module that holds that part of the rules."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

import msgspec

from games.protocol import Standing, Status
from games.spacecraft import decide, evolve, legal, scoring, setup, views
from games.spacecraft.state import SpacecraftState
from games.spacecraft.undo import UNDO
from orrery_contracts.base import CommandBody, EventBody, ViewBody
from orrery_contracts.spacecraft import COMMAND_TYPES, EVENT_TYPES, SpacecraftOptions
from orrery_contracts.spacecraft.views import SpacecraftView


class SpacecraftGame:
    __slots__ = ()  # no instance dict: one lookup less for every ``GAME.decide``/``evolve``
    name: str = "spacecraft"
    title: str = "SPACEcraft"
    rules_version: str = "2"
    min_seats: int = 2
    max_seats: int = 4
    options_type: type[msgspec.Struct] = SpacecraftOptions
    state_type: type[SpacecraftState] = SpacecraftState
    command_types: tuple[type[CommandBody], ...] = COMMAND_TYPES
    event_types: tuple[type[EventBody], ...] = EVENT_TYPES
    view_type: type[ViewBody] = SpacecraftView
    undo = UNDO  # which outcomes table.undo can take back (games/undo.py)

    def initial_state(self, options: Any, seats: int) -> SpacecraftState:
        return setup.initial_state(options, seats)

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        return setup.setup(options, seats, rng)

    # ``decide`` and ``evolve`` are the rule modules' functions themselves, not methods
    # that call them: they run once per command and once per event (an extra Python
    # call each, a few % of ``orrery bench rules``).
    decide = staticmethod(decide.decide)
    evolve = staticmethod(evolve.evolve)

    def view(self, state: SpacecraftState, seat: int | None) -> SpacecraftView:
        return views.view(state, seat)

    def views(self, state: SpacecraftState, viewers: Sequence[int | None]) -> list[SpacecraftView]:
        return views.views(state, viewers)

    def legal_commands(self, state: SpacecraftState, seat: int) -> list[CommandBody]:
        return legal.legal_commands(state, seat)

    def score(self, state: SpacecraftState) -> Standing:
        return scoring.score(state)

    def status(self, state: SpacecraftState) -> Status:
        return views.status(state)


GAME = SpacecraftGame()
