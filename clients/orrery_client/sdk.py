"""An async Python SDK for Orrery over Redis Streams.

``submit`` sends a command envelope to its table's partition stream and awaits the
outcome on this client's reply stream (``orrery:reply:<prefix>:<random>``: capped by the
service and expiring when idle); on a timeout it sends the *same* command id again, so a
retry is never applied twice. ``join`` chooses the seat's secret here, on the client
(:func:`new_seat_token`): the service keeps only its hash and never sends it back. Views
are read from the projections and ``watch`` blocks on a table's updates stream.

Restarts and cluster failovers: every call rides out a lost connection for up to
``retry_for`` seconds (the cluster client refreshes its slot map after an error, so it
finds the promoted replica); ``watch`` yields any view that differs from the last one,
so a table whose newest unconfirmed events a failover lost moves on from the view the
promoted replica has.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import ClusterDownError, NoPermissionError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException as ClusterUnreachable
from redis.exceptions import TimeoutError as RedisTimeoutError

from orrery_client.cluster import read_stream_keys_locally
from orrery_client.table_watch import TableWatch
from orrery_contracts import keys
from orrery_contracts.chat import MAX_HISTORY, ChatMessage, SayChat, history
from orrery_contracts.envelope import (
    REPLY_PREFIX,
    Accepted,
    CommandEnvelope,
    Duplicate,
    Outcome,
    Rejection,
)
from orrery_contracts.identity import seat_secret
from orrery_contracts.lobby import LobbyTable, lobby_list_key, lobby_table_decoder, lobby_table_key
from orrery_contracts.matchmaking import (
    AcceptTicket,
    JoinQueue,
    LeaveQueue,
    QueueAnswer,
    Ticket,
    TicketView,
    ticket_view_decoder,
)
from orrery_contracts.table import CreateTable, JoinRequest, LeaveTable, StartTable, UndoTable
from orrery_contracts.text import as_text
from orrery_contracts.tournaments import (
    CreateTournament,
    RegisterPlayer,
    StartTournament,
    TournamentSpec,
    TournamentView,
    tournament_answer_decoder,
    tournament_view_decoder,
)
from orrery_contracts.views import TableView

_json = msgspec.json.Encoder()
_outcome = msgspec.json.Decoder(Outcome)


class CommandRejected(Exception):
    def __init__(self, rejection: Rejection) -> None:
        super().__init__(f"{rejection.code}: {rejection.message}")
        self.rejection = rejection
        self.code = rejection.code


class QueueRefused(Exception):
    """The matchmaker refused a ticket command (``code``: too_many_tickets, …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class TournamentRefused(Exception):
    """The tournament organiser refused a command (``code``: tournament_full, …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class TicketEnded(Exception):
    """The ticket expired or was cancelled before it was matched."""

    def __init__(self, ticket: TicketView) -> None:
        super().__init__(f"ticket {ticket.ticket_id} {ticket.state}")
        self.ticket = ticket


V = TypeVar("V")
_queue_answer = msgspec.json.Decoder(QueueAnswer)


@dataclass(frozen=True, slots=True)
class Played:
    """A command's outcome and the seat's view that includes it."""

    outcome: Accepted | Rejection
    view: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatCredentials:
    """What acts for a seat: the table, the seat number and the seat's secret (keep it to
    resume; the service keeps only its hash)."""

    table_id: str
    seat: int
    token: str


def new_seat_token() -> str:
    """A fresh seat secret: 192 random bits, URL-safe (the service needs at least 128)."""
    return secrets.token_urlsafe(24)


def settled(outcome: Outcome) -> Accepted | Rejection:
    """The outcome that counts: a duplicate carries the first answer."""
    return outcome.original if isinstance(outcome, Duplicate) else outcome


# Connection loss (a restart, a failover): wait a moment and go on (same command ids).
# ClusterUnreachable: no startup node answered, or the slot map was not complete yet;
# AttributeError: redis-py's asyncio cluster client can close a connection under a
# command while it refreshes the topology during a failover.
_TRANSIENT = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    TryAgainError,
    ClusterUnreachable,
    AttributeError,
)
_PAUSE = 0.25
RETRY_FOR_S = 30.0
# A reply stream's read: blocks 0.2 s at most, so a closing client's reader stops soon.
_REPLY_READ: dict[str, Any] = {"block": 200, "count": 100}

_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def _cluster_nodes(url: str) -> tuple[str, list[tuple[str, int]]] | None:
    """``(first node URL, nodes)`` for ``redis+cluster://h:p,h:p`` or a node list, else None."""
    scheme, _, rest = url.partition("://")
    netloc = rest.split("/", 1)[0]
    userinfo, _, hosts = netloc.rpartition("@")
    nodes = []
    for item in filter(None, hosts.split(",")):
        host, _, port = item.rpartition(":")
        nodes.append((host or item, int(port) if host else 6379))
    if scheme not in _CLUSTER_SCHEMES and len(nodes) < 2:
        return None
    auth = f"{userinfo}@" if userinfo else ""
    first = f"{_CLUSTER_SCHEMES.get(scheme, scheme)}://{auth}{nodes[0][0]}:{nodes[0][1]}"
    return first, nodes


