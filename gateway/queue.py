"""Quick play: the matchmaking queue (``/v1/queue…``) and a player's blocks
(``/v1/players/me/blocks…``).

The gateway never decides a ticket: it checks what it can (the game, the seats within
the game's range, the options against the game's own options type, the party's
accounts), adds what the matchmaker needs and may not read itself (display names; the
blocks of everyone on the ticket), sends the command to the game's queue stream
(``orrery_contracts.keys.queue_command_stream``) and waits for the matchmaker's answer
(``keys.queue_answer_key``); tickets are read where the matchmaker keeps them
(``keys.ticket_key``, ``keys.player_tickets_key``). A player's live socket
(``/v1/players/me/live``) keeps their presence flag (``keys.online_key``) that a realtime
ticket needs, and carries the ``matched`` notice.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import uuid
from typing import Annotated, Any, Literal

import msgspec
from litestar import delete, get, post
from litestar.openapi import ResponseSpec

from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.hosted import HostedGame
from gateway.models import ErrorBody, Struct
from gateway.relations import add_block, hidden_from, notify, remove_block
from orrery_contracts import keys
from orrery_contracts.matchmaking import (
    DEFAULT_BOTS_AFTER_S,
    MAX_PARTY,
    MIN_BOTS_AFTER_S,
    TICKET_ID_PATTERN,
    AcceptTicket,
    JoinQueue,
    LeaveQueue,
    QueueAnswer,
    QueueCommand,
    SetBlocks,
    Ticket,
    TicketStateName,
    TicketView,
    ticket_view_decoder,
)
from orrery_contracts.notices import PartyInvite

TICKET_ID = re.compile(TICKET_ID_PATTERN.removesuffix("$") + r"\Z")
PLAYER_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
MAX_BLOCKS = 500
ANSWER_POLL_S = 0.02
REFUSAL_STATUS = {"too_many_tickets": 409, "ticket_taken": 409, "no_such_ticket": 404}

_json = msgspec.json.Encoder()
_answer = msgspec.json.Decoder(QueueAnswer)

TicketId = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": TICKET_ID_PATTERN})]


class SeatRange(Struct, frozen=True, kw_only=True):
    min: int
    max: int


class QueueIn(Struct, frozen=True, kw_only=True):
    """A ticket: ``seats`` a count or a range; ``options`` the table must have (absent:
    any); ``party``: players seated with me, each confirming within 60 s."""

    game: str
    seats: int | SeatRange
    ticket_id: TicketId | None = None
    options: dict[str, Any] = {}
    rated: bool = True
    pace: Literal["realtime", "turn_based"] = "realtime"
    bots_ok: bool = False
    bots_after_s: Annotated[float, msgspec.Meta(ge=MIN_BOTS_AFTER_S, le=3600)] = (
        DEFAULT_BOTS_AFTER_S
    )
    party: Annotated[list[str], msgspec.Meta(max_length=MAX_PARTY)] = []


class QueueTicket(msgspec.Struct, frozen=True, kw_only=True):
    """A ticket as I see it: my ``seat`` at ``table_id`` once matched."""

    ticket_id: str
    game: str
    state: TicketStateName
    table_id: str | None
    seat: int | None
    pace: str
    owner: str
    party: list[str]
    accepted: list[str]
    estimated_wait_s: int


class QueueTickets(msgspec.Struct, frozen=True, kw_only=True):
    tickets: list[QueueTicket]


class BlockIn(Struct, frozen=True, kw_only=True):
    player_id: str


class Blocks(msgspec.Struct, frozen=True, kw_only=True):
    blocks: list[str]


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    described = {
        403: "blocked: a party member and I blocked one another",
        404: "no such ticket (or player)",
        409: "conflict (too many tickets, a ticket id that is another player's)",
        504: "no answer from the matchmaker in time: send the same ticket id again",
    }
    return {
        status: ResponseSpec(ErrorBody, description=described[status], generate_examples=False)
        for status in statuses
    }


class QueueService:
    def __init__(self, gateway: Gateway, games: dict[str, HostedGame]) -> None:
        self.gateway = gateway
        self.redis = gateway.client.redis
        self.games = games

    # ------------------------------------------------------------ tickets

    async def submit(self, player: str, data: QueueIn) -> QueueTicket:
        game = self.gateway.tables.check_game(data.game)
        low, high = self._seats(game, data.seats)
        self._check_options(game, data.options)
        party = list(data.party)
        if player in party or len(set(party)) != len(party):
            raise ApiError(422, "bad_party", "a party lists other players, each once")
        if len(party) + 1 > high:
            raise ApiError(422, "bad_party", "the party does not fit the table")
        names = []
        for member in [player, *party]:
            name = await self.gateway.accounts.name_of(member) if PLAYER_ID.match(member) else None
            if name is None:
                raise ApiError(422, "bad_party", "a party member has no account")
            names.append(name)
        hidden = await hidden_from(self.redis, player)
        if any(member in hidden for member in party):
            raise ApiError(403, "blocked", "a party member and you have blocked one another")
        blocked: set[str] = set()
        for member in [player, *party]:
            blocked |= {b.decode() for b in await self.redis.smembers(keys.blocks_key(member))}
        ticket = Ticket(
            ticket_id=data.ticket_id or "q" + secrets.token_hex(10),
            player_id=player,
            game=game,
            seats_min=low,
            seats_max=high,
            options=data.options,
            rated=data.rated,
            pace=data.pace,
            bots_ok=data.bots_ok,
            bots_after_s=data.bots_after_s,
            party=party,
            names=names,
            blocks=sorted(blocked),
        )
        command = JoinQueue(command_id=uuid.uuid4().hex, player_id=player, ticket=ticket)
        await self._ask(game, command)
        shown = await self.ticket(player, ticket.ticket_id)
        if shown.state == "waiting":  # each party member is invited on their notice stream
            invite = PartyInvite(
                player_id=player, name=names[0], ticket_id=ticket.ticket_id, game=game
            )
            for member in party:
                if member not in shown.accepted:
                    await notify(self.redis, member, invite)
        return shown

    def _seats(self, game: str, seats: int | SeatRange) -> tuple[int, int]:
        low, high = (seats, seats) if isinstance(seats, int) else (seats.min, seats.max)
        hosted = self.games.get(game)
        lowest, highest = (hosted.min_seats, hosted.max_seats) if hosted else (1, 5)
        if not lowest <= low <= high <= highest:
            raise ApiError(
                422, "bad_seats", f"seats are {lowest} to {highest} at this game (min <= max)"
            )
        return low, high

    def _check_options(self, game: str, options: dict[str, Any]) -> None:
        hosted = self.games.get(game)
        if hosted is None:
            return
        try:
            msgspec.convert(options, hosted.options_type)
        except msgspec.ValidationError as error:
            raise ApiError(422, "bad_options", f"bad options: {error}"[:200]) from None

    async def ticket(self, player: str, ticket_id: str) -> QueueTicket:
        if not TICKET_ID.match(ticket_id):
            raise ApiError(404, "no_such_ticket", "no such ticket")
        raw = await self.redis.get(keys.ticket_key(ticket_id))
        view = ticket_view_decoder.decode(raw) if raw else None
        if view is None or not self._visible(view, player):
            raise ApiError(404, "no_such_ticket", "no such ticket")
        return self._shown(view, player)

    @staticmethod
    def _visible(view: TicketView, player: str) -> bool:
        if player != view.player_id and player not in view.party:
            return False
        # a ticket I cancelled is gone for me; the others on it see it cancelled
        return not (view.state == "cancelled" and view.cancelled_by == player)

    @staticmethod
    def _shown(view: TicketView, player: str) -> QueueTicket:
        return QueueTicket(
            ticket_id=view.ticket_id,
            game=view.game,
            state=view.state,
            table_id=view.table_id,
            seat=view.seats.get(player),
            pace=view.pace,
            owner=view.player_id,
            party=view.party,
            accepted=view.accepted,
            estimated_wait_s=view.estimated_wait_s,
        )

    async def mine(self, player: str) -> QueueTickets:
        ids = await self.redis.zrevrange(keys.player_tickets_key(player), 0, 99)
        if not ids:
            return QueueTickets(tickets=[])
        raws = await self.redis.mget([keys.ticket_key(i.decode()) for i in ids])
        views = [ticket_view_decoder.decode(raw) for raw in raws if raw]
        return QueueTickets(
            tickets=[self._shown(v, player) for v in views if self._visible(v, player)]
        )

    async def cancel(self, player: str, ticket_id: str) -> None:
        shown = await self.ticket(player, ticket_id)
        command = LeaveQueue(command_id=uuid.uuid4().hex, player_id=player, ticket_id=ticket_id)
        await self._ask(shown.game, command)

    async def accept(self, player: str, ticket_id: str) -> QueueTicket:
        shown = await self.ticket(player, ticket_id)
        if player not in shown.party:
            raise ApiError(409, "not_in_party", "only a party member accepts a ticket")
        command = AcceptTicket(command_id=uuid.uuid4().hex, player_id=player, ticket_id=ticket_id)
        await self._ask(shown.game, command)
        return await self.ticket(player, ticket_id)

    async def _ask(self, game: str, command: QueueCommand) -> None:
        """Send a command to the game's matchmaker and wait for its answer; a refusal
        is an :class:`ApiError` with the matchmaker's code."""
        await self.redis.xadd(
            keys.queue_command_stream(game),
            {"__data__": _json.encode(command)},
            maxlen=100_000,
            approximate=True,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.gateway.settings.command_timeout_s
        key = keys.queue_answer_key(command.command_id)
        while True:
            raw = await self.redis.get(key)
            if raw is not None:
                break
            if loop.time() > deadline:
                raise ApiError(
                    504, "outcome_timeout", "no answer from the matchmaker in time; try again"
                )
            await asyncio.sleep(ANSWER_POLL_S)
        answer = _answer.decode(raw)
        if not answer.ok:
            status = REFUSAL_STATUS.get(answer.code, 422)
            raise ApiError(status, answer.code, answer.message)

    # ------------------------------------------------------------ blocks

    async def blocks(self, player: str) -> Blocks:
        found = await self.redis.smembers(keys.blocks_key(player))
        return Blocks(blocks=sorted(b.decode() for b in found))

    async def block(self, player: str, other: str) -> Blocks:
        if other == player:
            raise ApiError(422, "bad_block", "you cannot block yourself")
        if not PLAYER_ID.match(other) or await self.gateway.accounts.name_of(other) is None:
            raise ApiError(404, "no_such_player", "no such player")
        current = await self.blocks(player)
        if other not in current.blocks and len(current.blocks) >= MAX_BLOCKS:
            raise ApiError(409, "too_many_blocks", f"at most {MAX_BLOCKS} blocked players")
        await add_block(self.redis, player, other)  # and no friendship left between them
        return await self._tell(player)

    async def unblock(self, player: str, other: str) -> None:
        """Idempotent: a player not blocked stays so."""
        if await remove_block(self.redis, player, other):
            await self._tell(player)

    async def _tell(self, player: str) -> Blocks:
        """Every game's matchmaker learns the player's whole block list (its tickets
        waiting now follow it)."""
        blocks = await self.blocks(player)
        for game in self.games or self.gateway.tables.games:
            command = SetBlocks(command_id=uuid.uuid4().hex, player_id=player, blocks=blocks.blocks)
            await self.redis.xadd(
                keys.queue_command_stream(game),
                {"__data__": _json.encode(command)},
                maxlen=100_000,
                approximate=True,
            )
        return blocks


_services: dict[int, QueueService] = {}


def install(gateway: Gateway, games: Any) -> None:
    """The queue of a gateway (``games``: the games it hosts, gateway.hosted)."""
    _services[id(gateway)] = QueueService(gateway, {g.name: g for g in games})


def service(gateway: Gateway) -> QueueService:
    found = _services.get(id(gateway))
    if found is None:
        found = _services[id(gateway)] = QueueService(gateway, {})
    return found


# ---------------------------------------------------------------- routes


@post(
    "/queue",
    status_code=201,
    responses=_errors(403, 404, 409, 504),
    operation_id="joinQueue",
    tags=["queue"],
)
async def join_queue(data: QueueIn, player: str, gateway: Gateway) -> QueueTicket:
    """Queue for a game: the matchmaker seats me at a started table of players near my
    rating (bots after ``bots_after_s`` with ``bots_ok``); the same ``ticket_id`` again is
    the same ticket. A ``realtime`` ticket expires 30 s after my last live socket
    closes; a ``turn_based`` one waits while I am away (10 waiting tickets at most)."""
    return await service(gateway).submit(player, data)


@get("/queue", operation_id="listQueue", tags=["queue"])
async def list_queue(player: str, gateway: Gateway) -> QueueTickets:
    """My tickets (and those of parties I am in), newest first."""
    return await service(gateway).mine(player)


@get("/queue/{ticket_id:str}", responses=_errors(404), operation_id="getTicket", tags=["queue"])
async def get_ticket(ticket_id: str, player: str, gateway: Gateway) -> QueueTicket:
    """One of my tickets: ``waiting``, ``matched`` (with the table and my seat),
    ``cancelled`` (by another player on it) or ``expired``."""
    return await service(gateway).ticket(player, ticket_id)


@delete(
    "/queue/{ticket_id:str}",
    status_code=204,
    responses=_errors(404, 504),
    operation_id="cancelTicket",
    tags=["queue"],
)
async def cancel_ticket(ticket_id: str, player: str, gateway: Gateway) -> None:
    """Leave the queue (a ticket already matched stays matched)."""
    await service(gateway).cancel(player, ticket_id)


@post(
    "/queue/{ticket_id:str}/accept",
    status_code=200,
    responses=_errors(404, 409, 504),
    operation_id="acceptTicket",
    tags=["queue"],
)
async def accept_ticket(ticket_id: str, player: str, gateway: Gateway) -> QueueTicket:
    """Confirm my place in a party's ticket (within 60 s of its queueing)."""
    return await service(gateway).accept(player, ticket_id)


@get("/players/me/blocks", operation_id="listBlocks", tags=["players"])
async def list_blocks(player: str, gateway: Gateway) -> Blocks:
    """The players I never sit with at a matched table."""
    return await service(gateway).blocks(player)


@post(
    "/players/me/blocks",
    status_code=200,
    responses=_errors(404, 409),
    operation_id="blockPlayer",
    tags=["players"],
)
async def block_player(data: BlockIn, player: str, gateway: Gateway) -> Blocks:
    """Never be matched with this player (my waiting tickets too)."""
    return await service(gateway).block(player, data.player_id)


@delete(
    "/players/me/blocks/{player_id:str}",
    status_code=204,
    operation_id="unblockPlayer",
    tags=["players"],
)
async def unblock_player(player_id: str, player: str, gateway: Gateway) -> None:
    """Take a player off my blocks (done already if they were not on it)."""
    await service(gateway).unblock(player, player_id)


QUEUE_ROUTES = [
    join_queue,
    list_queue,
    get_ticket,
    cancel_ticket,
    accept_ticket,
    list_blocks,
    block_player,
    unblock_player,
]
