"""Wire contract of Federation: commands, events, queue steps, options, views and the static
catalogue."""

from orrery_contracts.federation.commands import (
    Build,
    Check,
    Crystal,
    DeadAsteroid,
    DeepSpace,
    Discard,
    EndTurn,
    Erudite,
    Fork,
    Income,
    Influence,
    LawChoice,
    Medal,
    Mission,
    Pay,
    Place,
    Project,
    Retrigger,
    Spy,
    Stall,
    StartTile,
    TakeToken,
    Upkeep,
    UseTile,
)
from orrery_contracts.federation.events import (
    AuthoritySet,
    BlueMoved,
    Built,
    Checked,
    DeadTaken,
    DeepSpaceTaken,
    DieSet,
    EruditeTaken,
    Finished,
    Gained,
    InfluenceAdded,
    LawPassed,
    MedalTaken,
    MissionDone,
    OrangeMoved,
    Placed,
    Popped,
    PresidentTaken,
    ProjectAdvanced,
    Pushed,
    Queued,
    Revealed,
    RoundEnded,
    RoundStarted,
    SetUp,
    StallTaken,
    StartTileTaken,
    TileUsed,
    TokenTaken,
)
from orrery_contracts.federation.options import FederationOptions
from orrery_contracts.federation.views import FederationView, PlayerView, SpaceView

FederationCommand = (
    Place
    | Fork
    | TakeToken
    | DeadAsteroid
    | Stall
    | Erudite
    | Build
    | Project
    | Check
    | Spy
    | Pay
    | Discard
    | Crystal
    | StartTile
    | DeepSpace
    | Influence
    | Medal
    | Retrigger
    | Income
    | Upkeep
    | LawChoice
    | Mission
    | UseTile
    | EndTurn
)
FederationEvent = (
    SetUp
    | Queued
    | Pushed
    | Popped
    | Gained
    | AuthoritySet
    | DieSet
    | Placed
    | Checked
    | MissionDone
    | MedalTaken
    | OrangeMoved
    | BlueMoved
    | Revealed
    | TokenTaken
    | DeadTaken
    | StallTaken
    | EruditeTaken
    | TileUsed
    | Built
    | ProjectAdvanced
    | InfluenceAdded
    | StartTileTaken
    | DeepSpaceTaken
    | PresidentTaken
    | RoundStarted
    | LawPassed
    | RoundEnded
    | Finished
)
COMMAND_TYPES = (
    Place,
    Fork,
    TakeToken,
    DeadAsteroid,
    Stall,
    Erudite,
    Build,
    Project,
    Check,
    Spy,
    Pay,
    Discard,
    Crystal,
    StartTile,
    DeepSpace,
    Influence,
    Medal,
    Retrigger,
    Income,
    Upkeep,
    LawChoice,
    Mission,
    UseTile,
    EndTurn,
)
EVENT_TYPES = (
    SetUp,
    Queued,
    Pushed,
    Popped,
    Gained,
    AuthoritySet,
    DieSet,
    Placed,
    Checked,
    MissionDone,
    MedalTaken,
    OrangeMoved,
    BlueMoved,
    Revealed,
    TokenTaken,
    DeadTaken,
    StallTaken,
    EruditeTaken,
    TileUsed,
    Built,
    ProjectAdvanced,
    InfluenceAdded,
    StartTileTaken,
    DeepSpaceTaken,
    PresidentTaken,
    RoundStarted,
    LawPassed,
    RoundEnded,
    Finished,
)

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "FederationCommand",
    "FederationEvent",
    "FederationOptions",
    "FederationView",
    "PlayerView",
    "SpaceView",
]