def _cluster_client(first_url: str, nodes: list[tuple[str, int]]) -> Any:
    base = aioredis.Redis.from_url(first_url).connection_pool.connection_kwargs
    auth = {k: base[k] for k in ("username", "password") if base.get(k)}
    if first_url.startswith("rediss:"):
        auth["ssl"] = True
    client = RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in nodes], **auth)
    return read_stream_keys_locally(client)


class OrreryClient:
    """Works against a standalone server or a Redis/Valkey Cluster: give a
    ``redis+cluster://h1:p1,h2:p2`` URL (or a node list), or any node's plain URL (the
    client asks ``INFO cluster`` when it connects)."""

    def __init__(
        self, redis_url: str, *, reply_stream: str | None = None, reply_prefix: str = "sdk"
    ) -> None:
        cluster = _cluster_nodes(redis_url)
        self.redis: Any = (
            _cluster_client(*cluster) if cluster else aioredis.Redis.from_url(redis_url)
        )
        # An app with its own Redis user may only use its own prefix (docs/security.md).
        self.reply_stream = reply_stream or f"{REPLY_PREFIX}{reply_prefix}:{uuid.uuid4().hex}"
        self.partitions = 0
        # how long a call rides out a lost connection (a restart, a failover)
        self.retry_for = RETRY_FOR_S
        self._waiting: dict[str, asyncio.Future[Outcome]] = {}
        # reply stream -> the commands still waiting for an answer there: the one stream
        # on a server, one per partition on a cluster (see reply_stream_for)
        self._awaiting: dict[str, set[str]] = {}
        # reply stream -> its reader while one reads it (None: the first read rides with
        # a command, see _send_and_read), and the id of the last answer read there
        self._readers: dict[str, asyncio.Task[None] | None] = {}
        self._read_up_to: dict[str, str] = {}
        # table id -> the one reader of its updates for every seat watched here
        self._watches: dict[str, TableWatch] = {}
        self._closing = False

    async def __aenter__(self) -> OrreryClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self, timeout: float = 30.0) -> None:
        """Read the partition count (waiting for the service to initialise it)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if isinstance(self.redis, aioredis.Redis):
            try:
                info = await self.redis.info("cluster")
            except NoPermissionError:
                info = {}  # an app user may not run INFO: name a cluster by its URL instead
            if int(info.get("cluster_enabled", 0)):  # one node of a cluster: use them all
                plain, kwargs = self.redis, self.redis.connection_pool.connection_kwargs
                node = ClusterNode(str(kwargs.get("host")), int(kwargs.get("port") or 6379))
                auth = {k: kwargs[k] for k in ("username", "password") if kwargs.get(k)}
                self.redis = read_stream_keys_locally(RedisCluster(startup_nodes=[node], **auth))
                await plain.aclose()
        while True:
            stored = await self.redis.hget(keys.CONFIG_KEY, "partitions")
            if stored is not None:
                self.partitions = int(stored)
                break
            if loop.time() > deadline:
                raise TimeoutError("the service has not initialised orrery:config")
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        # A reader stops at its next poll: cancelling a blocked XREAD can leave
        # redis-py's connection hanging.
        self._closing = True
        for reader in list(self._readers.values()):
            if reader is not None:
                with contextlib.suppress(Exception):
                    await reader
        for watch in list(self._watches.values()):
            await watch.stop()
        for stream in self._read_up_to:
            with contextlib.suppress(Exception):
                await self.redis.delete(stream)  # (one by one: a cluster's are in several slots)
        await self.redis.aclose()

    def partition(self, table_id: str) -> int:
        """The partition of ``table_id`` (its keys carry ``{p}``)."""
        return keys.partition_of(table_id, self.partitions)

    # ------------------------------------------------------------ commands

    async def submit(
        self,
        table_id: str,
        body: Any,
        *,
        seat: int | None = None,
        token: str | None = None,
        command_id: str | None = None,
        timeout: float = 10.0,
        attempts: int = 3,
    ) -> Accepted | Rejection:
        """Send a command and await its outcome, retrying with the same command id."""
        outcome, _ = await self.exchange(
            table_id,
            body,
            seat=seat,
            token=token,
            command_id=command_id or uuid.uuid4().hex,
            timeout=timeout,
            attempts=attempts,
        )
        return settled(outcome)

    async def exchange(
        self,
        table_id: str,
        body: Any,
        *,
        command_id: str,
        seat: int | None = None,
        token: str | None = None,
        identity: str | None = None,
        timeout: float = 10.0,
        attempts: int = 3,
    ) -> tuple[Outcome, int]:
        """Send the envelope and await its outcome as sent (a duplicate stays one), resending
        the same command id after each ``timeout``; returns it with the attempt (0-based)
        that got it. Raises ``TimeoutError`` after the last attempt."""
        reply_to = self.reply_stream_for(table_id)
        data = _json.encode(
            CommandEnvelope(
                command_id=command_id,
                table_id=table_id,
                body=msgspec.Raw(_json.encode(body)),
                seat=seat,
                token=token,
                reply_to=reply_to,
                identity=identity,
            )
        )
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._waiting[command_id] = future
        self._awaiting.setdefault(reply_to, set()).add(command_id)
        try:
            for attempt in range(attempts):
                command_stream = keys.command_stream(self.partition(table_id))
                await self._send(command_stream, data, timeout, reply_to)
                try:
                    return await asyncio.wait_for(asyncio.shield(future), timeout), attempt
                except TimeoutError:
                    if attempt == attempts - 1:
                        raise
            raise AssertionError("unreachable")
        finally:
            self._waiting.pop(command_id, None)
            self._no_longer_awaited(reply_to, command_id)

    async def _send(self, stream: str, data: bytes, timeout: float, reply_to: str) -> None:
        """XADD, retried while the server is unreachable (restart, failover); when no
        reader reads ``reply_to``, the XADD carries that reader's first read."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, self.retry_for)
        while True:
            try:
                if reply_to in self._readers:
                    await self.redis.xadd(stream, {"__data__": data})
                else:
                    await self._send_and_read(stream, data, reply_to)
                return
            except _TRANSIENT:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(_PAUSE)

    async def _send_and_read(self, stream: str, data: bytes, reply_to: str) -> None:
        """The XADD and a blocking read of its reply stream in one round trip: the server
        runs the read as soon as the XADD is done and answers both when the outcome
        lands (or after the block). A reply stream is read only while a command waits
        for an answer there, so a client whose commands follow each other (a bot, a
        player) makes one round trip per command, not two (its XADD, then its
        reader's next read). On a cluster both keys are in the table's slot.
        Commands sent meanwhile to the same reply stream go alone: this read, then
        the reader it hands over to, brings their answers too."""
        self._readers[reply_to] = None
        try:
            pipe = self.redis.pipeline(transaction=False)
            pipe.xadd(stream, {"__data__": data})
            pipe.xread({reply_to: self._read_up_to.setdefault(reply_to, "0-0")}, **_REPLY_READ)
            _, replies = await pipe.execute()
            self._dispatch(reply_to, replies)
        finally:
            self._read_on(reply_to)

    def _read_on(self, stream: str) -> None:
        """Go on reading ``stream`` in a task while commands wait for answers there."""
        if self._awaiting.get(stream) and not self._closing:
            self._readers[stream] = asyncio.create_task(self._read_replies(stream))
        else:
            self._readers.pop(stream, None)

    def _no_longer_awaited(self, stream: str, command_id: str) -> None:
        waiting = self._awaiting.get(stream)
        if waiting is not None:
            waiting.discard(command_id)
            if not waiting:
                del self._awaiting[stream]

    async def _retrying(self, call: Any) -> Any:
        """``await call()``, retried while the server is unreachable (``retry_for`` s)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.retry_for
        while True:
            try:
                return await call()
            except _TRANSIENT:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(_PAUSE)

    def reply_stream_for(self, table_id: str) -> str:
        """Where the table's outcomes come. On a cluster, a reply stream in the table's
        partition's hash slot (``<reply_stream>:{p}``): the append, whose keys are in
        that slot, then writes the answer in its script, one round trip less per command
        (docs/scaling.md), and the command's XADD and the read of its answer go to one
        node together (:meth:`_send_and_read`). On one server, the one stream."""
        if not isinstance(self.redis, RedisCluster):
            return self.reply_stream
        return f"{self.reply_stream}:{{{self.partition(table_id)}}}"

    async def _read_replies(self, stream: str) -> None:
        """Read ``stream``'s answers while commands wait for them (then stop: the next
        command's XADD carries the next read)."""
        try:
            while self._awaiting.get(stream) and not self._closing:
                try:
                    replies = await self.redis.xread(
                        {stream: self._read_up_to[stream]}, **_REPLY_READ
                    )
                except _TRANSIENT:
                    await asyncio.sleep(_PAUSE)
                    continue
                self._dispatch(stream, replies)
        finally:
            if self._readers.get(stream) is asyncio.current_task():
                del self._readers[stream]

    def _dispatch(self, stream: str, replies: Any) -> None:
        """Hand each answer read to the command waiting for it (answers to no waiting
        command, e.g. a resent one's duplicate, are skipped)."""
        for _, entries in replies or ():
            for entry_id, fields in entries:
                self._read_up_to[stream] = entry_id
                try:
                    outcome = _outcome.decode(fields[b"__data__"])
                except msgspec.DecodeError:
                    continue
                future = self._waiting.get(outcome.command_id)
                if future is not None and not future.done():
                    future.set_result(outcome)
                    self._no_longer_awaited(stream, outcome.command_id)

    async def accept(self, table_id: str, body: Any, **kwargs: Any) -> Accepted:
        """Submit and raise :class:`CommandRejected` unless accepted."""
        outcome = await self.submit(table_id, body, **kwargs)
        if isinstance(outcome, Rejection):
            raise CommandRejected(outcome)
        return outcome

    async def create_table(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        table_id: str | None = None,
    ) -> str:
        """Create a table of ``game`` with ``seats`` seats (and the game's ``options``);
        returns its id (``table_id``, or a fresh one). Raises :class:`CommandRejected`."""
        table_id = table_id or uuid.uuid4().hex[:16]
        await self.accept(table_id, CreateTable(game=game, seats=seats, options=options or {}))
        return table_id

    async def join(
        self, table_id: str, name: str, seat: int | None = None, *, token: str | None = None
    ) -> SeatCredentials:
        """Take a seat with a secret chosen here (or ``token``); keep the credentials to
        act for the seat, and to resume after a restart."""
        token = token or new_seat_token()
        accepted = await self.accept(table_id, JoinRequest(name=name, seat=seat), token=token)
        assert accepted.seat is not None
        return SeatCredentials(table_id, accepted.seat, token)

    async def start(self, seat: SeatCredentials) -> Accepted:
        """Start the table (every seat must be taken). Raises :class:`CommandRejected`."""
        return await self.accept(seat.table_id, StartTable(), seat=seat.seat, token=seat.token)

    async def leave(self, seat: SeatCredentials) -> Accepted:
        """Leave: before the start the seat opens again; after it the seat concedes."""
        return await self.accept(seat.table_id, LeaveTable(), seat=seat.seat, token=seat.token)

    async def play(self, seat: SeatCredentials, body: Any) -> Accepted | Rejection:
        """Send a game command for ``seat``; returns its outcome (never raises on a
        rejection: a rejection is an answer)."""
        return await self.submit(seat.table_id, body, seat=seat.seat, token=seat.token)

    async def undo(self, seat: SeatCredentials, to_seq: int | None = None) -> Accepted | Rejection:
        """Take back the seat's own moves of its current turn (``table.undo``): back to
        ``to_seq``, or (None) to before its last command. A refusal is ``undo_blocked``
        with ``detail["reason"]``; offered in a view's ``legal`` exactly when accepted."""
        return await self.play(seat, UndoTable(to_seq=to_seq))

    async def say(self, seat: SeatCredentials, text: str) -> Accepted | Rejection:
        """Post ``text`` to the table's chat as the seat (``accepted.chat_id`` is the
        message's id; ``rate_limited``, ``bad_text`` are answers, not errors)."""
        return await self.play(seat, SayChat(text=text))

    async def chat(
        self, table_id: str, after: str | None = None, limit: int = 100
    ) -> list[ChatMessage]:
        """The table's chat, oldest first, after message id ``after``; a message an
        operator deleted is its marker (``deleted``). Read from Redis: an archived
        table's chat moved to the archive with it (``GET /v1/tables/{id}/chat``)."""
        key = keys.chat_stream(self.partition(table_id), table_id)
        entries = await self._retrying(lambda: self.redis.xrange(key, count=MAX_HISTORY * 2))
        return history(entries, after, limit)

    async def play_and_view(
        self, seat: SeatCredentials, body: Any, timeout: float = 30.0
    ) -> Played:
        """Send a game command and return its outcome with the seat's view that includes
        it (after an accepted command the view is the one at ``last_seq`` or later, never
        an older one; after a rejection, the current view)."""
        outcome = await self.play(seat, body)
        if isinstance(outcome, Accepted):
            view = await self.wait_view(seat.table_id, seat.seat, outcome.last_seq, timeout)
        else:
            view = await self.view(seat.table_id, seat.seat) or {}
        return Played(outcome, view)

    # ------------------------------------------------------------ reading

    async def view(self, table_id: str, seat: int | None = None) -> dict[str, Any] | None:
        """The table as ``seat`` (None: a spectator) sees it, as decoded JSON."""
        key = keys.view_key(self.partition(table_id), table_id, seat)
        raw = await self._retrying(lambda: self.redis.get(key))
        return None if raw is None else msgspec.json.decode(raw)

    async def typed_view(
        self, table_id: str, seat: int | None, view_type: type[V]
    ) -> TableView[V, Any] | None:
        """The view decoded into the contract's Structs: ``view_type`` is the game's view
        (e.g. ``orrery_contracts.spacecraft.views.SpacecraftView``), so a typo in a field name is
        a type error, not a ``KeyError`` at run time."""
        key = keys.view_key(self.partition(table_id), table_id, seat)
        raw = await self._retrying(lambda: self.redis.get(key))
        if raw is None:
            return None
        typed: TableView[V, Any] = msgspec.json.decode(raw, type=TableView[view_type, Any])  # type: ignore[valid-type]
        return typed

    async def score(self, table_id: str) -> dict[str, Any] | None:
        """The table's live (or final) scores and ranks, as decoded JSON (a
        ``TableScore``): ``lines`` holds one line per seat first, in seat order, then one
        per built-in opponent (``ai`` true; Fractured Sky's AIs in 1-2 player games),
        ranked among the seats as in the view's ``standings``."""
        key = keys.score_key(self.partition(table_id), table_id)
        raw = await self._retrying(lambda: self.redis.get(key))
        return None if raw is None else msgspec.json.decode(raw)

    async def archived(self, table_id: str) -> dict[str, str] | None:
        """The tombstone of a table that ended and moved from Redis to the archive
        (``head``: its last hash, ``finished`` and ``archived``: unix ms), or None. An
        archived table has no views or score in Redis any more, and every command to it
        is answered ``game_over``; its history is read through the gateway (``GET
        /v1/tables/{id}/replay``) or ``orrery replay|export``."""
        key = keys.tombstone_key(self.partition(table_id), table_id)
        found = await self._retrying(lambda: self.redis.hgetall(key))
        return {as_text(k): as_text(v) for k, v in found.items()} or None

    async def tables(
        self, state: str = "open", game: str | None = None, limit: int = 20
    ) -> list[LobbyTable]:
        """The lobby: listed tables in ``state`` (open | playing | finished | closed), of
        ``game`` or of every game, newest first. Private tables are never listed."""
        key = lobby_list_key(state, game)
        members = await self._retrying(
            lambda: self.redis.zrevrangebylex(key, "+", "-", start=0, num=limit)
        )
        table_ids = [as_text(m).split(":", 1)[1] for m in members]
        if not table_ids:
            return []
        raws = await self._retrying(
            lambda: self.redis.mget([lobby_table_key(t) for t in table_ids])
        )
        return [lobby_table_decoder.decode(raw) for raw in raws if raw]

    async def leaderboard(self, game: str, limit: int = 20) -> list[tuple[str, float]]:
        """``(player_id, rating)`` of the game's rated players, best first (verified players
        only: ratings follow the player ids a gateway vouched for)."""
        key = keys.leaderboard_key(game)
        rows = await self._retrying(
            lambda: self.redis.zrevrange(key, 0, limit - 1, withscores=True)
        )
        return [(as_text(player), float(score)) for player, score in rows]

    # ------------------------------------------------------------ quick play

    async def queue(
        self,
        game: str,
        player_id: str,
        name: str,
        *,
        seats: int | tuple[int, int] = 2,
        options: dict[str, Any] | None = None,
        rated: bool = True,
        pace: str = "turn_based",
        bots_ok: bool = False,
        bots_after_s: float = 60.0,
        party: dict[str, str] | None = None,
        blocks: list[str] | None = None,
        ticket_id: str | None = None,
        timeout: float = 10.0,
    ) -> str:
        """Queue a ticket for ``player_id`` (a player this app vouches for: the
        matchmaker seats them under that id, rated) and wait for the matchmaker to take
        it; the ticket id (``ticket_id`` again: the same ticket). ``seats``: a count or
        (min, max); ``party``: the other players (id -> name), each to :meth:`accept`;
        a refusal raises :class:`QueueRefused`. The gateway checks games, seats and
        options first; here the matchmaker's own checks are all there is. A ``realtime``
        ticket waits only while its player has a live socket on a gateway (their
        presence): an app queues ``turn_based`` ones (the default)."""
        low, high = (seats, seats) if isinstance(seats, int) else seats
        members = party or {}
        ticket = msgspec.convert(
            {
                "ticket_id": ticket_id or "q" + secrets.token_hex(10),
                "player_id": player_id,
                "game": game,
                "seats_min": low,
                "seats_max": high,
                "options": options or {},
                "rated": rated,
                "pace": pace,
                "bots_ok": bots_ok,
                "bots_after_s": bots_after_s,
                "party": list(members),
                "names": [name, *members.values()],
                "blocks": blocks or [],
            },
            Ticket,
        )
        command = JoinQueue(command_id=uuid.uuid4().hex, player_id=player_id, ticket=ticket)
        await self._queue_command(game, command, timeout)
        return ticket.ticket_id

    async def accept_ticket(self, ticket_id: str, player_id: str, timeout: float = 10.0) -> None:
        """A party member confirms their place on a ticket."""
        ticket = await self._known_ticket(ticket_id)
        command = AcceptTicket(
            command_id=uuid.uuid4().hex, player_id=player_id, ticket_id=ticket_id
        )
        await self._queue_command(ticket.game, command, timeout)

    async def cancel_ticket(self, ticket_id: str, player_id: str, timeout: float = 10.0) -> None:
        """Take a waiting ticket out of the queue (a matched one stays matched)."""
        ticket = await self._known_ticket(ticket_id)
        command = LeaveQueue(command_id=uuid.uuid4().hex, player_id=player_id, ticket_id=ticket_id)
        await self._queue_command(ticket.game, command, timeout)

    async def ticket(self, ticket_id: str) -> TicketView | None:
        """The ticket as the matchmaker keeps it (None: no such ticket, or long ended)."""
        raw = await self._retrying(lambda: self.redis.get(keys.ticket_key(ticket_id)))
        return ticket_view_decoder.decode(raw) if raw else None

    async def matched(
        self,
        ticket_id: str,
        player_id: str,
        *,
        secret_key: str | None = None,
        timeout: float = 120.0,
    ) -> SeatCredentials:
        """Wait until the ticket is matched; the player's seat at the started table. The
        matchmaker derives each seat's secret from the server key (as the gateway does):
        with ``secret_key`` (``$ORRERY_SECRET_KEY``) the credentials carry it and play
        the seat, without it their ``token`` is empty. An expired or cancelled ticket
        raises :class:`TicketEnded`; no match in ``timeout`` raises TimeoutError."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            ticket = await self.ticket(ticket_id)
            if ticket is not None and ticket.state == "matched" and ticket.table_id:
                seat = ticket.seats[player_id]
                token = (
                    seat_secret(secret_key, ticket.table_id, seat, player_id) if secret_key else ""
                )
                return SeatCredentials(ticket.table_id, seat, token)
            if ticket is not None and ticket.state in ("expired", "cancelled"):
                raise TicketEnded(ticket)
            if loop.time() > deadline:
                raise TimeoutError(f"ticket {ticket_id} not matched in {timeout:g} s")
            await asyncio.sleep(0.1)

    async def _known_ticket(self, ticket_id: str) -> TicketView:
        ticket = await self.ticket(ticket_id)
        if ticket is None:
            raise QueueRefused("no_such_ticket", "no such ticket")
        return ticket

    async def _queue_command(self, game: str, command: Any, timeout: float) -> None:
        stream = keys.queue_command_stream(game)
        data = {"__data__": _json.encode(command)}
        await self._retrying(lambda: self.redis.xadd(stream, data))
        key = keys.queue_answer_key(command.command_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            raw = await self._retrying(lambda: self.redis.get(key))
            if raw is not None:
                answer = _queue_answer.decode(raw)
                if not answer.ok:
                    raise QueueRefused(answer.code, answer.message)
                return
            if loop.time() > deadline:
                raise TimeoutError("no answer from a matchmaker (is one running?)")
            await asyncio.sleep(0.02)

    # ------------------------------------------------------------ tournaments

    async def create_tournament(
        self, organiser: str, spec: dict[str, Any], *, timeout: float = 10.0
    ) -> str:
        """Create a tournament organised by ``organiser`` (a player id this app vouches
        for, or "operator"); ``spec`` as ``POST /v1/tournaments``'s body. Its id."""
        tournament_id = "tn" + secrets.token_hex(8)
        command = CreateTournament(
            command_id=uuid.uuid4().hex,
            tournament_id=tournament_id,
            organiser=organiser,
            spec=msgspec.convert(spec, TournamentSpec),
        )
        await self._tournament_command(command, timeout)
        return tournament_id

    async def register_tournament(
        self,
        tournament_id: str,
        player_id: str,
        name: str,
        *,
        withdraw: bool = False,
        timeout: float = 10.0,
    ) -> None:
        """Enter ``player_id`` (``withdraw``: take them out; after the start they
        forfeit what is left)."""
        command = RegisterPlayer(
            command_id=uuid.uuid4().hex,
            tournament_id=tournament_id,
            player_id=player_id,
            name=name,
            withdraw=withdraw,
        )
        await self._tournament_command(command, timeout)

    async def start_tournament(self, tournament_id: str, by: str, timeout: float = 10.0) -> None:
        """Start it now (``by``: its organiser, or "operator")."""
        command = StartTournament(command_id=uuid.uuid4().hex, tournament_id=tournament_id, by=by)
        await self._tournament_command(command, timeout)

    async def tournament(self, tournament_id: str) -> TournamentView | None:
        """A tournament as players read it (None: no such tournament)."""
        raw = await self._retrying(lambda: self.redis.get(keys.tournament_key(tournament_id)))
        return tournament_view_decoder.decode(raw) if raw else None

    async def tournaments(self, limit: int = 100) -> list[TournamentView]:
        """The newest tournaments, newest first."""
        index = keys.tournaments_index()
        ids = await self._retrying(lambda: self.redis.zrevrange(index, 0, limit - 1))
        if not ids:
            return []
        raws = await self._retrying(
            lambda: self.redis.mget([keys.tournament_key(as_text(i)) for i in ids])
        )
        return [tournament_view_decoder.decode(raw) for raw in raws if raw]

    async def _tournament_command(self, command: Any, timeout: float) -> None:
        stream = keys.tournament_command_stream()
        data = {"__data__": _json.encode(command)}
        await self._retrying(lambda: self.redis.xadd(stream, data))
        key = keys.tournament_answer_key(command.command_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            raw = await self._retrying(lambda: self.redis.get(key))
            if raw is not None:
                answer = tournament_answer_decoder.decode(raw)
                if not answer.ok:
                    raise TournamentRefused(answer.code, answer.message)
                return
            if loop.time() > deadline:
                raise TimeoutError(
                    "no answer from the tournament organiser (is a matchmaker running?)"
                )
            await asyncio.sleep(0.02)

    async def wait_view(
        self, table_id: str, seat: int | None, min_seq: int, timeout: float = 30.0
    ) -> dict[str, Any]:
        """The view once it shows at least ``min_seq``."""
        async with asyncio.timeout(timeout):
            async for view in self.watch(table_id, seat):
                if view["seq"] >= min_seq:
                    return view
        raise AssertionError("unreachable")

    async def watch(self, table_id: str, seat: int | None = None) -> AsyncIterator[dict[str, Any]]:
        """The current view, then each new one as the projector writes it.

        A view is new when it differs from the last one yielded: normally its seq is
        higher; after a failover that lost the newest (unconfirmed) events it may show
        an older seq, or another event at the same seq — that is the table now. Every
        seat this client watches on one table shares one read of its updates
        (:class:`~orrery_client.table_watch.TableWatch`)."""
        table_watch = self._table_watch(table_id)
        follower = table_watch.follow(seat)  # (before the first look: nothing is missed)
        try:

            async def first_look() -> list[Any]:
                # Where the updates end, then the view, in one round trip (both in the
                # table's slot): the reader reads every update after that end.
                pipe = self.redis.pipeline(transaction=False)
                pipe.xrevrange(table_watch.stream, count=1)
                pipe.get(table_watch.view_key(seat))
                found: list[Any] = await pipe.execute()
                return found

            newest, raw = await self._retrying(first_look)
            if table_watch.start(after=as_text(newest[0][0]) if newest else "0-0"):
                view_key = table_watch.view_key(seat)
                raw = await self._retrying(lambda: self.redis.get(view_key))
            shown = None if raw is None else msgspec.json.decode(raw)
            if shown is not None:
                yield shown
            while True:
                latest = await follower.next()
                if latest is None or latest == raw:
                    continue
                raw = latest
                view = msgspec.json.decode(raw)
                if view != shown:
                    shown = view
                    yield view
        finally:
            table_watch.leave(follower)

    def _table_watch(self, table_id: str) -> TableWatch:
        table_watch = self._watches.get(table_id)
        if table_watch is None:
            table_watch = self._watches[table_id] = TableWatch(
                self.redis,
                self.partition(table_id),
                table_id,
                transient=_TRANSIENT,
                pause_s=_PAUSE,
                closing=lambda: self._closing,
                ended=self._watch_ended,
            )
        return table_watch

    def _watch_ended(self, table_watch: TableWatch) -> None:
        if self._watches.get(table_watch.table_id) is table_watch:
            del self._watches[table_watch.table_id]
