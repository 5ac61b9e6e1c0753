"""Table lifecycle: the commands and events every game shares (tag prefix ``table.``).

A table is created with a game, its options and a number of seats; people join seats
(a join carries the seat's secret, chosen by the client, in the envelope's ``token``;
the service keeps only its SHA-256); any seated player starts it once
every seat is taken; a player may leave (before the start: the seat opens again;
after it: the player concedes and ranks last, and the table's ``on_abandon`` says what
follows: ``bot``, a server-side bot of the table's ``bot_level`` takes the seat over and
plays it to the end, as a client with a seat secret of its own (``table.seat_taken_over``);
``end``, the table ends at once as ``abandoned``). A table whose log predates
``on_abandon`` keeps what such tables always did: random legal moves decided for the
seat inside each append, like Board Game Arena's "zombie".

Clocks (``CreateTable.clock``, absent: none): each seat starts with ``bank_s``; each time
it becomes that seat's move (it enters ``to_move``, or moves and is still to move) it
gets ``per_move_s`` more; its time runs while it is to move. Time is only ever the
recorded-at time of log entries. Two system commands, sent by the timekeeper process
with deterministic command ids and accepted only when the log's times say so:
``table.expire`` (a seat's clock ran out: ``table.clock_expired``, then ``on_expiry``)
and ``table.close`` (a table not started within the lobby TTL: ``table.closed``).

A table may have an end time (``CreateTable.ends_at``, unix ms; a tournament's tables
end with their round's deadline). ``table.end``, a system command accepted only once the
log's times have passed it, ends a table still playing then: the seats the game waits
on have run out of time and concede (ranked after those still playing, as a leave), and
the table finishes as ``deadline`` with the standing of that moment.

``CreateTable.on_abandon`` absent: ``bot`` for a table of three seats or more (the others
play on), ``end`` for two (a game against a bot was not what they sat down to);
``bot_level`` absent: ``greedy``. The service records the choice it made in the create, so
re-deciding the log gives the same events.

A table is rated (``CreateTable.rated``, absent: true): its finish moves its verified
players' ratings; an unrated one's does not (a friendly game, a quick-play match of
unrated tickets).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from orrery_contracts.base import CommandBody, EventBody

# A table not started within this many seconds is closed (``table.close``); 0: never.
# Read by the worker (it decides) and the projector (it indexes the due time).
LOBBY_TTL_ENV = "ORRERY_LOBBY_TTL_S"
DEFAULT_LOBBY_TTL_S = 86_400.0

# A clock's times: up to a year, in seconds (fractions allowed).
MAX_CLOCK_S = 366 * 86400
ClockSeconds = Annotated[float, msgspec.Meta(ge=0, le=MAX_CLOCK_S)]
OnExpiry = Literal["bot", "concede"]
OnAbandon = Literal["bot", "end"]
# seats from which a table's abandoned seats are taken over by a bot unless told otherwise
BOT_TAKEOVER_MIN_SEATS = 3


def default_on_abandon(seats: int) -> OnAbandon:
    return "bot" if seats >= BOT_TAKEOVER_MIN_SEATS else "end"


class ClockOption(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A table's clock: real-time ``{"bank_s": 600, "per_move_s": 10}``, turn-based
    ``{"bank_s": 0, "per_move_s": 86400}``. ``on_expiry``: ``bot`` plays a random legal
    move for the seat (this once), ``concede`` makes the seat leave."""

    bank_s: ClockSeconds = 0.0
    per_move_s: ClockSeconds = 0.0
    on_expiry: OnExpiry = "bot"


