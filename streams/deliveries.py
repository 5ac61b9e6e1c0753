"""Bounded redelivery: how often an entry was delivered, and its dead letter.

On Redis a failed entry is not redelivered by itself: it stays in the group's pending
list until a claimer takes it, and each claim counts one more delivery. A consumer
leaves a failed entry pending while it has deliveries left, then gives up on it: the
intake writes it to its partition's dead-letter stream with the reason (capped, so a
flood of bad entries cannot grow it without bound) and acknowledges it.
"""

from __future__ import annotations

import time
from typing import Any

from redis.exceptions import RedisError

from orrery_contracts import keys

DEAD_LETTER_MAXLEN = 100_000


async def delivery_count(redis: Any, stream: str, group: str, entry_id: bytes) -> int:
    """How often the group has delivered the entry (its pending-list counter)."""
    rows = await redis.xpending_range(stream, group, min=entry_id, max=entry_id, count=1)
    return int(rows[0]["times_delivered"]) if rows else 1


async def deliveries_left(
    redis: Any, stream: str, group: str, entry_id: bytes, max_deliveries: int
) -> bool:
    """Whether a failed entry stays pending for another try (fewer than
    ``max_deliveries`` so far)."""
    return await delivery_count(redis, stream, group, entry_id) < max_deliveries


def failure_kind(error: BaseException) -> str:
    """``infrastructure`` for a Redis failure, else ``unexpected`` (a bug the handler
    did not turn into an outcome)."""
    return "infrastructure" if isinstance(error, RedisError) else "unexpected"


def add_dead_letter(redis: Any, p: int, entry_id: str, data: bytes, reason: str) -> Any:
    """The dead letter's ``XADD`` on partition ``p``'s dead-letter stream, on a client
    (awaitable) or queued on a pipeline. ``data`` must hold nothing secret: the caller
    scrubs it."""
    return redis.xadd(
        keys.dead_letter_stream(p),
        {
            "entry": entry_id,
            "reason": reason[:2000],
            "data": data,
            "at": int(time.time() * 1000),
        },
        maxlen=DEAD_LETTER_MAXLEN,
        approximate=True,
    )
