"""The SPACEcraft game (``games.protocol.Game``): what it is — name, seats, options and
wire types — and the module function for each part of the rules."""

from __future__ import annotations

from games.definition import GameDefinition
from games.spacecraft import (
    decide,
    determinize,
    evaluate,
    evolve,
    legal,
    scoring,
    setup,
    status,
    views,
)
from games.spacecraft.state import SpacecraftState
from games.spacecraft.undo import UNDO
from orrery_contracts.spacecraft import COMMAND_TYPES, EVENT_TYPES, SpacecraftOptions
from orrery_contracts.spacecraft.views import SpacecraftView

GAME: GameDefinition[SpacecraftState, SpacecraftView] = GameDefinition(
    name="spacecraft",
    title="SPACEcraft",
    rules_version="2",
    min_seats=2,
    max_seats=4,
    options_type=SpacecraftOptions,
    state_type=SpacecraftState,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=SpacecraftView,
    initial_state=setup.initial_state,
    setup=setup.setup,
    decide=decide.decide,
    evolve=evolve.evolve,
    play=decide.play,  # decide copies nothing: decide, then the fold
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
