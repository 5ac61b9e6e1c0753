"""Shared settings: where Redis is, and the partition count recorded in ``orrery:config``.

``P`` is fixed when the data is first initialised: every table's keys carry its
partition, so changing ``P`` later would move tables (it needs a migration).
"""

from __future__ import annotations

import os
from typing import Any

from contracts import keys

ENV_URL = "ORRERY_REDIS_URL"
DATA_DIR = ".orrery"


class PartitionMismatch(Exception):
    pass


async def ensure_partitions(redis: Any, requested: int | None = None) -> int:
    """The partition count in force, recording ``requested`` (or the default) if none is."""
    wanted = requested or keys.DEFAULT_PARTITIONS
    await redis.hsetnx(keys.CONFIG_KEY, "partitions", wanted)
    stored = int(await redis.hget(keys.CONFIG_KEY, "partitions"))
    if requested is not None and stored != requested:
        raise PartitionMismatch(
            f"this data was initialised with {stored} partitions, not {requested}; "
            "changing it needs a migration"
        )
    return stored


def redis_url_from_env(explicit: str | None) -> str | None:
    return explicit or os.environ.get(ENV_URL) or None
