"""The WebSocket routes: a table's live views (with commands sent back over the same
socket) and a player's notices.

A socket authenticates with its first frame, ``{"type": "auth", "token": "<session>"}``,
sent within :data:`AUTH_WAIT_S` of opening: never in the URL, which proxies, browser
history and monitoring keep. A URL carrying ``?token=`` is refused (``token_in_url``)
without the token being looked at. A refusal is an error frame and a close code 4000 +
the HTTP status it stands for. Every frame is bounded in depth like an HTTP body
(gateway/bodies.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Coroutine
from typing import Any

import msgspec
import structlog
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect

from gateway.bodies import MAX_DEPTH, too_deep
from gateway.chat import ChatInbox, Said, author_of
from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.live import Subscriber
from gateway.presence import FriendsPresence, Heartbeat, bad_presence_frame, parse_presence
from gateway.relations import hidden_from
from gateway.signals import Signal
from gateway.stream_wake import stream_wake
from gateway.tables import seat_of
from gateway.tasks import cancel_until_done
from orrery_contracts import keys
from orrery_contracts.chat import ChatMessage
from orrery_contracts.lobby import LobbyTable

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()

# WebSocket close codes (4000 + the HTTP status they stand for)
WS_UNAUTHORIZED = 4401
WS_NOT_FOUND = 4404
WS_RATE_LIMITED = 4429
WS_UNAVAILABLE = 4503
RECORD_WAIT_S = 2.0
AUTH_WAIT_S = 10.0


# ---------------------------------------------------------------- WebSockets


class _Frame(msgspec.Struct):
    type: str
    command_id: str | None = None
    body: dict[str, Any] | None = None
    text: str | None = None  # a "say" frame's chat message
    state: str | None = None  # a "presence" frame's: online or away


_frame = msgspec.json.Decoder(_Frame)
FRAMES_HELP = (
    'a frame is {"type": "command", "command_id", "body"}, {"type": "say", "text"} or '
    '{"type": "presence", "state": "online" | "away"}'
)


class _Auth(msgspec.Struct, forbid_unknown_fields=True):
    type: str
    token: str


_auth = msgspec.json.Decoder(_Auth)


def auth_frame(token: str) -> str:
    """The first frame a client sends on a socket: its session."""
    return json.dumps({"type": "auth", "token": token})


async def _authenticate(socket: WebSocket[Any, Any, Any], gateway: Gateway) -> tuple[str, int]:
    """The player and session expiry from the socket's first frame (``auth``)."""
    if "token" in socket.query_params:
        raise ApiError(
            401,
            "token_in_url",
            'a session never goes in a URL: send {"type": "auth", "token"} as the first frame',
        )
    try:
        text = await asyncio.wait_for(socket.receive_text(), AUTH_WAIT_S)
    except (TimeoutError, WebSocketDisconnect):
        raise ApiError(401, "unauthorized", "no auth frame: sign in first") from None
    try:
        frame = _auth.decode(text) if len(text) < 4096 and not too_deep(text) else None
    except (msgspec.DecodeError, msgspec.ValidationError):
        frame = None
    if frame is None or frame.type != "auth":
        raise ApiError(
            401, "unauthorized", 'the first frame is {"type": "auth", "token": "<session>"}'
        )
    return await gateway.player(frame.token)


class _Phase(msgspec.Struct):
    seq: int = 0
    phase: str = ""


_phase = msgspec.json.Decoder(_Phase)


