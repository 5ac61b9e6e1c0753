"""The renewals of many sockets' flags in one pipeline per period (gateway/beats.py)
and the notifier's live flag held the same way (notify/activity.py), against a real
server: every member's flags are written each period, a member that left is not, and
the process's task ends with its last member."""

from __future__ import annotations

import asyncio

import pytest
from redis import asyncio as aioredis

from gateway.beats import Beats
from notify.activity import Activity
from orrery_contracts import keys

pytestmark = pytest.mark.service


async def test_every_member_is_renewed_in_one_round_and_a_leaver_is_not(
    redis_client: aioredis.Redis,
) -> None:
    renewals = Beats(redis_client, 0.1)
    members = [
        lambda i=i: [(f"flag:{i}", "on", 5_000), ("flag:shared", "1", 5_000)] for i in range(50)
    ]
    for member in members:
        renewals.join(member)
    renewals.leave(members[0])
    async with asyncio.timeout(10):
        while await redis_client.exists("flag:49") == 0:
            await asyncio.sleep(0.05)
    assert await redis_client.exists(*(f"flag:{i}" for i in range(1, 50))) == 49
    assert not await redis_client.exists("flag:0")
    assert 0 < await redis_client.pttl("flag:shared") <= 5_000
    for member in members[1:]:
        renewals.leave(member)
    assert renewals.task is not None
    async with asyncio.timeout(10):
        await renewals.task


async def test_a_live_socket_keeps_its_player_live_and_seen(redis_client: aioredis.Redis) -> None:
    activity = Activity(redis_client)
    holders = [asyncio.create_task(activity.hold_live(p)) for p in ("ann", "ann", "ben")]
    async with asyncio.timeout(10):
        while not await redis_client.exists(keys.live_key("ben")):
            await asyncio.sleep(0.02)
    assert await redis_client.exists(keys.live_key("ann"), keys.seen_key("ann")) == 2
    assert activity.live == {"ann": 2, "ben": 1}
    for task in holders:
        task.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    assert activity.live == {}
