"""Waking what follows a Redis stream: one blocking read per group of streams, not one
per follower.

The gateway follows many streams at once: each live table's updates (gateway/live.py)
and chat (gateway/chat.py), each notice socket's player stream (gateway/sockets.py). A
blocking ``XREAD`` holds a Redis connection of the gateway (and a client slot and a
file descriptor of the server) for as long as it blocks: one per stream would cap a
gateway at its connection pool's size, a few hundred tables or players. Here a follower
reads its stream without blocking, and waits on an event that a shared watcher sets
when the stream has something new.

A watcher (:class:`_Group`) blocks on up to :data:`GROUP` (128) streams in one ``XREAD``,
each from the newest id it has seen of that stream, and wakes the followers of every
stream the read returned. A stream joins the first group with room (its first id: the
first follower's ``after``); the group's next read includes it. So that the next read
comes at once, not after the read in flight has blocked its :data:`BLOCK_MS` (a new
table's first moves would wait that long, and a spectator see only their last), each
group also reads a small stream of its own, ``orrery:gw:wake:<id>``, and a join appends
one entry to it. A group ends when its last stream is left, and deletes its own.
Nothing is missed: a follower clears its event before it reads, so an entry appended
after its read wakes it, and a group never moves past an entry without waking that
stream's followers. What a follower has not read stays in Redis, never in the gateway.

On a Redis Cluster one read may not span hash slots (``CROSSSLOT``): there a group holds
the streams of one slot only, and its own stream carries a hash tag of that slot. A
table's streams share its partition's slot (one read per partition followed); a
player's notice stream has a slot of its own, so notice sockets there cost one blocking
read, and one connection of the node's pool, per player followed.

"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from gateway.signals import Signal
from orrery_contracts import keys

log = structlog.get_logger("orrery.gateway.wake")

# streams per blocking read: each wake sends the whole group's streams and ids again
# (and the server blocks the read on each), so a busy gateway's reading cost grows with
# the group's size; a group holds one pooled connection (ORRERY_GATEWAY_REDIS_CONNECTIONS)
GROUP = 128
BLOCK_MS = 1_000
JOIN_TTL_MS = 86_400_000  # a group's own stream, left by a gateway killed mid-read
_XREAD = ("XREAD", "COUNT", 1, "BLOCK", BLOCK_MS, "STREAMS")


class Follower:
    """One follower's share: ``ready`` is set when its stream may hold something new
    (and once at the start, so that it reads what is there)."""

    __slots__ = ("ready",)

    def __init__(self) -> None:
        self.ready = Signal(on=True)


class _Group:
    def __init__(self, wake: StreamWake, slot: int | None, first: str) -> None:
        self.wake = wake
        self.slot = slot  # the hash slot of all its streams on a cluster (None: any)
        self.last: dict[bytes, bytes] = {}  # stream → newest id seen (bytes: packed as is)
        self.task: asyncio.Task[None] | None = None
        # its own stream: a join appends to it, so that the read in flight returns; on
        # a cluster in the slot of its streams (the first one's tag, or its whole name)
        tag = "" if slot is None else "{" + (keys.hash_tag(first) or first) + "}:"
        self.joins = f"orrery:gw:wake:{tag}{uuid.uuid4().hex}".encode()
        self.joins_last = b"0-0"
        self.reading = False  # a read is in flight (a join must end it)

    async def joined(self) -> None:
        """A stream joined: end the read in flight, so the next one includes it."""
        if not self.reading:
            return
        redis = self.wake.redis
        with contextlib.suppress(Exception):  # Redis restarting: the next read includes it
            pipe = redis.pipeline(transaction=False)
            pipe.xadd(self.joins, {"j": "1"}, maxlen=1, approximate=False)
            pipe.pexpire(self.joins, JOIN_TTL_MS)
            await pipe.execute()

    async def run(self) -> None:
        redis = self.wake.redis
        try:
            while self.last:
                try:
                    self.reading = True
                    # (the command's arguments given as bytes: redis-py's xread would
                    # rebuild and encode all 2 × GROUP on every wake)
                    found = await redis.execute_command(
                        *_XREAD, *self.last, self.joins, *self.last.values(), self.joins_last
                    )
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # Redis restarting: the followers stay, try again
                    log.warning("stream_wake_failed", error=type(error).__name__)
                    await asyncio.sleep(0.5)
                    continue
                finally:
                    self.reading = False
                for key, rows in found or ():
                    if not rows:
                        continue
                    newest = rows[-1][0]
                    if key == self.joins:
                        self.joins_last = newest
                    elif key in self.last:
                        self.last[key] = newest
                        self.wake.wake(key.decode())
        finally:
            if self in self.wake.groups:
                self.wake.groups.remove(self)
            with contextlib.suppress(Exception):
                await redis.delete(self.joins)


class StreamWake:
    """The stream watchers of one gateway process."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.slotted = isinstance(redis, RedisCluster)  # a read stays within one slot
        self.followers: dict[str, set[Follower]] = {}
        self.groups: list[_Group] = []
        self.group_of: dict[str, _Group] = {}

    def wake(self, key: str) -> None:
        for follower in self.followers.get(key, ()):
            follower.ready.set()

    @contextlib.asynccontextmanager
    async def follow(self, key: str, after: Any) -> AsyncIterator[Follower]:
        """Follow the stream ``key`` from the id ``after``."""
        follower = Follower()
        followers = self.followers.setdefault(key, set())
        followers.add(follower)
        group = self.group_of.get(key)
        if group is None:
            slot = key_slot(key.encode()) if self.slotted else None
            group = next((g for g in self.groups if g.slot == slot and len(g.last) < GROUP), None)
            if group is None:
                group = _Group(self, slot, key)
                self.groups.append(group)
            group.last[key.encode()] = after if isinstance(after, bytes) else str(after).encode()
            self.group_of[key] = group
            await group.joined()
        if group.task is None or group.task.done():
            group.task = asyncio.create_task(group.run())
        try:
            yield follower
        finally:
            followers.discard(follower)
            if not followers:
                del self.followers[key]
                group.last.pop(key.encode(), None)
                self.group_of.pop(key, None)


_wakes: dict[int, StreamWake] = {}


def stream_wake(client: Any) -> StreamWake:
    """The stream watchers of the gateway's wire ``client`` (one per process)."""
    wake = _wakes.get(id(client))
    if wake is None:
        wake = _wakes[id(client)] = StreamWake(client.redis)
    return wake
