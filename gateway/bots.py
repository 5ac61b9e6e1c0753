"""The bot runner: plays every seat a server-side bot holds.

Bot seats are members ``<table>|<seat>`` of the set ``orrery:bots``
(:mod:`orrery_contracts.lobby`): the gateway adds a bot's seat before its join, the
projector a seat a bot took over from a player who abandoned it. A runner rescans the set
at start and every few seconds, and wakes at once on the nudge stream. Each seat is
played under a lease (``SET NX PX``, renewed while playing), so several runners, or a
runner restarted after a crash, share the seats without playing one twice.

The level travels with the seat in the lobby's record (``LobbySeat.bot_level``: the
level a bot joined with, or the table's for a seat taken over), so nothing beside the
set needs to be kept. A bot is a client: it plays from its own seat's view, choosing
with ``choose`` (``bots.choose_move`` under ``orrery serve``; uniform random legal
moves by default) in a worker thread, since a search is CPU work that must not stop
the event loop, with the seat's secret derived from the server key for its bot player
id. A seat leaves the set when its table is over, or when the lobby shows the seat
held by someone else (a bot's join that lost a race).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from gateway.crypto import seat_secret
from gateway.tasks import cancel_until_done
from gateway.wire import GatewayClient
from orrery_client.bot import choose
from orrery_client.sdk import SeatCredentials
from orrery_contracts.lobby import (
    BOT_PLAYER_ID,
    BOTS_ADDED_STREAM,
    BOTS_SET,
    bot_lease_key,
    bot_player_id,
)

log = structlog.get_logger("orrery.bots")
LEASE_MS = 15_000
RESCAN_S = 2.0  # under redis-py's default socket timeout (5 s)
# its reply streams: orrery:reply:bots:* (its Redis user, orrery-bots, reads no others)
REPLY_PREFIX = "bots"
MAX_MOVES = 100_000

# (game, the seat's view, seat, level, rng) -> the command to send, or None
Chooser = Callable[[str, dict[str, Any], int, str, random.Random], dict[str, Any] | None]


def random_choice(
    game: str, view: dict[str, Any], seat: int, level: str, rng: random.Random
) -> dict[str, Any] | None:
    """Uniform among the legal moves, whatever the level (a runner without the engine)."""
    del game, seat, level
    return choose(view, rng)


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A seat a bot plays: the game, the bot's level, and the player id its secret is
    derived for (``bot:<level>``; ``bot`` for a seat joined before levels)."""

    game: str
    level: str
    player_id: str


class BotRunner:
    def __init__(
        self,
        redis_url: str,
        secret_key: str,
        *,
        name: str | None = None,
        chooser: Chooser = random_choice,
    ) -> None:
        self.client = GatewayClient(redis_url, reply_prefix=REPLY_PREFIX)
        self.chooser = chooser
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
            bot = await self._still_ours(table_id, int(seat_text))
            if bot is not None:
                seat = SeatCredentials(
                    table_id,
                    int(seat_text),
                    seat_secret(self.key, table_id, int(seat_text), bot.player_id),
                )
                with structlog.contextvars.bound_contextvars(
                    table_id=table_id, seat=seat.seat, level=bot.level
                ):
                    await self._play_seat(seat, bot, random.Random(self.rng.random()))
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

    async def _play_seat(self, seat: SeatCredentials, bot: BotSeat, rng: random.Random) -> None:
        """Play ``seat`` until its table is finished, each choice in a worker thread."""
        moves = 0
        async for view in self.client.watch(seat.table_id, seat.seat):
            if view["phase"] == "finished":
                return
            if view["phase"] != "playing" or seat.seat not in view["to_move"]:
                continue
            move = await asyncio.to_thread(
                self.chooser, bot.game, view, seat.seat, bot.level, random.Random(rng.random())
            )
            if move is None:
                continue
            # A rejection means the view was already stale (another seat moved): the
            # next view is on its way, so just wait for it.
            await self.client.play(seat, move)
            moves += 1
            if moves > MAX_MOVES:
                raise RuntimeError(f"table {seat.table_id}: seat {seat.seat} made {moves} moves")

    async def _still_ours(self, table_id: str, seat: int) -> BotSeat | None:
        """The bot that plays the seat; None when the table is gone or over, or the seat
        is someone else's."""
        for _ in range(100):
            record = await self.client.lobby_table(table_id)
            if record is None:
                await asyncio.sleep(0.1)  # the join may not be projected yet
                continue
            if record.state in ("finished", "closed"):
                return None
            holder = next((p for p in record.players if p.seat == seat), None)
            if holder is not None and holder.bot and holder.bot_level is None:
                return BotSeat(game=record.game, level="random", player_id=BOT_PLAYER_ID)
            if holder is not None and holder.bot_level is not None:
                level = holder.bot_level
                return BotSeat(game=record.game, level=level, player_id=bot_player_id(level))
            if holder is not None and record.state != "playing":
                return None  # a person's seat in the lobby (a bot's join lost the race)
            # not projected yet: a join, or a takeover announced before its record
            await asyncio.sleep(0.1)
        return None

    async def _keep_lease(self, member: str) -> None:
        while True:
            await asyncio.sleep(LEASE_MS / 3000)
            with contextlib.suppress(Exception):
                await self.client.redis.set(bot_lease_key(member), self.name, px=LEASE_MS)
