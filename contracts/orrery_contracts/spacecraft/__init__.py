"""SPACEcraft wire contract: options, commands, events, views and the static catalogue."""

from orrery_contracts.spacecraft.commands import (
    Arrange,
    Build,
    ChooseGoal,
    EndTurn,
    Fulfil,
    Leave,
    Mark,
    Placement,
    Reserve,
    Search,
    Visit,
)
from orrery_contracts.spacecraft.events import (
    AdvancedLaid,
    Arranged,
    BlueprintDrawn,
    CountdownAdvanced,
    CountdownTriggered,
    DesignFulfilled,
    DesignReserved,
    DesignsLaid,
    FinalRoundStarted,
    GameEnded,
    GoalChosen,
    GoalsDealt,
    JunkyardLaid,
    Left,
    MarkerPlaced,
    PartBuilt,
    PlayStarted,
    RowsRefilled,
    Searched,
    TurnPassed,
    Visited,
    WorkshopLaid,
)
from orrery_contracts.spacecraft.options import SpacecraftOptions
from orrery_contracts.spacecraft.views import AdvancedCardView, CellView, SeatView, SpacecraftView

SpacecraftCommand = (
    ChooseGoal | Visit | Search | Leave | Build | Arrange | Fulfil | Reserve | Mark | EndTurn
)
SpacecraftEvent = (
    JunkyardLaid
    | WorkshopLaid
    | BlueprintDrawn
    | GoalsDealt
    | DesignsLaid
    | AdvancedLaid
    | GoalChosen
    | PlayStarted
    | Visited
    | Searched
    | Left
    | PartBuilt
    | Arranged
    | DesignFulfilled
    | DesignReserved
    | MarkerPlaced
    | CountdownTriggered
    | CountdownAdvanced
    | RowsRefilled
    | FinalRoundStarted
    | TurnPassed
    | GameEnded
)

COMMAND_TYPES = (ChooseGoal, Visit, Search, Leave, Build, Arrange, Fulfil, Reserve, Mark, EndTurn)
EVENT_TYPES = (
    JunkyardLaid,
    WorkshopLaid,
    BlueprintDrawn,
    GoalsDealt,
    DesignsLaid,
    AdvancedLaid,
    GoalChosen,
    PlayStarted,
    Visited,
    Searched,
    Left,
    PartBuilt,
    Arranged,
    DesignFulfilled,
    DesignReserved,
    MarkerPlaced,
    CountdownTriggered,
    CountdownAdvanced,
    RowsRefilled,
    FinalRoundStarted,
    TurnPassed,
    GameEnded,
)

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "AdvancedCardView",
    "AdvancedLaid",
    "Arrange",
    "Arranged",
    "BlueprintDrawn",
    "Build",
    "CellView",
    "ChooseGoal",
    "CountdownAdvanced",
    "CountdownTriggered",
    "DesignFulfilled",
    "DesignReserved",
    "DesignsLaid",
    "EndTurn",
    "FinalRoundStarted",
    "Fulfil",
    "GameEnded",
    "GoalChosen",
    "GoalsDealt",
    "JunkyardLaid",
    "Leave",
    "Left",
    "Mark",
    "MarkerPlaced",
    "PartBuilt",
    "Placement",
    "PlayStarted",
    "Reserve",
    "RowsRefilled",
    "Search",
    "Searched",
    "SeatView",
    "SpacecraftCommand",
    "SpacecraftEvent",
    "SpacecraftOptions",
    "SpacecraftView",
    "TurnPassed",
    "Visit",
    "Visited",
    "WorkshopLaid",
]
