"""Table lifecycle: the commands and events every game shares (tag prefix ``table.``).

A table is created with a game, its options and a number of seats; people join seats
(a join carries the seat's secret, chosen by the client, in the envelope's ``token``;
the service keeps only its SHA-256); any seated player starts it once
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


class JoinRequest(CommandBody, frozen=True, tag="table.join"):
    """What a client sends to take a seat (the seat's secret travels in the envelope's
    ``token``, never in the body)."""

    name: str
    seat: int | None = None


class JoinSeat(JoinRequest, frozen=True, tag="table.join"):
    """A join as the service decides and logs it: the client's request plus facts only the
    service may fill in (whatever a client sends in these fields is overwritten), so
    re-deciding the logged command reproduces the event."""

    # the SHA-256 of the seat secret the client chose (the secret itself is stored nowhere)
    token_hash: str = ""
    # the player a trusted gateway vouched for (contracts.identity); "" for anonymous joins
    player_id: str = ""


class StartTable(CommandBody, frozen=True, tag="table.start"):
    pass


class LeaveTable(CommandBody, frozen=True, tag="table.leave"):
    pass


TableCommand = CreateTable | JoinSeat | StartTable | LeaveTable
# what a client may send (the schema's command union): the join without service fields
ClientTableCommand = CreateTable | JoinRequest | StartTable | LeaveTable


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
    # a verified player (ratings follow it); "" when the join was anonymous (not rated)
    player_id: str = ""


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
