"""The Federation game (``games.protocol.Game``): what it is — name, seats, options and
wire types — and the module function for each part of the rules."""

from __future__ import annotations

from games.definition import GameDefinition
from games.federation import decide, determinize, evaluate, legal, scoring, setup, status, views
from games.federation.evolve import evolve
from games.federation.state import FederationState
from games.federation.undo import UNDO
from orrery_contracts.federation import COMMAND_TYPES, EVENT_TYPES, FederationOptions
from orrery_contracts.federation.views import FederationView

GAME: GameDefinition[FederationState, FederationView] = GameDefinition(
    name="federation",
    title="Federation",
    rules_version="3",  # 3: typed queue steps (fed.queued); 1 and 2 upcast on read
    min_seats=2,
    max_seats=4,
    options_type=FederationOptions,
    state_type=FederationState,
    command_types=COMMAND_TYPES,
    event_types=EVENT_TYPES,
    view_type=FederationView,
    initial_state=setup.empty_state,
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
