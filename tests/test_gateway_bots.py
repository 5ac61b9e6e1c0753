"""Server-side bots: a bot seat added while no bot runner runs is played once one
starts (the runner rescans the set of bot seats), and a runner restarted mid-game
carries on; a finished table's bot seats leave the set."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from orrery_contracts.lobby import BOTS_SET
from tests.support.gateway import (
    LiveGateway,
    frame_at,
    live_gateway,
    play_to_end,
    sign_up,
    unique,
)

pytestmark = pytest.mark.gateway


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-bots")), bots=False) as gateway:
        yield gateway


async def test_bots_play_after_their_runner_starts_and_restarts(live: LiveGateway) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ann = await sign_up(http, unique("Ann"))
        table = (await ann.create_table("tiny", 3, {"max_cards": 8}))["table_id"]
        assert await ann.join(table) == 0
        assert await ann.bot(table) == 1
        assert await ann.bot(table, seat=2) == 2
        redis = aioredis.Redis.from_url(live.redis_url)
        try:
            assert {m.decode() for m in await redis.smembers(BOTS_SET)} >= {
                f"{table}|1",
                f"{table}|2",
            }
            started = await ann.start(table)
            drew = await ann.command(table, {"type": "tiny.draw"})
            assert drew.status_code == 200
            async with ann.live(table) as socket:
                frame = await frame_at(socket, drew.json()["last_seq"])
                assert frame["view"]["to_move"] == [1]  # the bot's turn; no runner yet
                live.start_bots()
                after_bot = await frame_at(socket, frame["seq"] + 1)
                assert (
                    after_bot["view"]["to_move"] != [1] or after_bot["view"]["phase"] != "playing"
                )
            # a restart of the runner mid-game: it finds its seats again. It stops on
            # SIGTERM by itself (a runner killed would hold its seats' leases 15 s more).
            assert live.stop_bots() == 0
            live.start_bots()
            final = await play_to_end(ann, table, via="http")
            assert final["phase"] == "finished" and started["outcome"] == "accepted"
            async with asyncio.timeout(30):
                while {f"{table}|1", f"{table}|2"} & {
                    m.decode() for m in await redis.smembers(BOTS_SET)
                }:
                    await asyncio.sleep(0.1)
        finally:
            await redis.aclose()
