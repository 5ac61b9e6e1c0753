"""Presence: online, away or offline per player, from their live sockets.

Each live socket (a table's, or the player's notice socket) holds a :class:`Heartbeat`:
every third of ``ORRERY_PRESENCE_TTL_S`` its player's ``online`` flag is renewed, or
``away`` flag while the client says its page is hidden or idle (a ``{"type":
"presence", "state": "away" | "online"}`` frame). A player is online when any socket
renews ``online``, else away when one renews ``away``, else offline: a socket that
closes renews nothing, and its flag expires. The flags are
``orrery_contracts.social.presence_key`` and ``away_key``.

Anyone signed in may read a player's presence (it is shown on seats and in the lobby),
but across a block (either way) a player always reads as offline.

The player's notice socket also pushes their friends' presence: a ``presence`` frame
for each friend when it opens, then one whenever a friend's presence changes
(:class:`FriendsPresence`; a process's :class:`FriendsWatch` reads every notice
socket's friends' flags each heartbeat, all at once).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any

import msgspec
from litestar import get
from litestar.params import Parameter

from gateway.beats import Flag, Rounds, beats, of_process
from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import Struct
from gateway.queue import PLAYER_ID
from gateway.reads import get_many
from gateway.relations import hidden_from
from gateway.signals import Signal
from notify.activity import live_flags
from orrery_contracts import keys
from orrery_contracts.social import (
    PresenceState,
    away_key,
    friends_key,
    presence_key,
)

MAX_ASKED = 100
ASKED_PATTERN = rf"^[A-Za-z0-9_-]{{1,64}}(,[A-Za-z0-9_-]{{1,64}}){{0,{MAX_ASKED - 1}}}$"
_json = msgspec.json.Encoder()


class PresenceIn(Struct, frozen=True, kw_only=True):
    """The frame a client sends on a live socket when its page is hidden or idle
    (``away``) and when it is in use again (``online``)."""

    type: str
    state: PresenceState


class PlayerPresence(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    presence: PresenceState


class PresenceList(msgspec.Struct, frozen=True, kw_only=True):
    players: list[PlayerPresence]


def ttl_ms(gateway: Gateway) -> int:
    return int(gateway.settings.presence_ttl_s * 1000)


def beat_s(gateway: Gateway) -> float:
    """How often a socket renews its flag (and the notice socket reads its friends')."""
    return max(0.2, gateway.settings.presence_ttl_s / 3)


class Heartbeat:
    """One socket's share of its player's presence. No task of its own: its flags are
    written when the socket opens (:meth:`beat`) and at each change of state
    (:meth:`change`), and renewed in between with every other socket's of the process,
    in one pipeline per beat (gateway/beats.py), while :meth:`held`."""

    __slots__ = ("gateway", "player", "redis", "state")

    def __init__(self, gateway: Gateway, player: str) -> None:
        self.gateway = gateway
        self.redis = gateway.client.redis
        self.player = player
        self.state: PresenceState = "online"

    async def change(self, state: str) -> bool:
        """The client's word for its page, written at once if it changed (False: not a
        state a client may say)."""
        if state == self.state:
            return True
        if state == "online":
            self.state = "online"
        elif state == "away":
            self.state = "away"
        else:
            return False
        await self.beat()
        return True

    def flags(self) -> list[Flag]:
        ttl = ttl_ms(self.gateway)
        key = presence_key(self.player) if self.state == "online" else away_key(self.player)
        # a realtime ticket waits while its player has a live connection, and the
        # notifier sends nothing to a player who has one
        return [
            (key, self.state, ttl),
            (keys.online_key(self.player), "1", ttl),
            *live_flags(self.player, ttl),
        ]

    async def beat(self) -> None:
        with contextlib.suppress(Exception):  # Redis restarting: the next beat renews
            pipe = self.redis.pipeline(transaction=False)
            for key, value, ttl in self.flags():
                pipe.set(key, value, px=ttl)
            await pipe.execute()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Renewed with the process's other sockets while the socket is open."""
        renewals = beats(self.gateway.client, self.redis, beat_s(self.gateway))
        renewals.join(self.flags)
        try:
            yield
        finally:
            renewals.leave(self.flags)


async def presence_of(redis: Any, players: list[str]) -> dict[str, PresenceState]:
    """Each player's presence (two flags each, one round trip)."""
    if not players:
        return {}
    flags = [presence_key(p) for p in players] + [away_key(p) for p in players]
    raws = await get_many(redis, flags)
    online, away = raws[: len(players)], raws[len(players) :]
    return {
        p: "online" if on else "away" if off else "offline"
        for p, on, off in zip(players, online, away, strict=True)
    }


async def presence_for(
    gateway: Gateway, viewer: str, players: list[str]
) -> dict[str, PresenceState]:
    """Presence as ``viewer`` may see it: offline across a block, either way."""
    redis = gateway.client.redis
    found = await presence_of(redis, players)
    hidden = await hidden_from(redis, viewer)
    return {p: "offline" if p in hidden else state for p, state in found.items()}


def presence_frame(player: str, state: PresenceState) -> bytes:
    return _json.encode({"type": "presence", "player_id": player, "presence": state})


class FriendsPresence:
    """What a player's notice socket pushes of their friends' presence: every friend's
    once when it opens (:meth:`push`), then each change, found by the process's
    :class:`FriendsWatch` every :func:`beat_s` (a friend made or unmade meanwhile is
    picked up at the next read) and sent by the socket's own loop (:meth:`flush`)."""

    __slots__ = ("gateway", "known", "pending", "player", "ready")

    def __init__(self, gateway: Gateway, player: str) -> None:
        self.gateway = gateway
        self.player = player
        self.known: dict[str, PresenceState] = {}
        self.pending: list[bytes] | None = None  # frames found, not sent yet
        self.ready: Signal | None = None  # the socket loop's wake-up

    async def push(self, send: Callable[[bytes], Awaitable[None]]) -> None:
        """Read the friends' presence now and send what changed."""
        redis = self.gateway.client.redis
        friends = sorted(f.decode() for f in await redis.smembers(friends_key(self.player)))
        self.found(await presence_of(redis, friends))
        await self.flush(send)

    def found(self, now: dict[str, PresenceState]) -> None:
        """The friends' presence as just read: what changed waits for :meth:`flush`."""
        changed = [
            presence_frame(f, state) for f, state in now.items() if self.known.get(f) != state
        ]
        self.known = now
        if changed:
            self.pending = (self.pending or []) + changed
            if self.ready is not None:
                self.ready.set()

    async def flush(self, send: Callable[[bytes], Awaitable[None]]) -> None:
        frames, self.pending = self.pending, None
        for frame in frames or ():
            await send(frame)

    @contextlib.contextmanager
    def watched(self, ready: Signal) -> Iterator[None]:
        """Read with the process's other notice sockets each beat while the socket is
        open; ``ready`` is set when something is found."""
        self.ready = ready
        watch = friends_watch(self.gateway)
        watch.join(self)
        try:
            yield
        finally:
            watch.leave(self)
            self.ready = None


class FriendsWatch(Rounds[FriendsPresence]):
    """The notice sockets of one process whose friends' presence is read every
    ``every_s``: the players' friend lists in pipelines, then all their flags, a few
    hundred players a round trip, not two round trips per socket."""

    async def round(self) -> None:
        """One round: each player's friends, then their flags, a few hundred players a
        round trip (no round holds the event loop for long), then what changed to each
        socket."""
        members = list(self.members)
        players = sorted({m.player for m in members})
        friends_of: dict[str, list[str]] = {}
        for at in range(0, len(players), PRESENCE_READ):
            chunk = players[at : at + PRESENCE_READ]
            pipe = self.redis.pipeline(transaction=False)
            for player in chunk:
                pipe.smembers(friends_key(player))
            for player, found in zip(chunk, await pipe.execute(), strict=True):
                friends_of[player] = sorted(f.decode() for f in found)
        everyone = sorted({f for friends in friends_of.values() for f in friends})
        states: dict[str, PresenceState] = {}
        for at in range(0, len(everyone), PRESENCE_READ):
            states |= await presence_of(self.redis, everyone[at : at + PRESENCE_READ])
        for member in members:
            if member in self.members:  # (not closed meanwhile)
                member.found({f: states[f] for f in friends_of[member.player]})


PRESENCE_READ = 256  # players per round trip


def friends_watch(gateway: Gateway) -> FriendsWatch:
    """The friends' presence reads of ``gateway``'s process (one per wire client)."""
    return of_process(FriendsWatch, gateway.client, gateway.client.redis, beat_s(gateway))


def parse_presence(text: str) -> PresenceState | None:
    """The state a ``presence`` frame asks for (None: not a presence frame)."""
    try:
        frame = msgspec.json.decode(text, type=PresenceIn)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return frame.state if frame.type == "presence" else None


# ---------------------------------------------------------------- routes


@get("/players/presence", operation_id="getPresence", tags=["players"])
async def get_presence(
    player: str,
    gateway: Gateway,
    ids: Annotated[
        str,
        Parameter(
            query="players",
            description=f"player ids, comma-separated (at most {MAX_ASKED})",
            pattern=ASKED_PATTERN,
        ),
    ],
) -> PresenceList:
    """Whether each player is ``online``, ``away`` (a socket open, its page hidden or
    idle) or ``offline``, as shown on seats and in the lobby."""
    asked = list(dict.fromkeys(ids.split(",")))
    if not all(PLAYER_ID.match(p) for p in asked) or len(asked) > MAX_ASKED:
        raise ApiError(422, "bad_players", f"name 1 to {MAX_ASKED} player ids")
    found = await presence_for(gateway, player, asked)
    return PresenceList(players=[PlayerPresence(player_id=p, presence=found[p]) for p in asked])


def bad_presence_frame() -> bytes:
    return _json.encode(
        {
            "type": "error",
            "error": "malformed",
            "message": 'a presence frame is {"type": "presence", "state": "online" | "away"}',
        }
    )
