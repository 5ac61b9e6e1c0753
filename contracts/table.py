"""Table lifecycle: the commands and events every game shares (tag prefix ``table.``).

A table is created with a game, its options and a number of seats; people join seats
(the join outcome carries that seat's secret token); any seated player starts it once
every seat is taken; a player may leave (before the start: the seat opens again;
after it: the player concedes and a bot plays random legal moves for the seat, like
Board Game Arena's "zombie", and the seat ranks last).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from contracts.base import CommandBody, EventBody


class CreateTable(CommandBody, frozen=True, tag="table.create"):
    game: str
    seats: int
    options: dict[str, Any] = {}


class JoinSeat(CommandBody, frozen=True, tag="table.join"):
    name: str
    seat: int | None = None
    # Filled in by the service (never trusted from a client): the SHA-256 of the
    # token it issued, so re-deciding the logged command reproduces the event.
    token_hash: str = ""


class StartTable(CommandBody, frozen=True, tag="table.start"):
    pass


class LeaveTable(CommandBody, frozen=True, tag="table.leave"):
    pass


TableCommand = CreateTable | JoinSeat | StartTable | LeaveTable


class TableCreated(EventBody, frozen=True, tag="table.created"):
    game: str
    seats: int
    options: dict[str, Any]
    rules_version: str
    seed_commitment: str


class SeatJoined(EventBody, frozen=True, tag="table.seat_joined"):
    seat: int
    name: str
    token_hash: str


class SeatLeft(EventBody, frozen=True, tag="table.seat_left"):
    seat: int
    conceded: bool


class TableStarted(EventBody, frozen=True, tag="table.started"):
    pass


class FinalStanding(msgspec.Struct, frozen=True, kw_only=True):
    points: list[int]
    ranks: list[int]


class TableFinished(EventBody, frozen=True, tag="table.finished"):
    reason: Literal["completed", "abandoned"]
    standing: FinalStanding
    seed: str


TableEvent = TableCreated | SeatJoined | SeatLeft | TableStarted | TableFinished
