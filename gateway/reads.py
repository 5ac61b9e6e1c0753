"""Reads of many keys that lie in different hash slots (players' flags carry no hash
tag, so a cluster spreads them): one ``MGET`` on a single server; on a Redis Cluster,
which refuses a command across slots, redis-py's ``mget_nonatomic`` (one ``MGET`` per
slot, sent to each node in one pipeline). Not atomic across slots, which no such read
here needs: each flag is read as it is."""

from __future__ import annotations

from typing import Any

from redis.asyncio.cluster import RedisCluster


async def get_many(redis: Any, names: list[str]) -> list[Any]:
    """The values of ``names`` in their order (None for a missing key)."""
    if isinstance(redis, RedisCluster):
        return list(await redis.mget_nonatomic(names))
    return list(await redis.mget(names))
