"""The bots at a person's table, each on a :class:`~clients.terminal.watch.ViewWatch`, so
they all stop promptly on exit. They choose with the chooser given (``orrery play``: the
bot engine at the level asked for, in a worker thread), else random legal moves
(``orrery_client.bot.choose``)."""

from __future__ import annotations

import asyncio
import contextlib
import random

from clients.terminal.watch import ViewWatch
from orrery_client.bot import Chooser, choose
from orrery_client.sdk import OrreryClient, SeatCredentials


class Bots:
    def __init__(
        self,
        client: OrreryClient,
        seats: list[SeatCredentials],
        seed: int | None,
        chooser: Chooser | None = None,
    ):
        rng = random.Random(seed)
        self._watches = [ViewWatch(client, s.table_id, s.seat) for s in seats]
        self._tasks = [
            asyncio.create_task(_play(client, seat, watch, random.Random(rng.random()), chooser))
            for seat, watch in zip(seats, self._watches, strict=True)
        ]

    async def stop(self, grace: float = 1.0) -> None:
        for watch in self._watches:
            watch.stop()
        if not self._tasks:
            return
        _, pending = await asyncio.wait(self._tasks, timeout=grace)
        for task in pending:  # waiting for a move's outcome (never inside a read)
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _play(
    client: OrreryClient,
    seat: SeatCredentials,
    watch: ViewWatch,
    rng: random.Random,
    chooser: Chooser | None,
) -> None:
    async for view in watch.views():
        if view["phase"] == "finished":
            return
        if view["phase"] != "playing" or seat.seat not in view["to_move"]:
            continue
        if chooser is None:
            move = choose(view, rng)
        else:  # a search: CPU work, off the event loop
            move = await asyncio.to_thread(chooser, view, random.Random(rng.random()))
        if move is not None:
            # A rejection means the view was stale (another seat moved): the next one
            # is on its way.
            await client.play(seat, move)
