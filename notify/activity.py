"""Whether a player is here: the gateway records it, the notifiers read it.

Nothing is sent to a player who is present: one who holds a live socket (a table's or
their own notices'), or made a request in the last ``ORRERY_NOTIFY_ACTIVE_S``. The
gateway keeps two keys per player: ``seen`` (when it last saw them, unix ms, written at
most once per :data:`TOUCH_EVERY_S` per process, so a busy player costs one SET a second,
not one per request; a request may be that much newer than ``seen`` says, so the
notifier counts the player present that much longer) and ``live`` (written with each of
a socket's heartbeats, :func:`live_flags`, expiring at least :data:`LIVE_TTL_S` after the
last one). The threshold is the notifier's alone: the keys say when, the notifier
decides how recent is present.
"""

from __future__ import annotations

import time
from typing import Any

from orrery_contracts import keys

TOUCH_EVERY_S = 1.0
LIVE_TTL_S = 15
SEEN_TTL_S = 24 * 3600  # longer than any sensible ORRERY_NOTIFY_ACTIVE_S
_REMEMBERED = 50_000  # players whose last touch a process remembers (then it forgets all)


class Activity:
    """The gateway's side: a process's record of when it last saw each player."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.touched: dict[str, float] = {}

    async def touch(self, player_id: str) -> None:
        """The player made a request now (written if not written in the last
        :data:`TOUCH_EVERY_S` by this process)."""
        now = time.monotonic()
        if now - self.touched.get(player_id, -TOUCH_EVERY_S) < TOUCH_EVERY_S:
            return
        if len(self.touched) >= _REMEMBERED:
            self.touched.clear()
        self.touched[player_id] = now
        await self.redis.set(keys.seen_key(player_id), int(time.time() * 1000), ex=SEEN_TTL_S)


def live_flags(player_id: str, ttl_ms: int) -> list[tuple[str, str, int]]:
    """A live socket's flags for the notifiers (key, value, time to live in ms), written
    with each of its heartbeats: the player is live (for at least :data:`LIVE_TTL_S`,
    whatever the heartbeat's own time to live) and seen now."""
    now = int(time.time() * 1000)
    return [
        (keys.live_key(player_id), "1", max(ttl_ms, LIVE_TTL_S * 1000)),
        (keys.seen_key(player_id), str(now), SEEN_TTL_S * 1000),
    ]


async def present_until(redis: Any, player_id: str, active_s: float, now_ms: int) -> int | None:
    """Until when (unix ms) the player counts as present, or None when they are away:
    with a live socket, a re-check after the socket's expiry; else their last request
    plus ``active_s`` (and :data:`TOUCH_EVERY_S`: a later request within it is not
    written)."""
    live, seen = await redis.mget(keys.live_key(player_id), keys.seen_key(player_id))
    if live is not None:
        return now_ms + LIVE_TTL_S * 1000
    if seen is None:
        return None
    until = int(seen) + int((active_s + TOUCH_EVERY_S) * 1000)
    return until if until > now_ms else None