def _int_param(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


async def _refuse(socket: WebSocket[Any, Any, Any], error: ApiError) -> None:
    log.info("socket_refused", error=error.code, path=socket.url.path)
    close = {401: WS_UNAUTHORIZED, 404: WS_NOT_FOUND, 429: WS_RATE_LIMITED}.get(
        error.status, WS_UNAVAILABLE
    )
    with contextlib.suppress(Exception):
        await socket.send_text(
            json.dumps({"type": "error", "error": error.code, "message": error.message})
        )
        await socket.close(code=close, reason=error.code)


async def until_one_ends(
    socket: WebSocket[Any, Any, Any],
    pushing: Coroutine[Any, Any, None],
    receiving: Coroutine[Any, Any, None],
) -> None:
    """Run a socket's halves until one ends: ``receiving`` in this task (the socket's
    own), ``pushing`` in one of its own, so that an idle socket is two tasks. A refusal
    either raised is sent as an error frame and close code; the other half is ended."""
    me = asyncio.current_task()
    assert me is not None
    pusher = asyncio.create_task(pushing)
    receiving_ended = False

    def pushed(_: asyncio.Task[None]) -> None:
        if not receiving_ended:  # (it waits on the client: end it)
            me.cancel()

    pusher.add_done_callback(pushed)
    failure: BaseException | None = None
    try:
        await receiving
    except asyncio.CancelledError:
        if not pusher.done():
            raise  # the socket's task itself was cancelled (the server stops)
        me.uncancel()
    except Exception as error:  # the receiving half ended: the client left, or a refusal
        failure = error
    finally:
        receiving_ended = True
        left = await cancel_until_done([pusher])
    if pusher.done() and not pusher.cancelled() and not left:
        failure = failure or pusher.exception()
    if isinstance(failure, ApiError):
        await _refuse(socket, failure)


class _Connection:
    """One WebSocket: pushes views, runs the commands the client sends. An idle
    socket is two tasks (:meth:`push` and :meth:`receive_commands`) and what they
    wait on, nothing more: thousands are held at once."""

    __slots__ = ("expires", "gateway", "heartbeat", "player", "send_lock", "socket")

    def __init__(
        self, socket: WebSocket[Any, Any, Any], gateway: Gateway, player: str, expires: int
    ) -> None:
        self.socket = socket
        self.gateway = gateway
        self.player = player
        self.expires = expires
        self.send_lock = asyncio.Lock()
        self.heartbeat = Heartbeat(gateway, player)

    async def send(self, text: str | bytes) -> None:
        async with self.send_lock:
            await self.socket.send_text(text if isinstance(text, str) else text.decode())

    def expired(self) -> bool:
        return time.time() >= self.expires

    async def receive_commands(self, table_id: str) -> None:
        await self.heartbeat.beat()  # (the socket's presence shows at once)
        while True:
            text = await self.socket.receive_text()
            if self.expired():
                raise ApiError(401, "session_expired", "the session has expired; sign in again")
            if too_deep(text):
                await self.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": "malformed",
                            "message": f"JSON nested deeper than {MAX_DEPTH} levels",
                        }
                    )
                )
                continue
            try:
                frame = _frame.decode(text)
            except (msgspec.DecodeError, msgspec.ValidationError):
                await self.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": "malformed",
                            "message": FRAMES_HELP,
                        }
                    )
                )
                continue
            if frame.type == "say" and frame.text is not None:
                await self.say(table_id, frame.text)
                continue
            if frame.type == "presence":
                if not await self.heartbeat.change(frame.state or ""):
                    await self.send(bad_presence_frame())
                continue
            if frame.type != "command" or frame.command_id is None or frame.body is None:
                await self.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": "malformed",
                            "message": FRAMES_HELP,
                        }
                    )
                )
                continue
            try:
                await self.gateway.limiter.take(
                    self.player, self.gateway.settings.rate_per_s, self.gateway.settings.burst
                )
                _, body = await self.gateway.commands.send(
                    self.player, table_id, frame.command_id, frame.body
                )
                await self.send(_json.encode({"type": "outcome", **body}))
            except ApiError as error:
                await self.send(
                    _json.encode(
                        {
                            "type": "error",
                            "error": error.code,
                            "message": error.message,
                            "command_id": frame.command_id,
                        }
                    )
                )

    async def say(self, table_id: str, text: str) -> None:
        """A chat message: it comes back to every socket as a ``chat`` frame; only a
        refusal is answered here."""
        try:
            await self.gateway.limiter.take(
                self.player, self.gateway.settings.rate_per_s, self.gateway.settings.burst
            )
            await self.gateway.chat.post(self.player, table_id, text)
        except ApiError as error:
            await self.send(
                _json.encode({"type": "error", "error": error.code, "message": error.message})
            )

    async def push(self, table_id: str, subscriber: Subscriber, chat: ChatInbox) -> None:
        """The newest view for my viewer and each chat message, as they come: one task
        for both, waiting on the one signal they share."""
        ready = subscriber.ready
        while True:
            await ready.wait()
            ready.clear()  # before taking: what comes after sets it again
            for said in chat.take():
                await self.push_chat(said, table_id)
            if subscriber.pending is not None:
                await self.push_view(table_id, subscriber)

    async def push_view(self, table_id: str, subscriber: Subscriber) -> None:
        """The newest view not yet sent (a method of its own: the view's bytes are not
        kept in the waiting loop's frame while the socket idles)."""
        taken = subscriber.take()
        if taken is None:
            return
        seq, raw = taken
        if self.expired():
            raise ApiError(401, "session_expired", "the session has expired; sign in again")
        if _phase.decode(raw).phase == "lobby":
            # Seats change hands only in the lobby: follow my seat if I just took one.
            current = await _record_at(self.gateway, table_id, seq)
            seat = seat_of(current, self.player)
            if seat != subscriber.viewer:
                subscriber.viewer = seat
                raw = await self.gateway.client.view_raw(table_id, seat) or raw
                seq = _phase.decode(raw).seq
                subscriber.sent = max(subscriber.sent, seq)
        await self.send(b'{"type":"view","seq":%d,"view":%s}' % (seq, raw))

    async def push_chat(self, said: Said, table_id: str) -> None:
        """A message said, unless its author is a player I blocked or was blocked by."""
        if said.seat is not None or said.player is not None:
            hidden = await hidden_from(self.gateway.client.redis, self.player)
            if hidden:
                record = await self.gateway.tables.record(table_id)
                if author_of(record, said.seat, said.player) in hidden:
                    return
        await self.send(_chat_frame(said.message))


