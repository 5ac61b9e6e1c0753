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


class TableDetail(TableSummary, frozen=True, kw_only=True):
    """``GET /v1/tables/{id}``: the lobby's record and the public status of the table
    (the spectator's view: whose turn, the game's phase and round), nothing hidden."""

    private: bool
    bots: list[int]  # seats played by server-side bots
    open_seats: list[int]  # seats nobody holds (before the start)
    phase: str  # lobby, playing, finished or closed (as the views show it)
    game_phase: str  # the game's own phase ("" before the start)
    round: int
    to_move: list[int]
    seq: int  # the last seq the views show
    finished_at: int | None  # unix milliseconds: when it finished or was closed


class ReplayStep(msgspec.Struct, frozen=True, kw_only=True):
    """Where a replay answer stands in the table's log (its ``replay`` member).

    A command's events are appended at once and nobody sees the table between them, so
    a replay shows the table after a whole command: ``seq`` is that command's last seq
    (the view's own ``seq``), ``at`` the seq asked for (``first_seq <= at <= seq``).
    Step ``n`` is the view after the table's ``n``-th command (step 0: seq 0, the table
    before its first event).
    """

    at: int
    seq: int
    first_seq: int
    step: int
    steps: int  # commands in the log so far: the last step
    prev_seq: int | None  # the seq shown one step back (None at step 0)
    next_seq: int | None  # the seq shown one step on (None at the last step)
    last_seq: int  # the log's last seq


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


class ChatIn(Struct, frozen=True, kw_only=True):
    text: str


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
