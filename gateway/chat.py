"""Table chat at the gateway: post (``POST /v1/tables/{id}/chat``, the WebSocket's
``say`` frame), history (``GET …/chat?after=&limit=``) and live ``chat`` frames.

A post becomes a ``table.say`` command (``orrery_contracts/chat.py``): a seated player's
with their seat's secret, like any command; anyone else's as a spectator, the gateway
signing their player id into the envelope and naming them. The worker writes the
message to the table's chat stream (never its log) and answers with its id; the 201
answer is the stored message, read back. Whoever may watch a table (any signed-in player
who knows its id, as for its spectator view) may read and write its chat.

Blocks work both ways: a reader never gets a message whose author they blocked or was
blocked by, in the history or live (the author is the seat's player in the lobby
record, or the spectator's player id the worker keeps in the entry); a seat of an
erased account shows as ``deleted player`` in the history. A player an operator muted
(``orrery reports resolve --mute DAYS``) is refused (403 ``muted``) until the mute
ends.

Live: one watcher per table and gateway process, woken when the chat stream grows
(gateway/stream_wake.py: one blocking read for many streams), hands every new entry to
each subscribed socket's queue (bounded: a socket that does not read loses its oldest
frames, never blocks the others). A socket gets what is posted after it subscribed; a
client reads the history after opening its socket and merges by id.

A table that left Redis for the archive took its chat along (the archiver deletes the
chat stream with the table, and a post to an archived table is refused, so no stream
comes back): an ended table without a chat stream has its history read from the
archive (:class:`ArchivedChats`, plugged in by ``orrery gateway``), as the archiver
copied it, "deleted" markers included. A table archived before chats were archived kept
its chat stream in Redis, which is read as for a live table. (The gateway's ACL reads
chat streams and lobby records, not tombstones: an ended table's lobby record, from
Redis or the archive, says it ended.)
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any, NamedTuple, Protocol

import msgspec
import structlog

from gateway import crypto
from gateway.accounts import Accounts
from gateway.errors import ApiError
from gateway.reads import get_many
from gateway.signals import Signal
from gateway.stream_wake import stream_wake
from gateway.tables import Tables, seat_of
from gateway.watches import WatchHub
from gateway.wire import GatewayClient, OutcomeTimeout
from orrery_contracts import keys
from orrery_contracts.chat import (
    MAX_CHAT_TEXT,
    MAX_HISTORY,
    ChatEntry,
    ChatMessage,
    SayChat,
    history,
    read_entry,
)
from orrery_contracts.envelope import Accepted, Duplicate, Outcome, Rejection
from orrery_contracts.lobby import LobbyTable
from orrery_contracts.social import ERASED_NAME, erased_key, mute_key

log = structlog.get_logger("orrery.gateway.chat")
ENDED = ("finished", "closed")
QUEUE = 200
_STATUS = {"rate_limited": 429, "unauthorized": 403, "no_such_table": 404}
BAD_TEXT = f"a chat message has 1 to {MAX_CHAT_TEXT} characters and no control characters"


class ChatHistory(msgspec.Struct, frozen=True, kw_only=True):
    messages: list[ChatMessage]


class Said(NamedTuple):
    """A live message and who said it (a seat, or a spectator's player id)."""

    message: ChatMessage
    seat: int | None
    player: str | None


_entry = msgspec.json.Decoder(ChatEntry)


def entry_of(data: bytes | str) -> ChatEntry | None:
    try:
        return _entry.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def author_of(record: LobbyTable, seat: int | None, player: str | None) -> str | None:
    """The player id of a message's author (None: not known, such as an anonymous seat)."""
    if player is not None:
        return player
    for taken in record.players:
        if taken.seat == seat:
            return taken.player_id
    return None


class ArchivedChats(Protocol):
    async def chat(self, table_id: str) -> list[tuple[str, bytes]] | None:
        """An archived table's chat stream entries ``(id, __data__)``, oldest first;
        None when the archive holds no chat of the table (or cannot be reached)."""
        ...


class TableChat:
    def __init__(self, client: GatewayClient, accounts: Accounts, tables: Tables) -> None:
        self.client = client
        self.redis = client.redis
        self.accounts = accounts
        self.tables = tables
        self.hub = ChatHub(client)
        self.archived: ArchivedChats | None = None

    async def post(self, player_id: str, table_id: str, text: str) -> ChatMessage:
        record = await self.tables.record(table_id)
        until = await self.redis.get(mute_key(player_id))
        if until is not None:
            raise ApiError(
                403,
                "muted",
                "an operator muted you: you may chat again later",
                extra={"detail": {"until": int(until)}},
            )
        if len(text) > MAX_CHAT_TEXT:
            # as the document says (maxLength): a line is at most that long as sent too,
            # not only once its runs of spaces are folded (the worker's rule)
            raise ApiError(422, "bad_text", BAD_TEXT, extra={"detail": None})
        seat = seat_of(record, player_id)
        command_id = "chat." + uuid.uuid4().hex
        if seat is not None:
            outcome = await self._send(
                table_id,
                SayChat(text=text),
                command_id=command_id,
                seat=seat,
                token=crypto.seat_secret(self.tables.key, table_id, seat, player_id),
            )
        else:
            name = await self.accounts.name_of(player_id)
            if name is None:
                raise ApiError(401, "unauthorized", "this account no longer exists")
            outcome = await self._send(
                table_id,
                SayChat(text=text, name=name),
                command_id=command_id,
                identity=crypto.identity(self.tables.key, table_id, command_id, player_id),
            )
        if isinstance(outcome, Duplicate):
            outcome = outcome.original
        if isinstance(outcome, Rejection):
            status = _STATUS.get(outcome.code, 422)
            headers = {}
            if status == 429:  # as every 429 of the API: how long to wait, whole seconds
                wait_ms = int((outcome.detail or {}).get("retry_after_ms", 1000))
                headers["Retry-After"] = str(max(1, -(-wait_ms // 1000)))
            raise ApiError(
                status,
                outcome.code,
                outcome.message,
                extra={"detail": outcome.detail},
                headers=headers,
            )
        assert isinstance(outcome, Accepted) and outcome.chat_id is not None
        stream = keys.chat_stream(self.client.partition(table_id), table_id)
        stored = await self.redis.xrange(stream, outcome.chat_id, outcome.chat_id)
        messages = history(stored)
        if not messages:  # deleted (or trimmed) already
            return ChatMessage(id=outcome.chat_id, deleted=True)
        return messages[0]

    async def _send(self, table_id: str, body: SayChat, **kwargs: Any) -> Outcome:
        try:
            return await self.client.send(table_id, body, timeout=self.tables.timeout, **kwargs)
        except OutcomeTimeout:
            raise ApiError(504, "outcome_timeout", "no answer in time; try again") from None

    async def read(
        self, table_id: str, after: str | None, limit: int, hidden: set[str] | None = None
    ) -> ChatHistory:
        """The chat's history, without the messages of the players in ``hidden``."""
        record = await self.tables.record(table_id)
        if after is not None and not _is_stream_id(after):
            raise ApiError(422, "bad_after", "after is a message id (as chat messages carry)")
        stream = keys.chat_stream(self.client.partition(table_id), table_id)
        entries = await self.redis.xrange(stream, count=MAX_HISTORY * 2)
        if not entries and record.state in ENDED and self.archived is not None:
            # an ended table without a chat stream: archived with its chat, or chatless
            archived = await self.archived.chat(table_id) or []
            entries = [(entry_id, {b"__data__": data}) for entry_id, data in archived]
        entries = await self._as_seen(record, entries, hidden or set())
        return ChatHistory(messages=history(entries, after, max(1, min(limit, MAX_HISTORY))))

    async def _as_seen(self, record: LobbyTable, entries: list[Any], hidden: set[str]) -> list[Any]:
        """The entries a reader may see (hidden authors' left out), an erased author's
        name replaced."""
        authored = []
        for entry_id, fields in entries:
            data = fields.get(b"__data__") if isinstance(fields, dict) else None
            entry = entry_of(data) if data is not None else None
            author = author_of(record, entry.seat, entry.player) if entry else None
            authored.append((entry_id, fields, entry, author))
        authors = sorted({a for _, _, _, a in authored if a})
        erased = set()
        if authors:
            flags = await get_many(self.redis, [erased_key(a) for a in authors])
            erased = {a for a, flag in zip(authors, flags, strict=True) if flag}
        seen = []
        for entry_id, fields, entry, author in authored:
            if author in hidden:
                continue
            if author in erased and entry is not None:
                renamed = msgspec.structs.replace(entry, name=ERASED_NAME)
                fields = {b"__data__": msgspec.json.encode(renamed)}
            seen.append((entry_id, fields))
        return seen


def _is_stream_id(value: str) -> bool:
    head, _, tail = value.partition("-")
    return head.isdigit() and (tail == "" or tail.isdigit()) and len(value) <= 41


class ChatInbox:
    """A socket's chat messages not yet sent (past :data:`QUEUE` the oldest is dropped),
    and the signal its socket waits on: a list, not an ``asyncio.Queue`` (four deques,
    ~3 KB, for each idle socket)."""

    __slots__ = ("messages", "ready")

    def __init__(self, ready: Signal) -> None:
        self.messages: list[Said] = []
        self.ready = ready

    def put(self, said: Said) -> None:
        if len(self.messages) >= QUEUE:
            del self.messages[0]
        self.messages.append(said)
        self.ready.set()

    def take(self) -> list[Said]:
        taken, self.messages = self.messages, []
        return taken


class ChatWatch:
    def __init__(self, client: GatewayClient, table_id: str) -> None:
        self.client = client
        self.table_id = table_id
        self.inboxes: set[ChatInbox] = set()
        self.task: asyncio.Task[None] | None = None
        self.started = asyncio.Event()
        self.waking: Signal | None = None

    def followed(self) -> bool:
        return bool(self.inboxes)

    async def run(self) -> None:
        stream = keys.chat_stream(self.client.partition(self.table_id), self.table_id)
        redis = self.client.redis
        newest = await redis.xrevrange(stream, count=1)
        last: Any = newest[0][0] if newest else "0-0"
        # No blocking read of its own: the process's stream watchers wake it when the
        # chat grows (gateway/stream_wake.py).
        async with stream_wake(self.client).follow(stream, last) as follower:
            self.waking = follower.ready
            self.started.set()
            while self.inboxes:
                await follower.ready.wait()
                follower.ready.clear()  # before the read: a message after it wakes us
                try:
                    found = await redis.xread({stream: last}, count=100)
                except Exception as error:  # Redis restarting: keep the sockets, retry
                    log.warning(
                        "chat_watch_failed", table_id=self.table_id, error=type(error).__name__
                    )
                    await asyncio.sleep(0.5)
                    follower.ready.set()
                    continue
                for _, rows in found:
                    if len(rows) == 100:
                        follower.ready.set()  # more to read
                    for entry_id, fields in rows:
                        last = entry_id
                        data = fields.get(b"__data__")
                        message = read_entry(entry_id.decode(), data) if data else None
                        entry = entry_of(data) if message is not None else None
                        if message is not None and entry is not None:
                            self.offer(Said(message, entry.seat, entry.player))

    def kick(self) -> None:
        """Its last socket left: let the loop see it now."""
        if self.waking is not None:
            self.waking.set()

    def offer(self, message: Said) -> None:
        for inbox in list(self.inboxes):
            inbox.put(message)


class ChatHub:
    def __init__(self, client: GatewayClient) -> None:
        self.client = client
        self.watches = WatchHub(
            lambda table_id: ChatWatch(self.client, table_id), "chat_watch_ended"
        )

    @contextlib.asynccontextmanager
    async def subscribe(self, table_id: str, ready: Signal) -> AsyncIterator[ChatInbox]:
        """Follow the table's chat from now on: ``ready`` is set when a message came."""
        inbox = ChatInbox(ready)
        watch = self.watches.follow(table_id)
        watch.inboxes.add(inbox)
        try:
            await watch.started.wait()
            yield inbox
        finally:
            watch.inboxes.discard(inbox)
            if not watch.inboxes:
                watch.kick()

    async def close(self) -> None:
        """End every chat watcher (the gateway stops), before the client closes."""
        await self.watches.close()
