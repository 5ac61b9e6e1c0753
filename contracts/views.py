"""What a seat (or a spectator) reads: the table around a game's own view.

``view`` is the game's per-seat view (``None`` before the start); ``legal`` lists the
commands this seat may send now, each ready to be used as a command envelope's body.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

import msgspec

from contracts.table import FinalStanding

V = TypeVar("V")
C = TypeVar("C")

TablePhase = Literal["none", "lobby", "playing", "finished"]


class SeatInfo(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str | None
    left: bool = False


class TableView(msgspec.Struct, Generic[V, C], frozen=True, kw_only=True):
    table_id: str
    game: str
    seq: int
    phase: TablePhase
    viewer: int | None
    seats: list[SeatInfo]
    to_move: list[int]
    game_phase: str
    round: int
    view: V | None
    legal: list[C]
    seed_commitment: str
    standing: FinalStanding | None = None
    seed: str | None = None


class ScoreLine(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str | None
    points: int
    rank: int
    left: bool = False


class TableScore(msgspec.Struct, frozen=True, kw_only=True):
    """The scoreboard's record of one table: live while playing, final when finished."""

    table_id: str
    game: str
    seq: int
    phase: TablePhase
    round: int
    lines: list[ScoreLine]


class RatingLine(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    rating: float
    games: int
