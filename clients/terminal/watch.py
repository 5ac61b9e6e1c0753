"""A seat's views as they change, until told to stop — without cancelling a read.

Like ``OrreryClient.watch`` (the current view, then each newer one as the projector
writes it), but it polls the table's updates stream with a short block and checks a
stop flag between polls: a task blocked in redis-py's ``XREAD`` may never finish when
it is cancelled, which would hold up the program's exit. ``stop()`` ends the iteration
within one poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from orrery_client.sdk import OrreryClient
from orrery_contracts import keys

POLL_MS = 250
_PAUSE = 0.25


class ViewWatch:
    def __init__(self, client: OrreryClient, table_id: str, seat: int | None) -> None:
        self.client = client
        self.table_id = table_id
        self.seat = seat
        self._stopping = False

    def stop(self) -> None:
        self._stopping = True

    async def views(self) -> AsyncIterator[dict[str, Any]]:
        client = self.client
        stream = keys.updates_stream(client.partition(self.table_id), self.table_id)
        last = "0-0"
        seen = -1
        fresh = True
        while not self._stopping:
            try:
                if fresh:  # (again) from the newest update: the current view first
                    newest = await client.redis.xrevrange(stream, count=1)
                    last = newest[0][0] if newest else "0-0"
                    fresh = False
                else:
                    updates = await client.redis.xread({stream: last}, block=POLL_MS)
                    if not updates:
                        continue
                    last = updates[0][1][-1][0]
                view = await client.view(self.table_id, self.seat)
            except (RedisConnectionError, RedisTimeoutError, AttributeError):
                await asyncio.sleep(_PAUSE)  # a restart or failover: go on from the newest
                fresh = True
                continue
            if view is not None and view["seq"] > seen and not self._stopping:
                seen = view["seq"]
                yield view
