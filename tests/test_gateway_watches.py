"""The gateway's per-table watchers (gateway/watches.py), shared by the view pushes and
the chat frames: one per table however many follow it, gone with its last follower, a
failed one logged and never left for a follower to wait on, every one ended by close.
(The same watchers against a real server: tests/test_gateway.py, test_gateway_chat.py.)"""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from gateway.watches import WatchHub

pytestmark = pytest.mark.unit


class FakeWatch:
    """A watcher whose reads are an event to wait on (or an error to raise)."""

    def __init__(self, table_id: str, fails: bool = False) -> None:
        self.table_id = table_id
        self.task: asyncio.Task[None] | None = None
        self.started = asyncio.Event()
        self.followers: set[object] = set()
        self.fails = fails
        self.runs = 0
        self.update = asyncio.Event()

    def followed(self) -> bool:
        return bool(self.followers)

    async def run(self) -> None:
        self.runs += 1
        if self.fails:
            raise ConnectionError("the server went away")
        self.started.set()
        while self.followers:
            self.update.clear()
            await self.update.wait()  # one blocking read


async def test_one_watcher_per_table_gone_with_its_last_follower() -> None:
    hub: WatchHub[FakeWatch] = WatchHub(FakeWatch, "watch_ended")
    first = hub.follow("t1")
    first.followers.add("ann")
    second = hub.follow("t1")
    second.followers.add("ben")
    assert first is second and set(hub.tables) == {"t1"}
    await asyncio.wait_for(first.started.wait(), 5)
    first.followers.clear()
    first.update.set()  # the next read returns: nobody follows any more
    assert first.task is not None
    await asyncio.wait_for(first.task, 5)
    assert hub.tables == {} and first.runs == 1
    again = hub.follow("t1")
    assert again is not first


async def test_a_failed_watcher_is_logged_and_leaves_no_one_waiting() -> None:
    hub: WatchHub[FakeWatch] = WatchHub(lambda t: FakeWatch(t, fails=True), "chat_watch_ended")
    with capture_logs() as logs:
        watch = hub.follow("t2")
        watch.followers.add("ann")
        await asyncio.wait_for(watch.started.wait(), 5)  # set on the way out
        assert watch.task is not None
        await asyncio.wait_for(asyncio.shield(watch.task), 5)
    assert [(e["event"], e["table_id"], e["error"]) for e in logs] == [
        ("chat_watch_ended", "t2", "ConnectionError")
    ]
    # still followed: kept, and the next follower starts it again
    assert hub.tables == {"t2": watch}
    assert hub.follow("t2") is watch and watch.task is not None
    await asyncio.wait_for(asyncio.shield(watch.task), 5)
    assert watch.runs == 2


@pytest.mark.parametrize("tables", [1, 3])
async def test_close_ends_every_blocked_watcher(tables: int) -> None:
    hub: WatchHub[FakeWatch] = WatchHub(FakeWatch, "watch_ended")
    watches = [hub.follow(f"t{i}") for i in range(tables)]
    for watch in watches:
        watch.followers.add("ann")
        await asyncio.wait_for(watch.started.wait(), 5)
    await hub.close()
    assert all(w.task is not None and w.task.done() for w in watches)
