"""The Fractured Sky game (``games.protocol.Game``): what it is — name, seats, options
and wire types — and the module function for each part of the rules."""

from __future__ import annotations

from games.definition import GameDefinition
from games.fractured_sky import decide, determinize, evaluate, legal, scoring, setup, status, views
from games.fractured_sky.evolve import evolve
from games.fractured_sky.state import FracturedSkyState
from games.fractured_sky.undo import UNDO
from orrery_contracts.fractured_sky import COMMAND_TYPES, EVENT_TYPES, FracturedSkyOptions
from orrery_contracts.fractured_sky.views import FracturedSkyView

GAME: GameDefinition[FracturedSkyState, FracturedSkyView] = GameDefinition(
    name="fractured_sky",
    title="Fractured Sky",
    rules_version="2",
    min_seats=1,  # 1-2 players play against automated opponents
    max_seats=5,
    options_type=FracturedSkyOptions,
    state_type=FracturedSkyState,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=FracturedSkyView,
    initial_state=setup.initial_state,
    setup=setup.setup,
    decide=decide.decide,
    play=decide.play,
    evolve=evolve,
    view=views.view,
    views=views.views,
    legal_commands=legal.legal_commands,
    score=scoring.score,
    score_parts=scoring.score_parts,
    status=status.status,
    determinize=determinize.determinize,
    evaluate=evaluate.evaluate,
    undo=UNDO,  # which outcomes table.undo can take back (games/undo.py)
)
