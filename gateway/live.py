"""Pushing views to WebSockets: one watcher per table and gateway process, shared by
every connection watching that table.

A watcher is woken when the table's updates stream grows (gateway/stream_wake.py: one
blocking read for many tables), reads the views of the viewers its subscribers need
(one ``MGET``), then hands each subscriber the newest view for its own viewer. A
subscriber keeps only the newest view not yet sent: a slow connection skips to the
latest view instead of queueing, so seqs only ever grow and the newest view is never
missed. A connection first subscribes, then reads the current view itself, so nothing
falls between the two.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import structlog

from gateway.signals import Signal
from gateway.stream_wake import stream_wake
from gateway.watches import WatchHub
from gateway.wire import GatewayClient, view_seq
from orrery_contracts import keys

log = structlog.get_logger("orrery.gateway.live")


class Subscriber:
    """One socket's share of a table's watcher: the newest view not yet sent, and the
    signal its socket waits on (shared with what else the socket pushes)."""

    __slots__ = ("pending", "ready", "sent", "viewer")

    def __init__(self, viewer: int | None, after: int, ready: Signal) -> None:
        self.viewer = viewer
        self.sent = after
        self.pending: tuple[int, bytes] | None = None
        self.ready = ready

    def offer(self, raw: bytes) -> None:
        seq = view_seq(raw)
        if seq > self.sent and (self.pending is None or seq > self.pending[0]):
            self.pending = (seq, raw)
            self.ready.set()

    def take(self) -> tuple[int, bytes] | None:
        """The newest view not yet sent, now counted as sent (None: nothing new)."""
        pending, self.pending = self.pending, None
        if pending is not None:
            self.sent = pending[0]
        return pending


class TableWatch:
    def __init__(self, hub: LiveHub, table_id: str) -> None:
        self.hub = hub
        self.table_id = table_id
        self.subscribers: set[Subscriber] = set()
        self.task: asyncio.Task[None] | None = None
        self.waking: Signal | None = None
        # Set once the watcher knows where the updates stream ends: a subscriber reads
        # the current view only after that, so no update falls between the two.
        self.started = asyncio.Event()

    def followed(self) -> bool:
        return bool(self.subscribers)

    async def run(self) -> None:
        client = self.hub.client
        p = client.partition(self.table_id)
        stream = keys.updates_stream(p, self.table_id)
        newest = await client.redis.xrevrange(stream, count=1)
        last: Any = newest[0][0] if newest else "0-0"
        # No blocking read of its own: the process's stream watchers wake it when the
        # updates stream grows (gateway/stream_wake.py).
        async with stream_wake(client).follow(stream, last) as follower:
            self.waking = follower.ready
            follower.ready.clear()  # (the subscribers read the current view themselves)
            self.started.set()
            while self.subscribers:
                await follower.ready.wait()
                follower.ready.clear()  # before the read: an update after it wakes us
                if not self.subscribers:
                    break
                try:
                    await self.push()
                except Exception as error:  # Redis restarting: keep the connections, retry
                    log.warning("watch_failed", table_id=self.table_id, error=type(error).__name__)
                    await asyncio.sleep(0.5)
                    follower.ready.set()

    def kick(self) -> None:
        """Its last subscriber left: let the loop see it now."""
        if self.waking is not None:
            self.waking.set()

    async def push(self) -> None:
        subscribers = list(self.subscribers)
        viewers = sorted({s.viewer for s in subscribers}, key=lambda v: -1 if v is None else v)
        p = self.hub.client.partition(self.table_id)
        raws = await self.hub.client.redis.mget(
            [keys.view_key(p, self.table_id, v) for v in viewers]
        )
        views = dict(zip(viewers, raws, strict=True))
        for subscriber in subscribers:
            raw = views.get(subscriber.viewer)
            if raw is not None:
                subscriber.offer(bytes(raw))


class LiveHub:
    def __init__(self, client: GatewayClient) -> None:
        self.client = client
        self.watches = WatchHub(lambda table_id: TableWatch(self, table_id), "watch_ended")

    @contextlib.asynccontextmanager
    async def subscribe(
        self, table_id: str, viewer: int | None, after: int, ready: Signal
    ) -> AsyncIterator[Subscriber]:
        """Follow the table's views for ``viewer`` after seq ``after``: ``ready`` is set
        when one is there to take."""
        subscriber = Subscriber(viewer, after, ready)
        watch = self.watches.follow(table_id)
        watch.subscribers.add(subscriber)
        try:
            await watch.started.wait()
            current = await self.client.view_raw(table_id, viewer)
            if current is not None:
                subscriber.offer(current)
            del current  # (this frame lives as long as the socket: keep no view in it)
            yield subscriber
        finally:
            watch.subscribers.discard(subscriber)
            if not watch.subscribers:
                watch.kick()

    async def close(self) -> None:
        """End every watcher (the gateway stops): before the client closes, so that no
        read blocked on an updates stream fails and logs it."""
        await self.watches.close()
