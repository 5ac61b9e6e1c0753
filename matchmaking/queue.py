"""A game's queue as an aggregate: its state folded from the matchmaking log
(:func:`evolve`), the decisions on commands (:func:`decide`), on presence
(:func:`presence`) and on the clock (:func:`expiries`, :func:`matches`). Pure: no I/O;
whatever the decisions need from outside (ratings, who is online, the clock) is an
argument and ends up in the events, so a replay of the log reaches the same state and
an audit can re-derive every decision.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from matchmaking.matcher import Group, Waiting, match
from orrery_contracts.lobby import BOT_LEVELS, DEFAULT_BOT_LEVEL
from orrery_contracts.matchmaking import (
    ANY_AFTER_S,
    ENDED_TICKET_TTL_S,
    MAX_PARTY,
    MAX_WAITING_TICKETS,
    MIN_BOTS_AFTER_S,
    OFFLINE_EXPIRY_S,
    PARTY_ACCEPT_S,
    QUEUE_REFUSALS,
    AcceptTicket,
    BlocksSet,
    JoinQueue,
    LeaveQueue,
    MatchFailed,
    MatchMade,
    MatchSeat,
    MatchStarted,
    PartyAccepted,
    PlayerOffline,
    PlayerOnline,
    QueueAnswer,
    QueueCommand,
    QueueEntry,
    QueueEvent,
    QueueExpired,
    QueueJoined,
    QueueLeft,
    Rating,
    SetBlocks,
    Ticket,
    TicketView,
)

GENESIS = "0" * 64
_entry_body = msgspec.msgpack.Encoder()


def entry_hash(prev: str, seq: int, at: int, event: QueueEvent) -> str:
    body = _entry_body.encode((seq, at, event))
    return hashlib.sha256(bytes.fromhex(prev) + body).hexdigest()


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class TicketRecord:
    ticket: Ticket
    ratings: list[Rating]
    joined_at: int
    state: str = "waiting"  # waiting | matched | cancelled | expired
    accepted: set[str] = field(default_factory=set)
    match_id: str | None = None  # a match made for it, not started yet
    table_id: str | None = None
    seats: dict[str, int] = field(default_factory=dict)
    estimated_wait_s: int = 0
    cancelled_by: str | None = None
    seen: Waiting | None = None  # the matcher's view of it (waiting_of)

    @property
    def ready(self) -> bool:
        return all(p in self.accepted for p in self.ticket.party)

    def view(self) -> TicketView:
        t = self.ticket
        return TicketView(
            ticket_id=t.ticket_id,
            player_id=t.player_id,
            game=t.game,
            state=self.state,  # type: ignore[arg-type]
            table_id=self.table_id,
            seats=dict(self.seats),
            party=list(t.party),
            accepted=sorted(self.accepted),
            pace=t.pace,
            joined_at=self.joined_at,
            estimated_wait_s=self.estimated_wait_s,
            cancelled_by=self.cancelled_by,
        )


@dataclass
class QueueState:
    game: str
    seat_range: tuple[int, int]
    offline_s: float = OFFLINE_EXPIRY_S
    seq: int = 0
    head: str = GENESIS
    at: int = 0  # the last entry's clock
    cycle: int = 0
    tickets: dict[str, TicketRecord] = field(default_factory=dict)
    offline: dict[str, int] = field(default_factory=dict)  # player -> since (ms)
    blocks: dict[str, frozenset[str]] = field(default_factory=dict)
    pending: dict[str, MatchMade] = field(default_factory=dict)  # made, not started
    # the waiting tickets' ids, oldest first; the ended ones with when they ended, oldest
    # first (a day after, they leave the state, as their records leave Redis)
    waiting_ids: dict[str, None] = field(default_factory=dict)
    ended: deque[tuple[int, str]] = field(default_factory=deque)
    # players of waiting tickets, by (pace, rated): the wait estimate's figure
    players_waiting: dict[tuple[str, bool], int] = field(default_factory=dict)
    # waiting tickets by owner: the cap on a player's tickets
    owners_waiting: dict[str, int] = field(default_factory=dict)

    def waiting(self) -> list[TicketRecord]:
        return [self.tickets[i] for i in self.waiting_ids]

    def wait(self, record: TicketRecord) -> None:
        t = record.ticket
        self.waiting_ids[t.ticket_id] = None
        key = (t.pace, t.rated)
        self.players_waiting[key] = self.players_waiting.get(key, 0) + len(t.players)
        self.owners_waiting[t.player_id] = self.owners_waiting.get(t.player_id, 0) + 1

    def end(self, ticket_id: str, at: int) -> None:
        if ticket_id in self.waiting_ids:
            del self.waiting_ids[ticket_id]
            t = self.tickets[ticket_id].ticket
            self.players_waiting[(t.pace, t.rated)] -= len(t.players)
            self.owners_waiting[t.player_id] -= 1
            if not self.owners_waiting[t.player_id]:
                del self.owners_waiting[t.player_id]
        self.ended.append((at, ticket_id))

    def forget_ended(self, now: int) -> None:
        while self.ended and self.ended[0][0] <= now - ENDED_TICKET_TTL_S * 1000:
            _, ticket_id = self.ended.popleft()
            record = self.tickets.get(ticket_id)
            if record is not None and record.state != "waiting":
                del self.tickets[ticket_id]

    def pool(self) -> list[Waiting]:
        """The tickets the matcher may seat now."""
        return [
            waiting_of(r, self.blocks) for r in self.waiting() if r.match_id is None and r.ready
        ]


def waiting_of(record: TicketRecord, blocks: dict[str, frozenset[str]]) -> Waiting:
    """The ticket as the matcher sees it (kept with the record until blocks change)."""
    if record.seen is None:
        record.seen = _waiting(record, blocks)
    return record.seen


def _waiting(record: TicketRecord, blocks: dict[str, frozenset[str]]) -> Waiting:
    t = record.ticket
    blocked = set(t.blocks)
    for player in t.players:
        blocked |= blocks.get(player, frozenset())
    return Waiting(
        ticket_id=t.ticket_id,
        players=tuple(t.players),
        ratings=tuple(r.mu for r in record.ratings),
        sigma=max(r.sigma for r in record.ratings),
        seats_min=t.seats_min,
        seats_max=t.seats_max,
        joined_at=record.joined_at,
        options=tuple(sorted((k, canonical(v)) for k, v in t.options.items())),
        rated=t.rated,
        pace=t.pace,
        bots_ok=t.bots_ok,
        bots_after_s=t.bots_after_s,
        blocks=frozenset(blocked),
    )


# ---------------------------------------------------------------- evolve


def evolve(state: QueueState, entry: QueueEntry) -> None:
    """Apply one log entry to the state (in place)."""
    state.seq, state.head, state.at = entry.seq, entry.hash, entry.at
    state.forget_ended(entry.at)
    event = entry.event
    match event:
        case QueueJoined(ticket=ticket, ratings=ratings):
            record = TicketRecord(ticket, list(ratings), entry.at, accepted={ticket.player_id})
            record.estimated_wait_s = estimate(state, record, entry.at)
            state.tickets[ticket.ticket_id] = record
            state.wait(record)
        case QueueLeft(ticket_id=ticket_id, player_id=player):
            state.tickets[ticket_id].state = "cancelled"
            state.tickets[ticket_id].cancelled_by = player
            state.end(ticket_id, entry.at)
        case PartyAccepted(ticket_id=ticket_id, player_id=player):
            state.tickets[ticket_id].accepted.add(player)
        case BlocksSet(player_id=player, blocks=blocks):
            state.blocks[player] = frozenset(blocks)
            for record in state.waiting():
                record.seen = None
        case PlayerOffline(player_id=player):
            state.offline[player] = entry.at
        case PlayerOnline(player_id=player):
            state.offline.pop(player, None)
        case QueueExpired(ticket_id=ticket_id):
            state.tickets[ticket_id].state = "expired"
            state.end(ticket_id, entry.at)
        case MatchMade():
            state.cycle = max(state.cycle, event.cycle)
            state.pending[event.match_id] = event
            for ticket_id in event.tickets:
                state.tickets[ticket_id].match_id = event.match_id
        case MatchStarted(match_id=match_id, table_id=table_id):
            made = state.pending.pop(match_id)
            for ticket_id in made.tickets:
                record = state.tickets[ticket_id]
                record.state, record.table_id, record.match_id = "matched", table_id, None
                record.seats = {
                    s.player_id: s.seat for s in made.players if s.ticket_id == ticket_id
                }
                state.end(ticket_id, entry.at)
        case MatchFailed(match_id=match_id):
            made = state.pending.pop(match_id)
            for ticket_id in made.tickets:
                state.tickets[ticket_id].match_id = None
        case _:
            raise TypeError(f"unknown matchmaking event {type(event).__name__}")


def fold(state: QueueState, entries: Iterable[QueueEntry]) -> QueueState:
    for entry in entries:
        evolve(state, entry)
    return state


def estimate(state: QueueState, record: TicketRecord, now: int) -> int:
    """A rough wait, in constant time: a few seconds if enough players of the ticket's
    pace and ratedness wait to fill its smallest table, else until bots (if welcome) or
    until the band takes anyone."""
    t = record.ticket
    others = state.players_waiting.get((t.pace, t.rated), 0)
    if len(t.players) + others >= max(t.seats_min, state.seat_range[0]):
        return 5
    wait = ANY_AFTER_S
    if record.ticket.bots_ok:
        wait = min(wait, record.ticket.bots_after_s)
    return int(wait)


# ---------------------------------------------------------------- decide


class Refused(Exception):
    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.message = message or QUEUE_REFUSALS.get(code, code)


Ratings = Callable[[list[str]], list[Rating]]


def decide(
    state: QueueState,
    command: QueueCommand,
    ratings: Ratings,
    *,
    elsewhere: TicketView | None = None,
    waiting_elsewhere: int = 0,
) -> tuple[list[QueueEvent], QueueAnswer]:
    """The events a command makes and its answer. ``elsewhere``: the ticket of that id
    in another game's queue, if any; ``waiting_elsewhere``: the player's waiting tickets
    in other games' queues."""
    try:
        events, ticket_id = _decide(state, command, ratings, elsewhere, waiting_elsewhere)
    except Refused as refusal:
        return [], QueueAnswer(
            command_id=command.command_id, ok=False, code=refusal.code, message=refusal.message
        )
    return events, QueueAnswer(command_id=command.command_id, ok=True, ticket_id=ticket_id)


