"""The bot runner: plays every seat the gateway gave to a server-side bot.

Bot seats are members ``<table>|<seat>`` of the set ``orrery:bots``
(:mod:`orrery_contracts.lobby`). A runner rescans the set at start and every few seconds, and
wakes at once on the gateway's nudge stream. Each seat is played under a lease
(``SET NX PX``, renewed while playing), so several runners, or a runner restarted after
a crash, share the seats without playing one twice. A bot plays from its own seat's
view like ``clients/orrery_client/bot.py`` (random legal moves) with the seat's secret derived from
the server key; a seat leaves the set when its table is over, or when the lobby shows
the seat held by someone else (a bot's join that lost a race).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import uuid

import structlog

from gateway.crypto import seat_secret
from gateway.tasks import cancel_until_done
from gateway.wire import GatewayClient
from orrery_client.bot import play_seat
from orrery_client.sdk import SeatCredentials
from orrery_contracts.lobby import BOT_PLAYER_ID, BOTS_ADDED_STREAM, BOTS_SET, bot_lease_key

log = structlog.get_logger("orrery.bots")
LEASE_MS = 15_000
RESCAN_S = 2.0  # under redis-py's default socket timeout (5 s)
# its reply streams: orrery:reply:bots:* (its Redis user, orrery-bots, reads no others)
REPLY_PREFIX = "bots"


class BotRunner:
    def __init__(self, redis_url: str, secret_key: str, *, name: str | None = None) -> None:
        self.client = GatewayClient(redis_url, reply_prefix=REPLY_PREFIX)
        self.key = secret_key
        self.name = name or f"bots-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.playing: dict[str, asyncio.Task[None]] = {}
        self.rng = random.Random()

    async def run(self, stop: asyncio.Event) -> None:
        await self.client.connect()
        try:
            waker = asyncio.create_task(self._rescan_loop(stop))
            await stop.wait()
            await cancel_until_done([waker])
        finally:
            await self._stop_playing()
            await self.client.close()

    async def _stop_playing(self) -> None:
        """End the seats' tasks (each releases its lease as it ends)."""
        left = await cancel_until_done(self.playing.values())
        if left:
            log.warning("bots_did_not_stop", seats=left)

    async def _rescan_loop(self, stop: asyncio.Event) -> None:
        redis = self.client.redis
        newest = await redis.xrevrange(BOTS_ADDED_STREAM, count=1)
        last = newest[0][0] if newest else "0-0"
        while not stop.is_set():
            try:
                await self.rescan()
                nudges = await redis.xread({BOTS_ADDED_STREAM: last}, block=int(RESCAN_S * 1000))
                if nudges:
                    last = nudges[0][1][-1][0]
            except Exception as error:
                log.warning("bots_rescan_failed", error=type(error).__name__)
                await asyncio.sleep(1.0)

    async def rescan(self) -> None:
        members = sorted(m.decode() for m in await self.client.redis.smembers(BOTS_SET))
        for member in members:
            task = self.playing.get(member)
            if task is not None and not task.done():
                continue
            if await self.client.redis.set(bot_lease_key(member), self.name, nx=True, px=LEASE_MS):
                self.playing[member] = asyncio.create_task(self._play(member))
        for member in [m for m, t in self.playing.items() if t.done()]:
            del self.playing[member]

    async def _play(self, member: str) -> None:
        table_id, _, seat_text = member.rpartition("|")
        lease = asyncio.create_task(self._keep_lease(member))
        try:
            if await self._still_ours(table_id, int(seat_text)):
                seat = SeatCredentials(
                    table_id,
                    int(seat_text),
                    seat_secret(self.key, table_id, int(seat_text), BOT_PLAYER_ID),
                )
                with structlog.contextvars.bound_contextvars(table_id=table_id, seat=seat.seat):
                    await play_seat(self.client, seat, random.Random(self.rng.random()))
            await self.client.redis.srem(BOTS_SET, member)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("bot_failed", member=member, error=type(error).__name__)
        finally:
            lease.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await lease
            with contextlib.suppress(Exception):
                if await self.client.redis.get(bot_lease_key(member)) == self.name.encode():
                    await self.client.redis.delete(bot_lease_key(member))

    async def _still_ours(self, table_id: str, seat: int) -> bool:
        """False when the table is gone or over, or the seat is someone else's."""
        for _ in range(100):
            record = await self.client.lobby_table(table_id)
            if record is None:
                await asyncio.sleep(0.1)  # the join may not be projected yet
                continue
            if record.state in ("finished", "closed"):
                return False
            holder = next((p for p in record.players if p.seat == seat), None)
            if holder is None:
                if record.state != "open":
                    return False
                await asyncio.sleep(0.1)
                continue
            return holder.bot
        return False

    async def _keep_lease(self, member: str) -> None:
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            with contextlib.suppress(Exception):
                await self.client.redis.set(bot_lease_key(member), self.name, px=LEASE_MS)
