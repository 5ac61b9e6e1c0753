"""A wake-up flag for the one task that waits on it: what the gateway holds per socket
instead of :class:`asyncio.Event`.

An ``asyncio.Event`` keeps a deque of waiters from the start (~0.8 KB, empty or not),
and an idle socket held several (its view subscriber, its chat queue's, its heartbeat,
its notice stream's follower): thousands of idle sockets spent megabytes on empty
deques. A :class:`Signal` is a flag and, only while someone waits, one future. One task
waits on it at a time (a second waiter replaces the first, which then waits until the
next ``set``, never past it: a waiter always re-checks what it waits for).
"""

from __future__ import annotations

import asyncio


class Signal:
    """``set`` wakes the waiter (or the next ``wait`` returns at once); ``clear`` before
    reading what the signal stands for, so that anything arriving after the read sets it
    again."""

    __slots__ = ("_on", "_waiter")

    def __init__(self, on: bool = False) -> None:
        self._on = on
        self._waiter: asyncio.Future[None] | None = None

    def set(self) -> None:
        self._on = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def clear(self) -> None:
        self._on = False

    def is_set(self) -> bool:
        return self._on

    async def wait(self, timeout: float | None = None) -> bool:
        """Until set (True) or ``timeout`` seconds have passed (False); no task of its
        own (``asyncio.wait_for`` would wrap the wait in one)."""
        if self._on:
            return True
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if self._waiter is waiter:
                self._waiter = None
        return self._on


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
