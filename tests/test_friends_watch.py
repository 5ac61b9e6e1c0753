"""The friends' presence of a process's notice sockets (gateway/presence.py's
FriendsWatch) against a real server: one read finds, for every socket, what changed of
its own friends' presence and nothing of anyone else's, a friend unmade stops being
told, and the read costs a pipeline of friend lists and a read of flags per few hundred
players, not round trips per socket."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from redis import asyncio as aioredis

from gateway.presence import FriendsPresence, FriendsWatch
from gateway.signals import Signal
from orrery_contracts.social import away_key, friends_key, presence_key

pytestmark = pytest.mark.service


def socket_of(redis: aioredis.Redis, player: str) -> FriendsPresence:
    # the two attributes of a gateway a notice socket's friends' presence reads
    gateway: Any = SimpleNamespace(
        client=SimpleNamespace(redis=redis), settings=SimpleNamespace(presence_ttl_s=30.0)
    )
    member = FriendsPresence(gateway, player)
    member.ready = Signal()
    return member


async def told(member: FriendsPresence) -> dict[str, str]:
    frames: list[bytes] = []

    async def send(frame: bytes) -> None:
        frames.append(frame)

    await member.flush(send)
    decoded = [msgspec.json.decode(f) for f in frames]
    assert all(d["type"] == "presence" for d in decoded)
    return {d["player_id"]: d["presence"] for d in decoded}


async def calls(redis: aioredis.Redis) -> dict[str, int]:
    stats = await redis.info("commandstats")
    return {
        name: int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in ("smembers", "mget")
    }


async def test_one_read_tells_each_socket_its_own_friends_changes(
    redis_client: aioredis.Redis,
) -> None:
    redis = redis_client
    await redis.sadd(friends_key("ann"), "cat", "dan")
    await redis.sadd(friends_key("ben"), "cat")
    await redis.set(presence_key("cat"), "online")
    ann, ann_again, ben, eve = (socket_of(redis, p) for p in ("ann", "ann", "ben", "eve"))
    watch = FriendsWatch(redis, 3600.0)
    watch.members |= {ann, ann_again, ben, eve}  # (joined without its beat task)

    before = await calls(redis)
    await watch.round()
    after = await calls(redis)
    # three players' friend lists in one pipeline (a command each), one read of flags
    assert after["smembers"] - before["smembers"] == 3
    assert after["mget"] - before["mget"] == 1
    assert await told(ann) == {"cat": "online", "dan": "offline"}
    assert await told(ann_again) == {"cat": "online", "dan": "offline"}
    assert await told(ben) == {"cat": "online"}
    assert await told(eve) == {} and not eve.ready.is_set()  # type: ignore[union-attr]
    assert ann.ready is not None and ann.ready.is_set()

    # cat steps away and ann unfriends dan, then dan comes online
    ann.ready.clear()
    await redis.delete(presence_key("cat"))
    await redis.set(away_key("cat"), "away")
    await redis.srem(friends_key("ann"), "dan")
    await redis.set(presence_key("dan"), "online")
    await watch.round()
    assert await told(ann) == {"cat": "away"}  # nothing of dan any more
    assert await told(ben) == {"cat": "away"}
    assert ann.ready.is_set()

    # nothing changed: nothing told, nobody woken
    ann.ready.clear()
    await watch.round()
    assert await told(ann) == {} and not ann.ready.is_set()
    # a socket that closed is not told
    watch.leave(ben)
    await redis.set(presence_key("cat"), "online")
    await watch.round()
    assert await told(ben) == {}
    assert await told(ann) == {"cat": "online"}
