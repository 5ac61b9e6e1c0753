"""The stream watchers (gateway/stream_wake.py) against a real server: one blocking read
per group of streams wakes exactly the followers of the streams that grew, a follower
that reads as a notice socket does misses no entry however they race, and the
connections it holds grow with the groups, not with the followers."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from redis import asyncio as aioredis

from gateway.stream_wake import GROUP, StreamWake

pytestmark = pytest.mark.service


async def test_a_few_reads_wake_exactly_the_followers_of_streams_that_grew(
    redis_client: aioredis.Redis,
) -> None:
    watch = StreamWake(redis_client)
    count = GROUP + 10  # two groups
    async with contextlib.AsyncExitStack() as stack:
        followers = [
            await stack.enter_async_context(watch.follow(f"notices:{i}", "0-0"))
            for i in range(count)
        ]
        assert len(watch.groups) == 2
        for f in followers:
            f.ready.clear()
        grown = {3, GROUP + 5}
        for i in grown:
            await redis_client.xadd(f"notices:{i}", {"__data__": b"{}"})
        async with asyncio.timeout(10):
            for i in grown:
                await followers[i].ready.wait()
        await asyncio.sleep(0.2)
        assert {i for i, f in enumerate(followers) if f.ready.is_set()} == grown
        # one blocking connection per group, not per follower
        clients = await redis_client.client_list()
        assert sum(1 for c in clients if c.get("cmd") == "xread") <= 2
    async with asyncio.timeout(10):  # the groups end with their last stream
        while watch.groups:
            await asyncio.sleep(0.05)
    assert watch.followers == {} and watch.group_of == {}


async def test_a_follower_reading_like_a_notice_socket_misses_no_entry(
    redis_client: aioredis.Redis,
) -> None:
    watch = StreamWake(redis_client)
    key = "notices:racing"
    sent = 60
    got: list[bytes] = []

    async def socket() -> None:
        last = "0-0"
        async with watch.follow(key, last) as follower:
            while len(got) < sent:
                follower.ready.clear()
                found: Any = await redis_client.xread({key: last}, count=7)
                for _, rows in found:
                    for entry_id, fields in rows:
                        last = entry_id.decode()
                        got.append(fields[b"n"])
                    if len(rows) == 7:
                        follower.ready.set()
                await follower.ready.wait()

    reader = asyncio.create_task(socket())
    for n in range(sent):
        await redis_client.xadd(key, {"n": str(n).encode()})
        if n % 7 == 0:
            await asyncio.sleep(0.01)
    async with asyncio.timeout(20):
        await reader
    assert got == [str(n).encode() for n in range(sent)]