def _decide(
    state: QueueState,
    command: QueueCommand,
    ratings: Ratings,
    elsewhere: TicketView | None,
    waiting_elsewhere: int,
) -> tuple[list[QueueEvent], str]:
    match command:
        case JoinQueue(ticket=ticket):
            return _join(state, command, ticket, ratings, elsewhere, waiting_elsewhere)
        case LeaveQueue(ticket_id=ticket_id, player_id=player):
            record = _ticket(state, ticket_id, player)
            if record.state != "waiting" or record.match_id is not None:
                return [], ticket_id  # already decided: nothing left to cancel
            return [QueueLeft(ticket_id=ticket_id, player_id=player)], ticket_id
        case AcceptTicket(ticket_id=ticket_id, player_id=player):
            record = _ticket(state, ticket_id, player)
            if player in record.accepted or record.state != "waiting":
                return [], ticket_id
            return [PartyAccepted(ticket_id=ticket_id, player_id=player)], ticket_id
        case SetBlocks(player_id=player, blocks=blocks):
            wanted = sorted(set(blocks) - {player})
            if frozenset(wanted) == state.blocks.get(player, frozenset()):
                return [], ""
            return [BlocksSet(player_id=player, blocks=wanted)], ""
    raise Refused("bad_ticket")


def _ticket(state: QueueState, ticket_id: str, player: str) -> TicketRecord:
    record = state.tickets.get(ticket_id)
    if record is None or player not in record.ticket.players:
        raise Refused("no_such_ticket")
    return record


