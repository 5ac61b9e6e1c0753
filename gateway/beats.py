"""Work a process does for many sockets once per period (:class:`Rounds`, one task for
them all): here, renewing the expiring flags of many sockets, a few pipelines a round.

A socket keeps flags about its player alive in Redis (online or away, for a waiting
realtime ticket): each set with a time to live and renewed before it lapses. One
renewal per socket per period is one round trip per socket: ten thousand idle sockets
would cost a core. Here each gateway process renews the flags of all its sockets once per
period (:class:`Beats`), in pipelines of a few hundred flags (one of ten thousand sockets'
would hold the event loop, and every push, for a third of a second); a socket writes on
its own only when its state changes, so a change shows at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

Flag = tuple[str, str, int]  # key, value, time to live in ms
Member = TypeVar("Member")
R = TypeVar("R", bound="Rounds[Any]")


class Rounds(Generic[Member]):
    """Members of one process served together once every ``every_s`` (:meth:`round`),
    by one task that runs while any member is left."""

    def __init__(self, redis: Any, every_s: float) -> None:
        self.redis = redis
        self.every_s = every_s
        self.members: set[Member] = set()
        self.task: asyncio.Task[None] | None = None

    def join(self, member: Member) -> None:
        self.members.add(member)
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run())

    def leave(self, member: Member) -> None:
        self.members.discard(member)

    async def _run(self) -> None:
        while self.members:
            await asyncio.sleep(self.every_s)
            with contextlib.suppress(Exception):  # Redis restarting: the next round
                await self.round()

    async def round(self) -> None:
        raise NotImplementedError


class Beats(Rounds[Callable[[], list[Flag]]]):
    """The sockets of one process whose flags are renewed every ``every_s``; each
    member's ``flags()`` says what to write (a key named twice is written once)."""

    async def round(self) -> None:
        """One round: every member's flags, a key named twice written once, in pipelines
        of :data:`MEMBERS_PER_PIPELINE` members, so that no round holds the event loop
        for long (one pipeline of ten thousand sockets' flags held it for a third of a
        second, and every socket's push waited)."""
        written: set[str] = set()
        members = list(self.members)
        for at in range(0, len(members), MEMBERS_PER_PIPELINE):
            pipe = self.redis.pipeline(transaction=False)
            for flags in members[at : at + MEMBERS_PER_PIPELINE]:
                for key, value, ttl_ms in flags():
                    if key not in written:
                        written.add(key)
                        pipe.set(key, value, px=ttl_ms)
            if len(pipe):
                with contextlib.suppress(Exception):  # Redis restarting: the next round renews
                    await pipe.execute()


MEMBERS_PER_PIPELINE = 64
_rounds: dict[tuple[type, int, float], Any] = {}


def of_process(kind: type[R], owner: Any, redis: Any, every_s: float) -> R:
    """The rounds of ``kind`` every ``every_s`` of ``owner`` (a gateway's wire client:
    one per process)."""
    key = (kind, id(owner), every_s)
    found: R | None = _rounds.get(key)
    if found is None:
        found = _rounds[key] = kind(redis, every_s)
    return found


def beats(owner: Any, redis: Any, every_s: float) -> Beats:
    """The flag renewals every ``every_s`` of ``owner``'s process."""
    return of_process(Beats, owner, redis, every_s)
