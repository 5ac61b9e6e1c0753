"""Whether a player is here: the gateway records it, the notifiers read it.

Nothing is sent to a player who is present: one who holds a live socket (a table's or
their own notices'), or made a request in the last ``ORRERY_NOTIFY_ACTIVE_S``. The
gateway keeps two keys per player: ``seen`` (when it last saw them, unix ms, written at
most once per :data:`TOUCH_EVERY_S` per process, so a busy player costs one SET every few
seconds, not one per request) and ``live`` (renewed every :data:`LIVE_EVERY_S` while a
socket is open, a process's players all in one pipeline, expiring :data:`LIVE_TTL_S`
after the last one closed). The threshold is the notifier's alone: the keys say when,
the notifier decides how recent is present.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from orrery_contracts import keys

TOUCH_EVERY_S = 5.0
LIVE_EVERY_S = 5.0
LIVE_TTL_S = 15
SEEN_TTL_S = 24 * 3600  # longer than any sensible ORRERY_NOTIFY_ACTIVE_S
_REMEMBERED = 50_000  # players whose last touch a process remembers (then it forgets all)


class Activity:
    """The gateway's side: a process's record of when it last saw each player."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.touched: dict[str, float] = {}
        self.live: dict[str, int] = {}  # player → sockets open in this process
        self.renewing: asyncio.Task[None] | None = None

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

    async def hold_live(self, player_id: str) -> None:
        """While a socket of the player is open (run as one of its tasks; cancelled when
        it closes): the player is live, and seen now. The keys of every player live in
        this process are renewed in one pipeline every :data:`LIVE_EVERY_S`, not one
        round trip per socket."""
        self.live[player_id] = self.live.get(player_id, 0) + 1
        try:
            await self._renew([player_id])
            if self.renewing is None or self.renewing.done():
                self.renewing = asyncio.create_task(self._renew_all())
            await asyncio.Event().wait()  # until the socket closes
        finally:
            self.live[player_id] -= 1
            if not self.live[player_id]:
                del self.live[player_id]

    async def _renew(self, players: list[str]) -> None:
        now = int(time.time() * 1000)
        pipe = self.redis.pipeline(transaction=False)
        for player_id in players:
            pipe.set(keys.live_key(player_id), "1", ex=LIVE_TTL_S)
            pipe.set(keys.seen_key(player_id), now, ex=SEEN_TTL_S)
        await pipe.execute()

    async def _renew_all(self) -> None:
        while self.live:
            await asyncio.sleep(LIVE_EVERY_S)
            if self.live:
                with contextlib.suppress(Exception):  # Redis restarting: the next round
                    await self._renew(list(self.live))


async def present_until(redis: Any, player_id: str, active_s: float, now_ms: int) -> int | None:
    """Until when (unix ms) the player counts as present, or None when they are away:
    with a live socket, a re-check after the socket's expiry; else their last request
    plus ``active_s``."""
    live, seen = await redis.mget(keys.live_key(player_id), keys.seen_key(player_id))
    if live is not None:
        return now_ms + LIVE_TTL_S * 1000
    if seen is None:
        return None
    until = int(seen) + int(active_s * 1000)
    return until if until > now_ms else None
