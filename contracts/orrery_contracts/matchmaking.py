"""Matchmaking on the wire: tickets and their commands, the decisions the matchmaker logs,
what a ticket looks like to its players, and the published widening schedule.

A player's ticket (:class:`Ticket`) reaches the matchmaker as a command on its game's
queue stream (``keys.queue_command_stream``), written by a trusted front door (the
gateway) that has already checked the player, the game, the seats and the options. The
matchmaker owning the game's queue decides it and appends every decision to the game's
matchmaking log (:data:`QueueEvent`, tags ``queue.*`` and ``match.*``), each entry
hash-chained like a table's log, so the decisions replay and audit like a game. It
answers each command at ``keys.queue_answer_key`` and keeps what players read at
``keys.ticket_key`` (a :class:`TicketView`) and ``keys.player_tickets_key``.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import msgspec

Pace = Literal["realtime", "turn_based"]
PACES: tuple[Pace, ...] = ("realtime", "turn_based")
TicketStateName = Literal["waiting", "matched", "cancelled", "expired"]
TICKET_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

MAX_WAITING_TICKETS = 10  # waiting tickets a player may hold at once (all games)
MAX_PARTY = 4  # other players a ticket may bring
PARTY_ACCEPT_S = 60  # party members confirm within this long, else the ticket expires
OFFLINE_EXPIRY_S = 30  # a realtime ticket expires this long after its player went offline
MIN_BOTS_AFTER_S = 1
DEFAULT_BOTS_AFTER_S = 60
ANSWER_TTL_MS = 300_000  # how long a command's answer is kept
ENDED_TICKET_TTL_S = 86_400  # how long a matched / cancelled / expired ticket stays readable

# ---------------------------------------------------------------- the rating band

# A ticket accepts an opponent whose rating (OpenSkill mu) is within its band: twice
# its own uncertainty (sigma: a new player's band is wide), plus a widening that grows
# with the time it has waited, step by step; from ANY_AFTER_S on, any compatible
# ticket is acceptable. Two tickets may meet when either one accepts the other.
BAND_SIGMAS = 2.0
WIDENING: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),
    (10.0, 50.0),
    (20.0, 100.0),
    (30.0, 200.0),
    (40.0, 400.0),
    (50.0, 800.0),
)
ANY_AFTER_S = 60.0


def band(sigma: float, waited_s: float) -> float:
    """The half-width (rating points) of a ticket's band after ``waited_s`` seconds."""
    if waited_s >= ANY_AFTER_S:
        return math.inf
    extra = 0.0
    for after, points in WIDENING:
        if waited_s >= after:
            extra = points
    return BAND_SIGMAS * sigma + extra


# ---------------------------------------------------------------- the default clocks

# The clock a matched table gets for its pace (``table.create``'s ``clock``).
PACE_CLOCKS: dict[str, dict[str, Any]] = {
    "realtime": {"bank_s": 600, "per_move_s": 10, "on_expiry": "bot"},
    "turn_based": {"bank_s": 0, "per_move_s": 86_400, "on_expiry": "bot"},
}

# ---------------------------------------------------------------- tickets and commands


class Ticket(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A request to be seated: ``player_id`` (the owner) and ``party`` (players who come
    along and must accept) at one table of ``game`` with ``seats_min``..``seats_max``
    seats, whose options include ``options`` (absent: any). ``names``: the display names
    of the owner and then each party member; ``blocks``: players none of them will sit
    with."""

    ticket_id: str
    player_id: str
    game: str
    seats_min: int
    seats_max: int
    options: dict[str, Any] = {}
    rated: bool = True
    pace: Pace = "realtime"
    bots_ok: bool = False
    bots_after_s: float = DEFAULT_BOTS_AFTER_S
    party: list[str] = []
    names: list[str] = []
    blocks: list[str] = []

    @property
    def players(self) -> list[str]:
        return [self.player_id, *self.party]


class QueueCommandBody(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    command_id: str
    player_id: str


class JoinQueue(QueueCommandBody, frozen=True, kw_only=True, tag="queue.join"):
    ticket: Ticket


class LeaveQueue(QueueCommandBody, frozen=True, kw_only=True, tag="queue.leave"):
    ticket_id: str


class AcceptTicket(QueueCommandBody, frozen=True, kw_only=True, tag="queue.accept"):
    ticket_id: str


class SetBlocks(QueueCommandBody, frozen=True, kw_only=True, tag="queue.set_blocks"):
    """The player's whole block list now (sent to every game's queue when it changes)."""

    blocks: list[str]


QueueCommand = JoinQueue | LeaveQueue | AcceptTicket | SetBlocks
queue_command_decoder = msgspec.json.Decoder(QueueCommand)
queue_command_encoder = msgspec.json.Encoder()


class QueueAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The matchmaker's answer to a command: ``ok``, or a refusal ``code`` + message."""

    command_id: str
    ok: bool
    code: str = ""
    message: str = ""
    ticket_id: str = ""


