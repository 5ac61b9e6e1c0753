"""How two players stand to each other: blocked (either way), friends, a request
waiting; and the notices the gateway writes to a player's notice stream.

The sets are ``orrery_contracts.social``'s (and ``keys.blocks_key``); every change
here writes both players' sets, so each side reads its own in one call. A block ends a
friendship and any request between the two, both ways.
"""

from __future__ import annotations

from typing import Any

import msgspec

from orrery_contracts import keys
from orrery_contracts.notices import Notice
from orrery_contracts.social import (
    blocked_by_key,
    friends_key,
    requests_received_key,
    requests_sent_key,
)

NOTICE_CAP = 1_000  # entries kept in a player's notice stream (as the projector's)
_notice = msgspec.json.Encoder()


def _decoded(members: Any) -> set[str]:
    return {m.decode() if isinstance(m, bytes) else str(m) for m in members}


async def hidden_from(redis: Any, player: str) -> set[str]:
    """The players ``player`` blocked or was blocked by: neither sees the other's chat,
    presence or requests."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.smembers(keys.blocks_key(player))
        pipe.smembers(blocked_by_key(player))
        blocked, blocked_by = await pipe.execute()
    return _decoded(blocked) | _decoded(blocked_by)


async def blocked_between(redis: Any, a: str, b: str) -> bool:
    return b in await hidden_from(redis, a)


async def friends_of(redis: Any, player: str) -> set[str]:
    return _decoded(await redis.smembers(friends_key(player)))


async def unfriend(redis: Any, a: str, b: str) -> None:
    """No friendship and no request between ``a`` and ``b``, either way."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.srem(friends_key(a), b)
        pipe.srem(friends_key(b), a)
        pipe.srem(requests_sent_key(a), b)
        pipe.srem(requests_received_key(b), a)
        pipe.srem(requests_sent_key(b), a)
        pipe.srem(requests_received_key(a), b)
        await pipe.execute()


async def add_block(redis: Any, player: str, other: str) -> None:
    await unfriend(redis, player, other)
    async with redis.pipeline(transaction=False) as pipe:
        pipe.sadd(keys.blocks_key(player), other)
        pipe.sadd(blocked_by_key(other), player)
        await pipe.execute()


async def remove_block(redis: Any, player: str, other: str) -> bool:
    """True when ``other`` was blocked by ``player``."""
    async with redis.pipeline(transaction=False) as pipe:
        pipe.srem(keys.blocks_key(player), other)
        pipe.srem(blocked_by_key(other), player)
        removed, _ = await pipe.execute()
    return bool(removed)


async def notify(redis: Any, player: str, notice: Notice) -> None:
    """A notice on ``player``'s notice stream (their notice socket forwards it)."""
    await redis.xadd(
        keys.player_notice_stream(player),
        {"__data__": _notice.encode(notice)},
        maxlen=NOTICE_CAP,
        approximate=True,
    )
