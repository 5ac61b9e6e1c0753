"""Fractured Sky wire contract: options, commands, events, the per-seat view and the
catalogue."""

from __future__ import annotations

from orrery_contracts.fractured_sky.commands import (
    BuildFortress,
    BuildMarket,
    ChooseResource,
    ChooseSlot,
    ChooseStart,
    Peek,
    PlaceAirship,
    PlaceSkimmer,
    Scout,
    ScoutTake,
    Trade,
)
from orrery_contracts.fractured_sky.events import (
    AiBuilt,
    AiCardFlipped,
    AiConverted,
    AirshipPlaced,
    AiScouted,
    AiSkimmerPlaced,
    ExplorationDrawn,
    FortressBuilt,
    GameEnded,
    GameSetUp,
    MarketBuilt,
    ObjectiveScored,
    Peeked,
    RegionResolved,
    ResourceChosen,
    RoundRevealed,
    RoundSetUp,
    Scouted,
    ScoutFinished,
    SecretOpened,
    SkimmerPlaced,
    SlotPending,
    SlotTaken,
    StartChosen,
    Traded,
    TurnBegan,
)
from orrery_contracts.fractured_sky.options import FracturedSkyOptions
from orrery_contracts.fractured_sky.views import FracturedSkyView

FracturedSkyCommand = (
    ChooseStart
    | Trade
    | PlaceAirship
    | ChooseSlot
    | BuildFortress
    | BuildMarket
    | PlaceSkimmer
    | Scout
    | ScoutTake
    | Peek
    | ChooseResource
)
FracturedSkyEvent = (
    GameSetUp
    | StartChosen
    | TurnBegan
    | Traded
    | AirshipPlaced
    | ExplorationDrawn
    | SlotPending
    | SlotTaken
    | FortressBuilt
    | MarketBuilt
    | SkimmerPlaced
    | Scouted
    | ScoutFinished
    | Peeked
    | RoundRevealed
    | ObjectiveScored
    | RegionResolved
    | ResourceChosen
    | RoundSetUp
    | GameEnded
    | SecretOpened
    | AiCardFlipped
    | AiBuilt
    | AiSkimmerPlaced
    | AiScouted
    | AiConverted
)

COMMAND_TYPES = (
    ChooseStart,
    Trade,
    PlaceAirship,
    ChooseSlot,
    BuildFortress,
    BuildMarket,
    PlaceSkimmer,
    Scout,
    ScoutTake,
    Peek,
    ChooseResource,
)
EVENT_TYPES = (
    GameSetUp,
    StartChosen,
    TurnBegan,
    Traded,
    AirshipPlaced,
    ExplorationDrawn,
    SlotPending,
    SlotTaken,
    FortressBuilt,
    MarketBuilt,
    SkimmerPlaced,
    Scouted,
    ScoutFinished,
    Peeked,
    RoundRevealed,
    ObjectiveScored,
    RegionResolved,
    ResourceChosen,
    RoundSetUp,
    GameEnded,
    SecretOpened,
    AiCardFlipped,
    AiBuilt,
    AiSkimmerPlaced,
    AiScouted,
    AiConverted,
)

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "FracturedSkyCommand",
    "FracturedSkyEvent",
    "FracturedSkyOptions",
    "FracturedSkyView",
]