class CreateTable(CommandBody, frozen=True, tag="table.create"):
    game: str
    seats: int
    options: dict[str, Any] = {}
    clock: ClockOption | None = None
    rated: bool = True  # false: the finish rates nobody
    # a seat abandoned after the start (its player left, or its clock ran out to
    # ``concede``): ``bot`` plays it on, ``end`` ends the table; None: by the seat count
    on_abandon: OnAbandon | None = None
    # the level of the bot that takes an abandoned seat over (a name of
    # orrery_contracts.lobby.BOT_LEVELS, else ``bad_level``); None: ``greedy``
    bot_level: str | None = None
    # unix ms after which ``table.end`` ends the table if it is still playing; None: never
    ends_at: Annotated[int, msgspec.Meta(ge=0)] | None = None


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
    # the player a trusted gateway vouched for (orrery_contracts.identity); "" for anonymous joins
    player_id: str = ""


class StartTable(CommandBody, frozen=True, tag="table.start"):
    pass


class LeaveTable(CommandBody, frozen=True, tag="table.leave"):
    pass


class LeaveSeat(LeaveTable, frozen=True, tag="table.leave"):
    """A leave as the service decides and logs it: when a bot will take the seat over,
    the SHA-256 of the bot's seat secret (derived from the server key; absent otherwise,
    and whatever a client sends is overwritten)."""

    bot_token_hash: str | msgspec.UnsetType = msgspec.UNSET


class ExpireClock(CommandBody, frozen=True, tag="table.expire"):
    """Seat ``seat``'s clock ran out during the turn it began at seq ``turn`` (a system
    command: no seat or token; accepted only if the deadline computed from the log's
    times has passed at the time the worker records it, else ``not_expired``)."""

    seat: int
    turn: int


class ExpireSeat(ExpireClock, frozen=True, tag="table.expire"):
    """An expiry as the service decides and logs it (the bot's seat secret's hash, as in
    :class:`LeaveSeat`, when a bot will take the seat over)."""

    bot_token_hash: str | msgspec.UnsetType = msgspec.UNSET


def expire_command_id(table_id: str, seat: int, turn: int) -> str:
    """The one command id of a seat's expiry in a turn: every timekeeper sends this id,
    so the append's command-id dedupe applies the expiry once."""
    return f"expire:{table_id}:{seat}:{turn}"


class EndRequest(CommandBody, frozen=True, tag="table.end"):
    """End a table whose end time (``ends_at``) has passed (a system command: no seat;
    accepted only when the log's times say so, else ``not_expired``): the seats the game
    waits on concede, then ``table.finished`` with reason ``deadline``."""


def close_command_id(table_id: str) -> str:
    return f"close:{table_id}"


class CloseRequest(CommandBody, frozen=True, tag="table.close"):
    """Close a table that was not started within the lobby TTL (a system command)."""


class CloseTable(CloseRequest, frozen=True, tag="table.close"):
    """A close as the service decides and logs it: with the lobby TTL in force
    (``ORRERY_LOBBY_TTL_S`` of the worker; whatever a client sends is overwritten)."""

    lobby_ttl_ms: int = 0


# Why an undo is refused: ``Rejected("undo_blocked", …, detail={"reason": …})``.
UndoReason = Literal["other_player", "revealed", "random", "turn_ended", "nothing_to_undo"]
UNDO_REASONS: tuple[UndoReason, ...] = (
    "other_player",
    "revealed",
    "random",
    "turn_ended",
    "nothing_to_undo",
)


class UndoTable(CommandBody, frozen=True, tag="table.undo"):
    """Take back the seat's own commands of its current turn, back to seq ``to_seq``
    (absent: to just before the seat's last command). Accepted only when every command
    after ``to_seq`` is the seat's own, in its current turn, and none of them revealed
    hidden information or used chance (``games/undo.py``); else ``undo_blocked``."""

    to_seq: Annotated[int, msgspec.Meta(ge=0)] | None = None


# Entries of a view's ``legal`` that are not moves of the game: bots (and the tests'
# random players) never choose them — a bot never undoes, starts or concedes by chance.
NOT_MOVES = frozenset({"table.start", "table.leave", "table.undo"})