def _join(
    state: QueueState,
    command: JoinQueue,
    ticket: Ticket,
    ratings: Ratings,
    elsewhere: TicketView | None,
    waiting_elsewhere: int,
) -> tuple[list[QueueEvent], str]:
    known = state.tickets.get(ticket.ticket_id)
    owner = known.ticket.player_id if known else elsewhere.player_id if elsewhere else None
    if owner is not None:
        if owner != command.player_id:
            raise Refused("ticket_taken")
        return [], ticket.ticket_id  # the same ticket again: as it is
    if ticket.player_id != command.player_id:
        raise Refused("bad_ticket")
    if ticket.game != state.game:
        raise Refused("unknown_game")
    low, high = state.seat_range
    if not low <= ticket.seats_min <= ticket.seats_max <= high:
        raise Refused("bad_seats")
    players = ticket.players
    if len(set(players)) != len(players) or len(ticket.party) > MAX_PARTY:
        raise Refused("bad_ticket", "a party has up to 4 other distinct players")
    if len(players) > ticket.seats_max or len(ticket.names) != len(players):
        raise Refused("bad_ticket", "the party does not fit the table, or a name is missing")
    if ticket.bots_after_s < MIN_BOTS_AFTER_S:
        raise Refused("bad_ticket", "bots_after_s is at least 1")
    mine = state.owners_waiting.get(command.player_id, 0)
    if mine + waiting_elsewhere >= MAX_WAITING_TICKETS:
        raise Refused("too_many_tickets")
    found = ratings(players)
    return [QueueJoined(ticket=ticket, ratings=found)], ticket.ticket_id


