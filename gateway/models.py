"""The HTTP API's request and response bodies: msgspec Structs, which Litestar decodes,
validates and documents (OpenAPI 3.1) with no second schema layer. Lobby entries and
outcomes are the wire contract's own types (``orrery_contracts.lobby``,
``orrery_contracts.envelope``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from orrery_contracts.lobby import LobbySeat, LobbyState


class Struct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class NewPlayer(Struct, frozen=True, kw_only=True):
    name: str
    password: str


class PlayerCreated(Struct, frozen=True, kw_only=True):
    player_id: str
    name: str


class Credentials(Struct, frozen=True, kw_only=True):
    name: str
    password: str


class Session(Struct, frozen=True, kw_only=True):
    token: str
    player_id: str
    expires_at: str  # ISO 8601, UTC


class TableSummary(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    game: str
    seats: int
    players: list[LobbySeat]
    state: LobbyState
    options: dict[str, Any]
    created_at: int  # unix milliseconds


class MyTable(TableSummary, frozen=True, kw_only=True):
    seat: int


class Me(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    ratings: dict[str, float]
    tables: list[MyTable]


class NewTable(Struct, frozen=True, kw_only=True):
    game: str
    seats: int
    options: dict[str, Any] = {}
    private: bool = False


class TableMade(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    table_id: str
    invite: str | None = None


class TableList(msgspec.Struct, frozen=True, kw_only=True):
    tables: list[TableSummary]
    next: str | None


class JoinIn(Struct, frozen=True, kw_only=True):
    seat: int | None = None
    invite: str | None = None


class BotIn(Struct, frozen=True, kw_only=True):
    seat: int | None = None


class SeatOut(msgspec.Struct, frozen=True, kw_only=True):
    seat: int


class CommandIn(Struct, frozen=True, kw_only=True):
    command_id: str
    body: dict[str, Any]


class LeaderboardEntry(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    rating: float
    games: int


class Leaderboard(msgspec.Struct, frozen=True, kw_only=True):
    entries: list[LeaderboardEntry]


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    error: str
    message: str


class Health(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    status: str
    detail: str | None = None