TableCommand = (
    CreateTable
    | JoinSeat
    | StartTable
    | LeaveSeat
    | ExpireSeat
    | CloseTable
    | EndRequest
    | UndoTable
)
# what a client may send (the schema's command union): the join without service fields
ClientTableCommand = (
    CreateTable
    | JoinRequest
    | StartTable
    | LeaveTable
    | ExpireClock
    | CloseRequest
    | EndRequest
    | UndoTable
)


class TableCreated(EventBody, frozen=True, tag="table.created"):
    game: str
    seats: int
    options: dict[str, Any]
    rules_version: str
    seed_commitment: str
    clock: ClockOption | None = None
    # false: an unrated table. Absent (UNSET) on a rated table's event, which so encodes
    # as it did before tables could be unrated (re-deciding an old log gives its bytes);
    # read it with ``created_rated``
    rated: bool | msgspec.UnsetType = msgspec.UNSET
    # what an abandoned seat gets (absent on a table created before the option: the
    # worker's random moves for the seat) and the level of the bot that takes it over
    on_abandon: OnAbandon | msgspec.UnsetType = msgspec.UNSET
    bot_level: str | msgspec.UnsetType = msgspec.UNSET
    # the table's end time (unix ms; absent: none), as ``CreateTable.ends_at``
    ends_at: int | msgspec.UnsetType = msgspec.UNSET


def created_rated(event: TableCreated) -> bool:
    """Whether the table ``event`` created is rated (absent: it is)."""
    return event.rated is not False


class SeatJoined(EventBody, frozen=True, tag="table.seat_joined"):
    seat: int
    name: str
    token_hash: str
    # a verified player (ratings follow it); "" when the join was anonymous (not rated)
    player_id: str = ""


class SeatLeft(EventBody, frozen=True, tag="table.seat_left"):
    seat: int
    conceded: bool


class SeatTakenOver(EventBody, frozen=True, tag="table.seat_taken_over"):
    """From this event on, a server-side bot of ``level`` plays seat ``seat``, whose
    player abandoned it (the ``table.seat_left`` before it in the same append): the seat
    is authenticated by the bot's secret from now on (``token_hash``: its SHA-256; the
    player's own secret no longer moves the seat), and still ranks as conceded."""

    seat: int
    level: str
    token_hash: str


class TableStarted(EventBody, frozen=True, tag="table.started"):
    pass


class FinalStanding(msgspec.Struct, frozen=True, kw_only=True):
    points: list[int]
    ranks: list[int]


class TableFinished(EventBody, frozen=True, tag="table.finished"):
    """``reason``: ``completed`` (the game's end), ``abandoned`` (every seat left, or one
    of a table whose ``on_abandon`` is ``end``), ``deadline`` (its end time passed:
    ``table.end``)."""

    reason: Literal["completed", "abandoned", "deadline"]
    standing: FinalStanding
    seed: str


class ClockExpired(EventBody, frozen=True, tag="table.clock_expired"):
    """Seat ``seat`` ran out of time; the table's ``on_expiry`` follows in the same
    append (a random move for the seat, or its ``table.seat_left``)."""

    seat: int


class TableClosed(EventBody, frozen=True, tag="table.closed"):
    """The table was never started and is closed for good (its seed revealed, so the
    log can be audited)."""

    reason: Literal["lobby_ttl"]
    seed: str


class TableUndone(EventBody, frozen=True, tag="table.undone"):
    """Seat ``seat`` took back its commands whose events are seqs ``to_seq + 1`` ..
    ``from_seq``: the game is again as it was at ``to_seq`` (clocks are not: time used
    stays used). Nothing is deleted; the fold restores from what it kept (games/undo.py)."""

    seat: int
    from_seq: int
    to_seq: int


TableEvent = (
    TableCreated
    | SeatJoined
    | SeatLeft
    | SeatTakenOver
    | TableStarted
    | TableFinished
    | ClockExpired
    | TableClosed
    | TableUndone
)
