"""The renewals of many sockets' flags in one pipeline per period (gateway/beats.py)
and a socket's heartbeat among them (gateway/presence.py: its presence, the online
flag of realtime tickets, the notifier's live and seen), against a real server: every
member's flags are written each period, a member that left is not, and the process's
task ends with its last member."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest
from redis import asyncio as aioredis

from gateway.beats import Beats
from gateway.presence import Heartbeat
from notify.activity import LIVE_TTL_S
from orrery_contracts import keys
from orrery_contracts.social import presence_key

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


async def test_a_sockets_heartbeat_keeps_its_player_present_online_live_and_seen(
    redis_client: aioredis.Redis,
) -> None:
    # the two attributes of a gateway a socket's heartbeat reads
    gateway: Any = SimpleNamespace(
        client=SimpleNamespace(redis=redis_client), settings=SimpleNamespace(presence_ttl_s=0.3)
    )
    heartbeat = Heartbeat(gateway, "ann")
    await heartbeat.beat()  # (as the socket opens)
    written = (presence_key("ann"), keys.online_key("ann"), keys.live_key("ann"))
    assert await redis_client.exists(*written, keys.seen_key("ann")) == 4
    seen = int(await redis_client.get(keys.seen_key("ann")) or 0)
    assert abs(seen - time.time() * 1000) < 60_000
    # live lasts at least the notifier's own floor; the others the presence's time to live
    assert await redis_client.pttl(keys.live_key("ann")) > LIVE_TTL_S * 1000 - 5_000
    assert 0 < await redis_client.pttl(keys.online_key("ann")) <= 300
    with heartbeat.held():  # renewed with the process's other sockets while open
        await asyncio.sleep(1.0)
        assert await redis_client.exists(presence_key("ann"), keys.online_key("ann")) == 2
    await asyncio.sleep(0.6)  # closed: nothing renews them
    assert await redis_client.exists(presence_key("ann"), keys.online_key("ann")) == 0