QUEUE_REFUSALS = {
    "too_many_tickets": "you already have the most waiting tickets a player may have",
    "ticket_taken": "that ticket id is another player's",
    "no_such_ticket": "no such ticket",
    "not_in_party": "you are not in this ticket's party",
    "bad_seats": "the seats are outside the game's range",
    "unknown_game": "no such game",
    "bad_ticket": "the ticket is not well formed",
}

# ---------------------------------------------------------------- the log's events


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    mu: float
    sigma: float


class QueueEventBody(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    pass


class QueueJoined(QueueEventBody, frozen=True, kw_only=True, tag="queue.joined"):
    """The ticket entered the queue with each player's rating as it stood."""

    ticket: Ticket
    ratings: list[Rating]


class QueueLeft(QueueEventBody, frozen=True, kw_only=True, tag="queue.left"):
    ticket_id: str
    player_id: str = ""  # who cancelled it (the owner or a party member)
    reason: Literal["cancelled"] = "cancelled"


class PartyAccepted(QueueEventBody, frozen=True, kw_only=True, tag="queue.accepted"):
    ticket_id: str
    player_id: str


class BlocksSet(QueueEventBody, frozen=True, kw_only=True, tag="queue.blocks_set"):
    player_id: str
    blocks: list[str]


class PlayerOffline(QueueEventBody, frozen=True, kw_only=True, tag="queue.offline"):
    """A player holding a realtime ticket has no live connection (seen at ``at``)."""

    player_id: str


class PlayerOnline(QueueEventBody, frozen=True, kw_only=True, tag="queue.online"):
    player_id: str


class QueueExpired(QueueEventBody, frozen=True, kw_only=True, tag="queue.expired"):
    """``after_s``: the offline window the matchmaker ran with (an offline expiry)."""

    ticket_id: str
    reason: Literal["offline", "party"]
    after_s: float = 0.0


class MatchSeat(msgspec.Struct, frozen=True, kw_only=True):
    """One seat of a match: a player's (with its ticket and rating) or a bot's."""

    seat: int
    ticket_id: str = ""  # "" for a bot
    player_id: str = ""  # "" for a bot
    name: str = ""
    mu: float | None = None


class MatchMade(QueueEventBody, frozen=True, kw_only=True, tag="match.made"):
    """Tickets seated together at a new table (``cycle``: the matching pass that made
    it; every match of a pass has the same ``cycle`` and clock). ``spread``: the
    highest player rating less the lowest."""

    match_id: str
    cycle: int
    table_id: str
    seats: int
    options: dict[str, Any]
    pace: Pace
    rated: bool
    tickets: list[str]
    players: list[MatchSeat]
    bots: list[int]
    ratings: list[float]
    spread: float
    # the bots' ratings on the game's leaderboard at the pass (level -> mu, the rated
    # levels only) and the level chosen from them: the one nearest the players' mean,
    # greedy when none is rated. Absent in a match made before bots had levels.
    bot_ratings: dict[str, float] | msgspec.UnsetType = msgspec.UNSET
    bot_level: str | msgspec.UnsetType = msgspec.UNSET


class MatchStarted(QueueEventBody, frozen=True, kw_only=True, tag="match.started"):
    """The match's table is created, every seat taken, and started."""

    match_id: str
    table_id: str


class MatchFailed(QueueEventBody, frozen=True, kw_only=True, tag="match.failed"):
    """The table could not be made (the service refused it): the tickets wait again."""

    match_id: str
    table_id: str
    code: str
    message: str


QueueEvent = (
    QueueJoined
    | QueueLeft
    | PartyAccepted
    | BlocksSet
    | PlayerOffline
    | PlayerOnline
    | QueueExpired
    | MatchMade
    | MatchStarted
    | MatchFailed
)


class QueueEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of a matchmaking log (stream entry id ``<seq>-0``, field ``e``):
    ``at`` is the matchmaker's clock (unix ms) when it decided; ``hash`` is SHA-256 of
    ``prev`` and the msgpack encoding of (seq, at, event)."""

    seq: int
    at: int
    prev: str
    hash: str
    event: QueueEvent


queue_entry_encoder = msgspec.msgpack.Encoder()
queue_entry_decoder = msgspec.msgpack.Decoder(QueueEntry)

# ---------------------------------------------------------------- what players read


class TicketView(msgspec.Struct, frozen=True, kw_only=True):
    """A ticket as its players see it (``keys.ticket_key``): ``seats`` maps each seated
    player to their seat once matched."""

    ticket_id: str
    player_id: str
    game: str
    state: TicketStateName
    table_id: str | None = None
    seats: dict[str, int] = {}
    party: list[str] = []
    accepted: list[str] = []
    pace: Pace = "realtime"
    joined_at: int = 0
    estimated_wait_s: int = 0
    cancelled_by: str | None = None


ticket_view_decoder = msgspec.json.Decoder(TicketView)
