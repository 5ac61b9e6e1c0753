"""gateway/tasks.py: a task that loses a cancellation (as one can inside redis-py's
blocking read) is cancelled again until it ends; one that never ends is left, counted,
after a bounded time."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from gateway import tasks
from gateway.tasks import cancel_until_done

pytestmark = pytest.mark.unit


async def _loses_one_cancellation(ended: asyncio.Event) -> None:
    with contextlib.suppress(asyncio.CancelledError):  # lost: the task runs on
        await asyncio.sleep(30)
    try:
        await asyncio.sleep(30)
    finally:
        ended.set()


async def test_a_lost_cancellation_is_repeated_until_the_task_ends() -> None:
    ended = asyncio.Event()
    task = asyncio.create_task(_loses_one_cancellation(ended))
    await asyncio.sleep(0)
    assert await cancel_until_done([task]) == 0
    assert task.done() and ended.is_set()


async def test_an_ended_tasks_error_is_retrieved_and_a_task_that_never_ends_is_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tasks, "PAUSE_S", 0.01)

    async def fails() -> None:
        raise RuntimeError("broken")

    released = False

    async def never_ends() -> None:
        while not released:  # every cancellation is lost until the test releases it
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(30)

    failed = asyncio.create_task(fails())
    stuck = asyncio.create_task(never_ends())
    await asyncio.sleep(0)
    assert await cancel_until_done([failed, stuck]) == 1
    assert failed.done() and not stuck.done()
    # (no "exception was never retrieved" for the failed one: it was retrieved)
    assert isinstance(failed.exception(), RuntimeError)
    released = True
    stuck.cancel()
    await asyncio.wait({stuck}, timeout=5)
    assert stuck.done()
