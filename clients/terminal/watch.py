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

import msgspec
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.chat import ChatMessage, read_entry

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
        p = client.partition(self.table_id)
        stream = keys.updates_stream(p, self.table_id)
        view_key = keys.view_key(p, self.table_id, self.seat)
        last = "0-0"
        seen = -1
        fresh = True
        while not self._stopping:
            try:
                if fresh:  # (again) from the newest update: the current view first
                    newest = await client.redis.xrevrange(stream, count=1)
                    last = newest[0][0] if newest else "0-0"
                    fresh = False
                    view = await client.view(self.table_id, self.seat)
                else:
                    # the wait and the view in one round trip, as in the SDK's watch
                    pipe = client.redis.pipeline(transaction=False)
                    pipe.xread({stream: last}, block=POLL_MS)
                    pipe.get(view_key)
                    updates, raw = await pipe.execute()
                    if not updates:
                        continue
                    last = updates[0][1][-1][0]
                    view = None if raw is None else msgspec.json.decode(raw)
            except (RedisConnectionError, RedisTimeoutError, AttributeError):
                await asyncio.sleep(_PAUSE)  # a restart or failover: go on from the newest
                fresh = True
                continue
            if view is not None and view["seq"] > seen and not self._stopping:
                seen = view["seq"]
                yield view


class ChatWatch:
    """A table's chat as it grows (the last ``backlog`` messages first), with the same
    stop flag as :class:`ViewWatch`."""

    def __init__(self, client: OrreryClient, table_id: str, backlog: int = 5) -> None:
        self.client = client
        self.table_id = table_id
        self.backlog = backlog
        self._stopping = False

    def stop(self) -> None:
        self._stopping = True

    async def messages(self) -> AsyncIterator[ChatMessage]:
        client = self.client
        stream = keys.chat_stream(client.partition(self.table_id), self.table_id)
        last: Any = None
        while not self._stopping:
            try:
                if last is None:  # the backlog first, then what follows it
                    rows = list(reversed(await client.redis.xrevrange(stream, count=self.backlog)))
                    last = rows[-1][0] if rows else "0-0"
                else:
                    found = await client.redis.xread({stream: last}, block=POLL_MS, count=50)
                    rows = found[0][1] if found else []
                    last = rows[-1][0] if rows else last
            except (RedisConnectionError, RedisTimeoutError, AttributeError):
                await asyncio.sleep(_PAUSE)
                continue
            for entry_id, fields in rows:
                data = fields.get(b"__data__")
                message = read_entry(entry_id.decode(), data) if data else None
                if message is not None and not self._stopping:
                    yield message
