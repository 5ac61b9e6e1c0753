"""What one SPACEcraft seat (or a spectator) may see."""

from __future__ import annotations

import msgspec

from orrery_contracts.base import ViewBody
from orrery_contracts.spacecraft.commands import Placement


class CellView(msgspec.Struct, frozen=True, kw_only=True):
    height: int
    top: str | None  # junk name of the visible top tile
    pawn: int | None  # seat whose pawn stands here


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    pawn: list[int] | None  # [x, y] on the junkyard, None when outside
    board: list[str]  # junk names on the player board
    beside: dict[str, int]  # unused junk beside the board, by name
    rocket: list[Placement]
    width: int
    height: int
    goal: int | None  # chosen personal goal (hidden from others until all have chosen)
    goal_options: list[int] | None  # only the owner, only while choosing
    fulfilled: list[int]
    has_reserved: bool
    reserved: int | None  # only the owner sees which card
    markers_left: int
    meets_blueprint: bool


class AdvancedCardView(msgspec.Struct, frozen=True, kw_only=True):
    card: int
    side: str
    subject: str
    track: list[int]
    markers: list[int]  # seats, left to right


class SpacecraftView(ViewBody, frozen=True):
    variant: str
    phase: str
    step: str
    current: int
    grid_size: int
    junkyard: list[CellView]  # row-major
    tokens: list[str]  # required junk per workshop column
    supply: list[int]  # per workshop slot (catalogue.SLOTS)
    blueprint: int
    lower: list[int]  # -1 = empty
    upper: list[int]
    deck_size: int
    advanced: list[AdvancedCardView]
    countdown_holder: int | None
    countdown_top: int | None  # 3 / 2 / 1, 0 = launch card; None before the trigger
    final_order: list[int]
    seats: list[SeatView]
    builds_this_turn: int
    designs_this_turn: int
    points: list[int] | None = None  # when finished
    ranks: list[int] | None = None