def presence(state: QueueState, online: set[str]) -> list[QueueEvent]:
    """Who went offline or came back, among the players of waiting realtime tickets."""
    events: list[QueueEvent] = []
    watched = sorted(
        {p for r in state.waiting() if r.ticket.pace == "realtime" for p in r.ticket.players}
    )
    for player in watched:
        if player not in online and player not in state.offline:
            events.append(PlayerOffline(player_id=player))
        elif player in online and player in state.offline:
            events.append(PlayerOnline(player_id=player))
    return events


def expiries(state: QueueState, now: int) -> list[QueueEvent]:
    """Tickets that expire at ``now``: a realtime ticket whose player has been offline
    ``offline_s``, a party ticket not accepted by all within ``PARTY_ACCEPT_S``."""
    events: list[QueueEvent] = []
    for record in state.waiting():
        if record.match_id is not None:
            continue
        reason = expiry_reason(state, record, now)
        if reason is not None:
            after_s = state.offline_s if reason == "offline" else 0.0
            events.append(
                QueueExpired(ticket_id=record.ticket.ticket_id, reason=reason, after_s=after_s)
            )
    return events


def expiry_reason(state: QueueState, record: TicketRecord, now: int) -> Any:
    if record.ticket.pace == "realtime":
        since = [state.offline[p] for p in record.ticket.players if p in state.offline]
        if since and now - min(since) >= state.offline_s * 1000:
            return "offline"
    if not record.ready and now - record.joined_at >= PARTY_ACCEPT_S * 1000:
        return "party"
    return None


def seat_order(prev: str, size: int) -> list[int]:
    """The seats of a match's table in the order its players take them: a shuffle
    seeded by the log's head before the match (recorded, so an audit gets the same)."""
    seats = list(range(size))
    random.Random(prev).shuffle(seats)
    return seats


def table_id_for(game: str, prev: str) -> str:
    return "m" + hashlib.sha256(f"{game}|{prev}".encode()).hexdigest()[:20]


def bot_level_for(ratings: list[float], bot_ratings: dict[str, float]) -> str:
    """The bots' level for a table of players rated ``ratings``: the rated level
    (``bot_ratings``: level -> rating) nearest their mean, the first of BOT_LEVELS on a
    tie; the default level when none is rated or no player is."""
    rated = [level for level in BOT_LEVELS if level in bot_ratings]
    if not rated or not ratings:
        return DEFAULT_BOT_LEVEL
    mean = sum(ratings) / len(ratings)
    return min(rated, key=lambda level: abs(bot_ratings[level] - mean))


def made(
    state: QueueState,
    group: Group,
    cycle: int,
    seq: int,
    prev: str,
    bot_ratings: dict[str, float] | msgspec.UnsetType = msgspec.UNSET,
) -> MatchMade:
    """The ``match.made`` event of a group, as the entry ``seq`` after ``prev``, its bots
    of the level nearest the players' ratings (``bot_ratings``: the rated levels'; UNSET
    re-derives a match logged before bots had levels)."""
    seats = seat_order(prev, group.seats)
    players: list[MatchSeat] = []
    options: dict[str, Any] = {}
    for waiting in group.tickets:
        record = state.tickets[waiting.ticket_id]
        options.update(record.ticket.options)
        for player, name, rating in zip(
            record.ticket.players, record.ticket.names, record.ratings, strict=True
        ):
            players.append(
                MatchSeat(
                    seat=seats[len(players)],
                    ticket_id=waiting.ticket_id,
                    player_id=player,
                    name=name,
                    mu=rating.mu,
                )
            )
    bots = sorted(seats[len(players) :])
    ratings = [s.mu for s in players if s.mu is not None]
    level: str | msgspec.UnsetType = msgspec.UNSET
    if bots and not isinstance(bot_ratings, msgspec.UnsetType):
        level = bot_level_for(ratings, bot_ratings)
    else:
        bot_ratings = msgspec.UNSET
    players.extend(
        MatchSeat(seat=s, name=f"Bot ({level})" if level else f"Bot {s + 1}") for s in bots
    )
    players.sort(key=lambda s: s.seat)
    first = state.tickets[group.tickets[0].ticket_id].ticket
    return MatchMade(
        match_id=f"{state.game}.{seq}",
        cycle=cycle,
        table_id=table_id_for(state.game, prev),
        seats=group.seats,
        options=options,
        pace=first.pace,
        rated=first.rated,
        tickets=list(group.ids()),
        players=players,
        bots=bots,
        ratings=ratings,
        spread=round(max(ratings) - min(ratings), 3) if ratings else 0.0,
        bot_ratings=bot_ratings,
        bot_level=level,
    )


def matches(state: QueueState, now: int) -> list[Group]:
    return match(state.pool(), now, state.seat_range)