def _chat_frame(message: ChatMessage) -> bytes:
    return _json.encode({"type": "chat", **msgspec.to_builtins(message)})


async def _record_at(gateway: Gateway, table_id: str, seq: int) -> LobbyTable:
    """The table's lobby record once it is as new as a view at ``seq``: views and the
    lobby are separate writes, and a join's view can arrive before its record (waits
    at most ``RECORD_WAIT_S``, then answers with what there is)."""
    deadline = time.monotonic() + RECORD_WAIT_S
    while True:
        record = await gateway.tables.record(table_id)
        if record.seq >= seq or time.monotonic() > deadline:
            return record
        await asyncio.sleep(0.02)


@websocket("/tables/{table_id:str}/live")
async def table_live(socket: WebSocket[Any, Any, Any], table_id: str, gateway: Gateway) -> None:
    """First send ``{"type": "auth", "token"}``; then views are pushed as ``{"type":
    "view", "seq", "view"}`` after ``after``; send ``{"type": "command", "command_id",
    "body"}`` to act (answer: ``{"type": "outcome"}``).
    Chat: messages posted from now on arrive as ``{"type": "chat", "id", "seat" |
    "spectator", "name", "text", "at"}`` (an operator's deletion: ``{"type": "chat", "id",
    "deleted": true}``); send ``{"type": "say", "text"}`` to post."""
    await socket.accept()
    try:
        player, expires = await _authenticate(socket, gateway)
        record = await gateway.tables.record(table_id)
    except ApiError as error:
        await _refuse(socket, error)
        return
    after = _int_param(socket.query_params.get("after"), -1)
    connection = _Connection(socket, gateway, player, expires)
    viewer = seat_of(record, player)
    del record  # (not kept for the socket's life)
    ready = Signal()
    # Chat first: its watcher knows where the stream ends before the first view is sent,
    # so a message said after the client saw its first frame always comes live.
    with connection.heartbeat.held():
        async with (
            gateway.chat.hub.subscribe(table_id, ready) as chat,
            gateway.hub.subscribe(table_id, viewer, after, ready) as subscriber,
        ):
            await until_one_ends(
                socket,
                connection.push(table_id, subscriber, chat),
                connection.receive_commands(table_id),
            )


