"""Ending a connection's or a runner's asyncio tasks for good.

One ``cancel()`` is not always enough: a cancellation can be lost in redis-py's
blocking read (Python 3.11's ``wait_for`` drops one that arrives as the read completes),
and the task then runs on. A bot that lost it played on after SIGTERM until its runner
was killed (its seats' leases held 15 s more); a WebSocket's half that lost it would
keep its handler alive after the client left. So the cancellation is repeated until
each task has ended, for a bounded time (streams/readers.py's ``stop_task`` does the
same for the stream readers, which the gateway does not import).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

STOP_ROUNDS = 10  # cancellations, PAUSE_S apart, before a task is left running
PAUSE_S = 0.5


async def cancel_until_done(tasks: Iterable[asyncio.Task[Any]]) -> int:
    """Cancel ``tasks`` until every one has ended; how many were left running. An ended
    task's error is retrieved here (the caller has what it needed from them)."""
    every = list(tasks)
    pending = {task for task in every if not task.done()}
    for _ in range(STOP_ROUNDS):
        if not pending:
            break
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=PAUSE_S)
    for task in every:
        if task.done() and not task.cancelled():
            task.exception()
    return len(pending)
