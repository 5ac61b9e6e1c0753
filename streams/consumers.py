"""Who consumes, and in which group: consumer names, group creation, claim timing.

A consumer name must be unique per process: two processes with one name would share
one pending-entries list, and neither could tell the other's crashed entries from its
own. Groups are created before any subscriber starts (at ``0`` or where the consumer
stands): a FastStream subscriber would create a missing one at ``$`` and skip every
entry sent before it.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from redis.exceptions import RedisError

from streams.settings import ConsumerSettings

# Deliveries of an entry before its consumer gives up on it (the intake dead-letters it).
MAX_DELIVERIES = 5


def consumer_name(role: str) -> str:
    """``$ORRERY_CONSUMER``, else ``role-host-pid``: unique per process."""
    named = ConsumerSettings.from_env().consumer
    return named or f"{role}-{socket.gethostname()}-{os.getpid()}"


async def create_group(redis: Any, stream: str, group: str, start: str = "0") -> bool:
    """Create ``group`` on ``stream`` (and the stream) starting after ``start``; False
    when the group exists already."""
    try:
        await redis.xgroup_create(stream, group, id=start, mkstream=True)
    except RedisError as error:
        if "BUSYGROUP" not in str(error):
            raise
        return False
    return True


def claim_poll_ms(claim_idle_ms: int) -> int:
    """How long a claimer sleeps when nothing is idle long enough to claim."""
    return max(250, min(claim_idle_ms // 3, 5_000))