@websocket("/players/me/live")
async def player_live(socket: WebSocket[Any, Any, Any], gateway: Gateway) -> None:
    """First send ``{"type": "auth", "token"}``; then my notices ("your turn" at any of
    my tables, "matched" when a ticket of mine is seated, friend requests, invitations),
    one JSON frame per entry, and my friends' presence (``{"type": "presence",
    "player_id", "presence"}``: each friend's when the socket opens, then each change).
    Send ``{"type": "presence", "state": "away" | "online"}`` when my page is hidden or
    idle, and back. While it is open, my realtime tickets wait and I am online."""
    await socket.accept()
    try:
        player, expires = await _authenticate(socket, gateway)
    except ApiError as error:
        await _refuse(socket, error)
        return
    redis = gateway.client.redis
    stream = keys.player_notice_stream(player)
    after = socket.query_params.get("after")
    if not after or not all(part.isdigit() for part in after.split("-", 1)):
        newest = await redis.xrevrange(stream, count=1)
        after = newest[0][0].decode() if newest else "0-0"

    lock = asyncio.Lock()
    heartbeat = Heartbeat(gateway, player)
    friends = FriendsPresence(gateway, player)

    async def send(data: str | bytes) -> None:
        async with lock:
            await socket.send_text(data if isinstance(data, str) else data.decode())

    async def forward(last: str) -> None:
        # No blocking read of its own: the process's stream watchers wake the socket
        # when its stream has something new (gateway/stream_wake.py), and the
        # process's friends' presence read when a friend's changed: one task for all
        # the socket pushes. (The socket's heartbeat keeps the player online.)
        wake = stream_wake(gateway.client)
        await friends.push(send)
        async with wake.follow(stream, last) as follower:
            with friends.watched(follower.ready):
                while True:
                    if time.time() >= expires:
                        raise ApiError(
                            401, "session_expired", "the session has expired; sign in again"
                        )
                    if follower.ready.is_set():
                        follower.ready.clear()  # before the read: an entry after it wakes us
                        last = await _forward_notices(redis, stream, last, send, follower.ready)
                    await friends.flush(send)  # (what the process's read found of them)
                    await follower.ready.wait(max(0.0, expires - time.time()))

    async def receive() -> None:
        await heartbeat.beat()  # (the socket's presence shows at once)
        while True:
            text = await socket.receive_text()
            state = parse_presence(text) if len(text) < 256 else None
            if state is None or not await heartbeat.change(state):
                await send(bad_presence_frame())

    with heartbeat.held():
        await until_one_ends(socket, forward(after), receive())


async def _forward_notices(redis: Any, stream: str, last: str, send: Any, ready: Signal) -> str:
    """Send the notice stream's entries after ``last`` (at most 100; more: ``ready`` is
    set again); the newest id sent."""
    entries = await redis.xread({stream: last}, count=100)
    for _, rows in entries:
        for entry_id, fields in rows:
            last = entry_id.decode()
            data = fields.get(b"__data__")
            if data:
                await send(data)
    if entries and len(entries[0][1]) == 100:
        ready.set()  # more to read
    return last


# ---------------------------------------------------------------- the live sockets' path


PLAYER_LIVE_PATH = "/v1/players/me/live"
_TABLES, _LIVE = "/v1/tables/", "/live"


def live_handler(scope: Any, gateway: Gateway) -> Any | None:
    """The live socket a WebSocket's path names, as an ASGI app run without Litestar's
    request cycle (None: another path, for Litestar). Its middleware, route matching
    and dependency injection are frames and objects an idle socket would hold for its
    whole life (~4 KB each); the two routes stay declared above, for the documents and
    the same answers. A handler's unexpected failure closes the socket with 1011 and one
    log line, as Litestar would."""
    path: str = scope.get("path", "")
    if path == PLAYER_LIVE_PATH:
        return _LiveApp(gateway, None)
    if path.startswith(_TABLES) and path.endswith(_LIVE):
        table_id = path[len(_TABLES) : -len(_LIVE)]
        if table_id and "/" not in table_id:
            return _LiveApp(gateway, table_id)
    return None


class _LiveApp:
    __slots__ = ("gateway", "table_id")

    def __init__(self, gateway: Gateway, table_id: str | None) -> None:
        self.gateway = gateway
        self.table_id = table_id

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        socket: WebSocket[Any, Any, Any] = WebSocket(scope=scope, receive=receive, send=send)
        try:
            if self.table_id is None:
                await player_live.fn(socket=socket, gateway=self.gateway)
            else:
                await table_live.fn(socket=socket, table_id=self.table_id, gateway=self.gateway)
        except WebSocketDisconnect:
            pass
        except Exception as error:
            log.warning("socket_failed", error=type(error).__name__, path=socket.url.path)
            with contextlib.suppress(Exception):
                await socket.close(code=1011)
