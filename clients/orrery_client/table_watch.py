"""One reader of a table's updates for every seat a client watches on that table.

``OrreryClient.watch`` used to read per seat: each watcher blocked on the table's updates
stream and read its own view, so a client playing several seats of one table (the
gateway's bot runner, ``orrery demo``, a bot farm) made one blocking read, one round trip
and one connection per seat for every update. A :class:`TableWatch` makes one: a
pipeline of the blocking ``XREAD`` and a ``GET`` of each watched seat's view (all keys of
one table share its slot, so this holds on a cluster too), whose views it hands to each
seat's :class:`Follower`.

Choices:

* a follower keeps the newest view only (a slow consumer skips views, as a watcher that
  read the current view after several updates did);
* a follower registers before it reads its first view, and the reader starts from where
  that first look found the stream's end: every update after the first look is read by
  the reader, and a seat that joined while a read was in flight has its view read
  when the read returns. A reader another follower started from a later end has not
  read the updates in between: :meth:`TableWatch.start` says so, and the follower reads
  its view once more;
* after ``QUIET_READS`` empty blocks the views are read anyway (a failover can change a
  view and lose the update that announced it);
* while the client is open the reader is never cancelled (cancelling a blocked read can
  leave redis-py's connection hanging): it ends at its next return once no seat follows,
  so a table played move after move keeps one reader. The client's close cancels it
  (its connections close right after);
* a lost connection is ridden out with a pause; any other error ends the reader and is
  raised to every follower, as :class:`WatchClosed` is when the client closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from orrery_contracts import keys

BLOCK_MS = 500
QUIET_READS = 4  # read the views anyway after this many empty blocks
STOP_TRIES = 4
_NOTHING = object()


class WatchClosed(RuntimeError):
    """The client closed while a watch waited for its next view."""


class Follower:
    """One seat's (None: a spectator's) place at a :class:`TableWatch`: the newest raw
    view handed to it, waited for with :meth:`next`."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self._latest: Any = _NOTHING
        self._ready = asyncio.Event()

    def offer(self, raw: bytes | None) -> None:
        self._latest = raw
        self._ready.set()

    def fail(self, error: BaseException) -> None:
        self._latest = error
        self._ready.set()

    async def next(self) -> bytes | None:
        """The newest view read since the last call (raw JSON, None: no view)."""
        await self._ready.wait()
        self._ready.clear()
        latest, self._latest = self._latest, _NOTHING
        if isinstance(latest, BaseException):
            raise latest
        view: bytes | None = latest
        return view


class TableWatch:
    """The reader of one table's updates for a client's followers of its seats."""

    def __init__(
        self,
        redis: Any,
        partition: int,
        table_id: str,
        *,
        transient: tuple[type[BaseException], ...],
        pause_s: float,
        closing: Callable[[], bool],
        ended: Callable[[TableWatch], None],
    ) -> None:
        self.redis = redis
        self.partition = partition
        self.table_id = table_id
        self.stream = keys.updates_stream(partition, table_id)
        self.transient = transient
        self.pause_s = pause_s
        self.closing = closing
        self.ended = ended  # told once no follower is left and no reader runs
        self.followers: dict[int | None, set[Follower]] = {}
        self._task: asyncio.Task[None] | None = None
        self._from = "0-0"  # where the running reader started
        self._last = "0-0"  # the updates stream's id read up to

    def view_key(self, seat: int | None) -> str:
        return keys.view_key(self.partition, self.table_id, seat)

    def follow(self, seat: int | None) -> Follower:
        follower = Follower(seat)
        self.followers.setdefault(seat, set()).add(follower)
        return follower

    def start(self, after: str) -> bool:
        """Read the updates after ``after`` (a follower's first look), unless a reader
        runs already. True when the running reader started after ``after``: the updates
        in between were read by no one, so the follower must look at its view again."""
        if self._task is None:
            self._from = self._last = after
            self._task = asyncio.create_task(self._run(), name=f"watch:{self.table_id}")
            return False
        return _stream_id(after) < _stream_id(self._from)

    def leave(self, follower: Follower) -> None:
        seats = self.followers.get(follower.seat)
        if seats is not None:
            seats.discard(follower)
            if not seats:
                del self.followers[follower.seat]
        if not self.followers and self._task is None:
            self.ended(self)

    async def stop(self) -> None:
        """End the reader now (the client closes, and its connections with it): a read
        left to end by itself would hold the close for up to a block. The cancellation is
        repeated while the task runs (Python 3.11's ``wait_for`` inside redis-py can
        drop one), a few times at most."""
        task = self._task
        for _ in range(STOP_TRIES):
            if task is None or task.done():
                return
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)

    async def _run(self) -> None:
        quiet = 0
        try:
            while self.followers and not self.closing():
                seats = list(self.followers)
                try:
                    updates, views = await self._read(seats)
                except self.transient:
                    await asyncio.sleep(self.pause_s)
                    continue
                if updates:
                    quiet = 0
                    self._last = updates[0][1][-1][0]
                else:
                    quiet += 1
                    if quiet % QUIET_READS:
                        continue
                added = [seat for seat in self.followers if seat not in views]
                if added:  # followers that came while the read was in flight
                    # (on a lost connection they keep their first look until the views
                    # are read again: the next update, or the quiet reads' look)
                    with contextlib.suppress(*self.transient):
                        views.update(await self._views(added))
                for seat, raw in views.items():
                    for follower in list(self.followers.get(seat, ())):
                        follower.offer(raw)
        except Exception as error:
            self._fail_all(error)
        finally:
            self._task = None
            if self.closing():
                self._fail_all(WatchClosed("the client closed"))
            if not self.followers:
                self.ended(self)

    def _fail_all(self, error: BaseException) -> None:
        for followers in self.followers.values():
            for follower in followers:
                follower.fail(error)

    async def _read(self, seats: list[int | None]) -> tuple[Any, dict[int | None, Any]]:
        """The updates after the last one read, then (the server runs them as soon as
        the blocking read returns) each seat's view, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xread({self.stream: self._last}, block=BLOCK_MS)
        updates, *raws = await self._views_in(pipe, seats).execute()
        return updates, dict(zip(seats, raws, strict=True))

    async def _views(self, seats: list[int | None]) -> dict[int | None, Any]:
        raws = await self._views_in(self.redis.pipeline(transaction=False), seats).execute()
        return dict(zip(seats, raws, strict=True))

    def _views_in(self, pipe: Any, seats: list[int | None]) -> Any:
        for seat in seats:
            pipe.get(self.view_key(seat))
        return pipe


def _stream_id(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)
