"""The Federation game object (games.protocol.Game): its name, seats, options and wire
types, and the rules wired from the skeleton's modules."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any

import msgspec

from games.federation import decide, legal, scoring, setup, views
from games.federation.evolve import evolve
from games.federation.state import FederationState
from games.federation.undo import UNDO
from games.protocol import Standing, Status
from orrery_contracts.base import CommandBody, EventBody, ViewBody
from orrery_contracts.federation import COMMAND_TYPES, EVENT_TYPES, FederationOptions
from orrery_contracts.federation.views import FederationView


class FederationGame:
    __slots__ = ()  # no instance dict: one lookup less for every ``GAME.decide``/``evolve``
    name: str = "federation"
    title: str = "Federation"
    rules_version: str = "3"  # 3: typed queue steps (fed.queued); 1 and 2 upcast on read
    min_seats: int = 2
    max_seats: int = 4
    options_type: type[msgspec.Struct] = FederationOptions
    state_type: type[FederationState] = FederationState
    command_types: tuple[type[CommandBody], ...] = COMMAND_TYPES
    event_types: tuple[type[EventBody], ...] = EVENT_TYPES
    view_type: type[ViewBody] = FederationView
    undo = UNDO  # which outcomes table.undo can take back (games/undo.py)

    def initial_state(self, options: Any, seats: int) -> FederationState:
        return setup.empty_state(options, seats)

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        return setup.setup(options, seats, rng)

    # ``decide`` and ``evolve`` are the rule modules' functions themselves, not methods
    # that call them: they run once per command and once per event (an extra Python
    # call each, a few % of ``orrery bench rules``).
    decide = staticmethod(decide.decide)
    evolve = staticmethod(evolve)

    def view(self, state: FederationState, seat: int | None) -> FederationView:
        return views.view(state, seat)

    def views(self, state: FederationState, viewers: Sequence[int | None]) -> list[FederationView]:
        return views.views(state, viewers)

    def legal_commands(self, state: FederationState, seat: int) -> list[CommandBody]:
        return legal.legal_commands(state, seat)

    def score(self, state: FederationState) -> Standing:
        return scoring.score(state)

    def status(self, state: FederationState) -> Status:
        if state.finished:
            return Status(phase="finished", finished=True, round=state.round)
        step = state.queue[0] if state.queue else None
        if step is None:
            return Status(phase="setup", round=state.round)
        return Status(phase=step.kind, to_move=(step.seat,), round=state.round)


GAME = FederationGame()
