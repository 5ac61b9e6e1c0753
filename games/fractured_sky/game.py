"""The game object: the decider surface of games.protocol.Game for Fractured Sky."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec

from games.fractured_sky import actions, legal, setup, views
from games.fractured_sky.evolve import evolve
from games.fractured_sky.round_end import standings
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_REWARDS,
    PHASE_START,
    FracturedSkyState,
)
from games.fractured_sky.undo import UNDO
from games.fractured_sky.views import ai_title
from games.protocol import OtherStanding, Standing, Status
from orrery_contracts.base import CommandBody, EventBody, ViewBody
from orrery_contracts.fractured_sky import COMMAND_TYPES, EVENT_TYPES
from orrery_contracts.fractured_sky.views import FracturedSkyView


class FracturedSky:
    name: str = "fractured_sky"
    title: str = "Fractured Sky"
    rules_version: str = "2"
    min_seats: int = setup.MIN_SEATS
    max_seats: int = setup.MAX_SEATS
    options_type: type[msgspec.Struct] = setup.FracturedSkyOptions
    state_type: type[FracturedSkyState] = FracturedSkyState
    command_types: tuple[type[CommandBody], ...] = COMMAND_TYPES
    event_types: tuple[type[EventBody], ...] = EVENT_TYPES
    view_type: type[ViewBody] = FracturedSkyView
    undo = UNDO  # which outcomes table.undo can take back (games/undo.py)

    def validate_options(self, options: Any, seats: int) -> None:
        setup.validate_options(options, seats)

    def initial_state(self, options: Any, seats: int) -> FracturedSkyState:
        return setup.initial_state(options, seats)

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        return setup.setup(options, seats, rng)

    def decide(
        self, state: FracturedSkyState, command: CommandBody, seat: int, rng: Random
    ) -> list[EventBody]:
        return actions.decide(state, command, seat, rng)

    def evolve(self, state: FracturedSkyState, event: EventBody) -> FracturedSkyState:
        return evolve(state, event)

    def view(self, state: FracturedSkyState, seat: int | None) -> FracturedSkyView:
        return views.view(state, seat)

    def legal_commands(self, state: FracturedSkyState, seat: int) -> list[CommandBody]:
        return legal.legal_commands(state, seat)

    def score(self, state: FracturedSkyState) -> Standing:
        points = tuple(state.stardust[: state.seats])
        ranks = standings(list(state.stardust), state.order)
        others = tuple(
            OtherStanding(
                participant=p, name=ai_title(index), points=state.stardust[p], rank=ranks[p]
            )
            for index, p in enumerate(range(state.seats, state.participants))
        )
        return Standing(points=points, ranks=tuple(ranks[: state.seats]), others=others)

    def status(self, state: FracturedSkyState) -> Status:
        phase = state.phase
        if phase == PHASE_FINISHED:
            return Status(phase=phase, finished=True, round=state.round)
        if phase == PHASE_START:
            waiting = tuple(s for s in range(state.seats) if not state.started[s])
        elif phase == PHASE_REWARDS:
            waiting = tuple(sorted({p.seat for p in state.pending if p.seat < state.seats}))
        else:
            waiting = (state.turn,) if 0 <= state.turn < state.seats else ()
        return Status(phase=phase, to_move=waiting, round=state.round)


GAME = FracturedSky()
