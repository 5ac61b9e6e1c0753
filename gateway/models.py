"""The HTTP API's request and response bodies: msgspec Structs, which Litestar decodes
and validates, and from which :mod:`gateway.openapi` writes the OpenAPI document
(``msgspec.json.schema_components``: what is documented is what is decoded). Lobby
entries and outcomes are the wire contract's own types (``orrery_contracts.lobby``,
``orrery_contracts.envelope``).

Rules the handlers check themselves, with their own codes (a name's characters,
a password's length, a command id's alphabet), are documented here with
``extra_json_schema`` so they are stated next to the field they constrain, without
turning those codes into a generic ``malformed``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from gateway.passwords import MAX_PASSWORD, MIN_PASSWORD
from orrery_contracts.chat import MAX_CHAT_TEXT
from orrery_contracts.inputs import MAX_NAME
from orrery_contracts.lobby import LobbySeat, LobbyState
from orrery_contracts.rejections import REJECTION_CODES
from orrery_contracts.table import OnAbandon, UndoReason

# What the handlers check (gateway/tables.py uses the same patterns).
COMMAND_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
TABLE_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
CURSOR_PATTERN = r"^[0-9]{15}:[A-Za-z0-9_.:-]{1,64}$"
# A name's first and last characters are neither blank nor control characters (the
# whole rule, orrery_contracts.inputs.normalise_name, goes beyond a pattern: bad_name).
NAME_PATTERN = r"^[^\s\x00-\x1f\x7f-\x9f](?:[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f])?$"
# A chat line has no control character and something besides spaces (the whole rule,
# orrery_contracts.inputs.normalise_text, also refuses invisible characters: bad_text).
CHAT_TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"

PlayerName = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={"minLength": 1, "maxLength": MAX_NAME, "pattern": NAME_PATTERN}
    ),
]
Password = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "minLength": MIN_PASSWORD,
            "maxLength": MAX_PASSWORD,
            "description": "not guessable: one that zxcvbn, given the name too, scores "
            "below 3 is refused (422 weak_password, with its advice)",
        }
    ),
]
DateTime = Annotated[str, msgspec.Meta(extra_json_schema={"format": "date-time"})]
CommandId = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": COMMAND_ID_PATTERN})]
ChatText = Annotated[
    str,
    msgspec.Meta(
        extra_json_schema={
            "minLength": 1,
            "maxLength": MAX_CHAT_TEXT,
            "pattern": CHAT_TEXT_PATTERN,
            "description": f"1 to {MAX_CHAT_TEXT} characters once NFC-normalised and "
            "stripped, no control or invisible characters (else 422 bad_text)",
        }
    ),
]
SeatNumber = Annotated[int, msgspec.Meta(ge=0)]


class Struct(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class NewPlayer(Struct, frozen=True, kw_only=True):
    name: PlayerName
    password: Password


class PlayerCreated(Struct, frozen=True, kw_only=True):
    player_id: str
    name: str


class Credentials(Struct, frozen=True, kw_only=True):
    name: str
    password: str


class Session(Struct, frozen=True, kw_only=True):
    token: str
    player_id: str
    expires_at: DateTime  # ISO 8601, UTC


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
    bots: list[int]  # seats played by server-side bots (joined as bots, or taken over)
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
    rated: bool = True  # false: the finish moves nobody's rating
    # a seat abandoned after the start: a bot plays it on, or the table ends; none: a
    # bot from three seats up
    on_abandon: OnAbandon | None = None
    bot_level: str | None = None  # the level of that bot (else 422 bad_level); none: greedy


class TableMade(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    invite: str | None = None  # a private table's (null for a public one)


class TableList(msgspec.Struct, frozen=True, kw_only=True):
    tables: list[TableSummary]
    next: str | None


class PastSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat of a finished table: who sat there and how it ended (``player_id``: the
    verified player, none for bots and anonymous seats)."""

    seat: int
    name: str
    player_id: str | None = None
    bot: bool = False
    rank: int | None = None
    score: int | None = None


class PastGame(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /v1/players/me/games``: one of my finished (or closed) tables, live or
    archived; ``seat``, ``rank`` and ``score`` are mine, ``seats`` everyone's."""

    table_id: str
    game: str
    state: str  # finished | closed
    finished_at: int  # unix ms
    seat: int
    rank: int | None
    score: int | None
    seats: list[PastSeat]


class PastGames(msgspec.Struct, frozen=True, kw_only=True):
    games: list[PastGame]  # newest finish first
    next: str | None  # the cursor of the next page


class JoinIn(Struct, frozen=True, kw_only=True):
    seat: SeatNumber | None = None
    invite: str | None = None


class BotIn(Struct, frozen=True, kw_only=True):
    seat: SeatNumber | None = None
    # random, greedy or ismcts (else 422 bad_level); none: greedy
    level: str | None = None


class SeatOut(msgspec.Struct, frozen=True, kw_only=True):
    seat: int


class ChatIn(Struct, frozen=True, kw_only=True):
    """A chat line: at most 500 characters as sent and 1 to 500 once NFC-normalised and
    stripped, no control or invisible characters. Checked by the chat's own rule
    (``bad_text``, as on the WebSocket), not by the decoder, so both paths refuse it with
    the same code; the schema states what a pattern can."""

    text: ChatText


class CommandIn(Struct, frozen=True, kw_only=True):
    """A command for my seat. ``body`` is decoded by the workers (the rules' own tagged
    union); the document shows it as that union (:mod:`gateway.openapi`)."""

    command_id: CommandId
    body: dict[str, Any]


class LeaderboardEntry(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str  # a bot's: bot:<level>
    name: str
    rating: float
    games: int
    bot: bool = False  # a server-side bot of a level, rated like a player


class Leaderboard(msgspec.Struct, frozen=True, kw_only=True):
    entries: list[LeaderboardEntry]


RejectionCode = Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(REJECTION_CODES)})]


class ErrorDetail(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """More about a refusal, for a program: each member only with the codes it names."""

    # undo_blocked: why the undo is refused
    reason: UndoReason | msgspec.UnsetType = msgspec.UNSET
    # bad_options: the option the game does not take (an excerpt of it)
    field: str | msgspec.UnsetType = msgspec.UNSET
    # rate_limited (chat): milliseconds until the author may say something again
    retry_after_ms: Annotated[int, msgspec.Meta(ge=0)] | msgspec.UnsetType = msgspec.UNSET


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    """Every non-2xx answer: a stable code and a short human message. A command the
    rules refused (422) also carries its outcome's members (``outcome``, ``code``, …,
    ``detail``); a table the worker refused to create and a refused chat line carry
    ``detail`` too."""

    error: str
    message: str
    outcome: Literal["rejected"] | msgspec.UnsetType = msgspec.UNSET
    command_id: str | msgspec.UnsetType = msgspec.UNSET
    table_id: str | msgspec.UnsetType = msgspec.UNSET
    code: RejectionCode | msgspec.UnsetType = msgspec.UNSET
    detail: ErrorDetail | msgspec.UnsetType | None = msgspec.UNSET


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: Literal["ok"]


class Readiness(msgspec.Struct, frozen=True, kw_only=True):
    status: Literal["ready"]
