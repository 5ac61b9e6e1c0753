"""One watcher per table and gateway process, shared by every socket that follows the
table: what the view pushes (gateway/live.py) and the chat frames (gateway/chat.py)
have in common.

A watcher's task starts when the first socket follows its table and ends by itself
once no socket follows it any more (its loop checks between blocking reads); the
next socket starts a new one. A watcher that fails is logged and forgotten, and it
marks itself started on the way out, so that no socket waits on a dead one. The
gateway ends every watcher before it closes its Redis client (:meth:`WatchHub.close`):
a read still blocked when the client closed would fail and log it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import structlog

from gateway.tasks import cancel_until_done

log = structlog.get_logger("orrery.gateway.watches")


class Watch(Protocol):
    """A table's watcher: :meth:`run` reads until :meth:`followed` turns false; it sets
    ``started`` once it knows where the stream it reads ends."""

    table_id: str
    task: asyncio.Task[None] | None
    started: asyncio.Event

    def followed(self) -> bool: ...

    async def run(self) -> None: ...


W = TypeVar("W", bound=Watch)


class WatchHub(Generic[W]):
    """The watchers of one kind, by table. ``make(table_id)`` builds one; ``ended`` is
    the event logged when one fails."""

    def __init__(self, make: Callable[[str], W], ended: str) -> None:
        self.make = make
        self.ended = ended
        self.tables: dict[str, W] = {}

    def follow(self, table_id: str) -> W:
        """The table's watcher, its task running. The caller subscribes to it before
        it awaits anything (the task runs first at that await, and stops at once when
        nobody follows the table)."""
        watch = self.tables.get(table_id)
        if watch is None:
            watch = self.tables[table_id] = self.make(table_id)
        if watch.task is None or watch.task.done():
            watch.task = asyncio.create_task(self._run(watch))
        return watch

    async def close(self) -> None:
        """End every watcher (the gateway stops)."""
        await cancel_until_done(w.task for w in list(self.tables.values()) if w.task)

    async def _run(self, watch: W) -> None:
        try:
            await watch.run()
        except Exception as error:
            log.warning(self.ended, table_id=watch.table_id, error=type(error).__name__)
        finally:
            watch.started.set()  # never leave a subscriber waiting on a dead watcher
            if self.tables.get(watch.table_id) is watch and not watch.followed():
                del self.tables[watch.table_id]
