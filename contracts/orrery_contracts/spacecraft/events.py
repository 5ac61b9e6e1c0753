"""SPACEcraft events (tag prefix ``sc.``). Fat: each carries what ``evolve`` needs, so the
fold never reads today's content data (``catalogue``).

Fields added after rules version 1 have defaults equal to what rules version 1 used, so a
log written before a field existed replays exactly as it was played.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft.commands import Placement

#: The workshop stock per compartment (``catalogue.SLOTS`` order) of rules version 1.
V1_SUPPLY: tuple[int, ...] = (
    3, 2, 2, 3, 3, 2, 2, 2, 2, 3, 2, 2, 3, 3, 3, 2,
    2, 2, 2, 2, 2, 2, 2, 3, 2, 2, 2, 2, 3, 2, 3, 2,
)  # fmt: skip

# ----------------------------------------------------------------------------- setup


class JunkyardLaid(EventBody, frozen=True, tag="sc.junkyard_laid"):
    size: int
    piles: list[list[int]]  # per cell (row-major), junk ids bottom -> top
    returned: list[int]  # tiles per junk id returned to the box (2 players)


class WorkshopLaid(EventBody, frozen=True, tag="sc.workshop_laid"):
    tokens: list[int]  # required junk id per column
    # parts in stock per workshop compartment (default: rules version 1)
    supply: list[int] = msgspec.field(default_factory=lambda: list(V1_SUPPLY))


class BlueprintDrawn(EventBody, frozen=True, tag="sc.blueprint_drawn"):
    card: int


class GoalsDealt(EventBody, frozen=True, tag="sc.goals_dealt"):
    seat: int
    options: list[int]


class DesignsLaid(EventBody, frozen=True, tag="sc.designs_laid"):
    lower: list[int]
    upper: list[int]
    deck: list[int]  # top first
    removed: list[int]


class AdvancedLaid(EventBody, frozen=True, tag="sc.advanced_laid"):
    cards: list[int]
    sides: list[str]  # "A" / "B" per card
    removed: list[int]
    markers: int = 6  # markers per player (default: rules version 1)


class GoalChosen(EventBody, frozen=True, tag="sc.goal_chosen"):
    seat: int
    goal: int


class PlayStarted(EventBody, frozen=True, tag="sc.play_started"):
    first: int


# ----------------------------------------------------------------------------- turn


class Visited(EventBody, frozen=True, tag="sc.visited"):
    seat: int
    x: int
    y: int
    tile: int


class Searched(EventBody, frozen=True, tag="sc.searched"):
    seat: int
    x: int
    y: int
    tile: int


class Left(EventBody, frozen=True, tag="sc.left"):
    seat: int
    tiles: list[int]  # junk ids moved from the board to beside it


class PartBuilt(EventBody, frozen=True, tag="sc.part_built"):
    seat: int
    slot: int
    kind: str
    paid: list[int]  # junk ids paid (out of the game)
    layout: list[Placement]  # the whole rocket afterwards


class Arranged(EventBody, frozen=True, tag="sc.arranged"):
    seat: int
    layout: list[Placement]


class DesignFulfilled(EventBody, frozen=True, tag="sc.design_fulfilled"):
    seat: int
    card: int
    slot: int  # lower-row slot, or -1 for the reserved card


class DesignReserved(EventBody, frozen=True, tag="sc.design_reserved"):
    seat: int
    card: int
    slot: int


class MarkerPlaced(EventBody, frozen=True, tag="sc.marker_placed"):
    seat: int
    card: int
    space: int


class CountdownTriggered(EventBody, frozen=True, tag="sc.countdown_triggered"):
    seat: int


class CountdownAdvanced(EventBody, frozen=True, tag="sc.countdown_advanced"):
    remaining: int  # cards left in the stack; 1 = only the launch card


class RowsRefilled(EventBody, frozen=True, tag="sc.rows_refilled"):
    lower: list[int]  # the rows afterwards; -1 = empty slot
    upper: list[int]
    drawn: int  # cards taken from the deck top


class FinalRoundStarted(EventBody, frozen=True, tag="sc.final_round_started"):
    reason: str  # "launch" | "designs_exhausted" | "cannot_visit"
    order: list[int]  # seats taking their final leave, in order


class TurnPassed(EventBody, frozen=True, tag="sc.turn_passed"):
    seat: int


class GameEnded(EventBody, frozen=True, tag="sc.game_ended"):
    points: list[int]
    ranks: list[int]
    trigger: list[int]
    blueprint: list[int]
    goals: list[int]
    designs: list[int]
    junk: list[int]  # unused junk tiles (tie-break)
