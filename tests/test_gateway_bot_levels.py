"""Bots of every level through the service: ``POST /v1/tables/{id}/bots`` with a level
(and its refusals), the bots' own ratings on the leaderboard, and abandoned seats — taken
over by a bot of the table's level (three seats and more), or ending the table (two).

The bots' strength is not tested here (the engine's own tests and ``orrery bench bots``
do): only that each level plays its seats to the end as a client of the service.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope, decode_entry
from orrery_contracts.lobby import BOT_LEVELS, BOTS_SET
from orrery_contracts.table import ClockOption, CreateTable
from services.audit import audit_entries
from tests.support.gateway import (
    LiveGateway,
    Player,
    error_of,
    live_gateway,
    play_to_end,
    sign_up,
    unique,
)

pytestmark = pytest.mark.gateway

GAMES = ("fractured_sky", "spacecraft", "federation")
WAIT_S = 180.0


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-bot-levels"))) as gateway:
        gateway.service.start("timekeeper", ORRERY_TIMEKEEPER_POLL_MS="50")  # clocks run out
        yield gateway


async def _table(player: Player, table_id: str) -> dict[str, Any]:
    response = await player.get(f"/v1/tables/{table_id}")
    assert response.status_code == 200, response.text
    table: dict[str, Any] = response.json()
    return table


async def _until_finished(player: Player, table_id: str) -> dict[str, Any]:
    async with asyncio.timeout(WAIT_S):
        while True:
            view = await player.view(table_id)
            if view["phase"] == "finished":
                return view
            await asyncio.sleep(0.2)


async def _log(live: LiveGateway, table_id: str) -> list[RawEnvelope]:
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        partitions = int(await redis.hget(keys.CONFIG_KEY, "partitions") or 1)
        stream = keys.log_stream(keys.partition_of(table_id, partitions), table_id)
        entries: Any = await redis.xrange(stream)
    finally:
        await redis.aclose()
    return [decode_entry(fields[b"e"]) for _, fields in entries]


async def _log_types(live: LiveGateway, table_id: str) -> list[str]:
    entries = await _log(live, table_id)
    return [str(msgspec.msgpack.decode(entry.body)["type"]) for entry in entries]


async def _rating(player: Player, game: str, player_id: str) -> dict[str, Any] | None:
    response = await player.get(f"/v1/leaderboard/{game}", limit=100)
    assert response.status_code == 200, response.text
    return next((e for e in response.json()["entries"] if e["player_id"] == player_id), None)


async def test_a_bot_of_each_level_takes_a_seat_and_the_refusals(live: LiveGateway) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ann = await sign_up(http, unique("Ann"))
        bob = await sign_up(http, unique("Bob"))
        table = (await ann.create_table("tiny", 4, {"max_cards": 1}))["table_id"]  # quick
        assert await ann.join(table) == 0
        unknown = await ann.post(f"/v1/tables/{table}/bots", {"level": "grandmaster"})
        assert (unknown.status_code, error_of(unknown)) == (422, "bad_level")
        stranger = await bob.post(f"/v1/tables/{table}/bots", {})
        assert (stranger.status_code, error_of(stranger)) == (403, "not_seated")
        seats = {level: await ann.bot(table, level=level) for level in BOT_LEVELS}
        assert seats == {"random": 1, "greedy": 2, "ismcts": 3}
        players = {p["seat"]: p for p in (await _table(ann, table))["players"]}
        for level, seat in seats.items():
            assert players[seat]["bot"] and players[seat]["bot_level"] == level
            assert players[seat]["name"] == f"Bot ({level})"
            assert players[seat]["player_id"] is None
        full = await ann.post(f"/v1/tables/{table}/bots", {})
        assert (full.status_code, error_of(full)) == (409, "table_full")
        # no level: greedy (on a fresh table)
        other = (await ann.create_table("tiny", 2))["table_id"]
        assert await ann.bot(other) == 0
        assert (await _table(ann, other))["players"][0]["bot_level"] == "greedy"
        await ann.start(table)
        started = await ann.post(f"/v1/tables/{table}/bots", {"level": "random"})
        assert (started.status_code, error_of(started)) == (409, "table_started")
        final = await play_to_end(ann, table, via="http")
        assert final["phase"] == "finished"
        by_seat = {line["seat"]: line for line in final["standings"] if line["seat"] is not None}
        assert {by_seat[s]["bot_from_seq"] for s in range(4)} == {None}


async def test_an_abandoned_seat_is_taken_over_and_the_leaver_loses(live: LiveGateway) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ann = await sign_up(http, unique("Ann"))
        bob = await sign_up(http, unique("Bob"))
        made = await ann.post(
            "/v1/tables",
            {"game": "tiny", "seats": 3, "options": {"max_cards": 6}, "bot_level": "random"},
        )
        assert made.status_code == 201, made.text
        table = made.json()["table_id"]
        assert await ann.join(table) == 0
        assert await bob.join(table) == 1
        assert await ann.bot(table, level="greedy") == 2
        await ann.start(table)
        left = await bob.post(f"/v1/tables/{table}/leave")
        assert left.status_code == 200, left.text
        view = await ann.view(table)
        seat = view["seats"][1]
        assert seat["left"] and seat["bot_level"] == "random"
        taken_at = seat["bot_from_seq"]
        assert taken_at is not None and taken_at <= left.json()["last_seq"]
        # Bob's own secret no longer moves the seat: the bot's does
        again = await bob.command(table, {"type": "tiny.stand"})
        assert again.status_code in (403, 409, 422), again.text
        final = await play_to_end(ann, table, via="http")
        assert final["phase"] == "finished"
        lines = {line["seat"]: line for line in final["standings"] if line["seat"] is not None}
        assert lines[1]["bot_from_seq"] == taken_at and lines[1]["left"]
        # conceded: after every seat that played on (they may share a place)
        assert lines[1]["rank"] > max(lines[0]["rank"], lines[2]["rank"])
        types = await _log_types(live, table)
        assert types.count("table.seat_taken_over") == 1
        assert types[types.index("table.seat_left") + 1] == "table.seat_taken_over"
        audit = audit_entries(await _log(live, table))  # re-decided from the log alone
        assert audit.ok, audit.failure
        record = await _table(ann, table)
        bob_seat = next(p for p in record["players"] if p["seat"] == 1)
        assert bob_seat["taken_over"] and bob_seat["player_id"] == bob.player_id
        assert 1 in record["bots"] and bob_seat["bot_level"] == "random"
        # rated: Bob lost to both; the greedy bot is rated in its own name
        async with asyncio.timeout(30):
            while (await _rating(ann, "tiny", bob.player_id)) is None:
                await asyncio.sleep(0.1)
        bob_line = await _rating(ann, "tiny", bob.player_id)
        ann_line = await _rating(ann, "tiny", ann.player_id)
        bot_line = await _rating(ann, "tiny", "bot:greedy")
        assert bob_line is not None and ann_line is not None and bot_line is not None
        assert bob_line["rating"] < min(ann_line["rating"], bot_line["rating"])
        assert bot_line["bot"] and bot_line["name"] == "Bot (greedy)"
        assert not ann_line["bot"]
        redis = aioredis.Redis.from_url(live.redis_url)
        try:
            async with asyncio.timeout(30):
                while f"{table}|1".encode() in await redis.smembers(BOTS_SET):
                    await asyncio.sleep(0.1)
        finally:
            await redis.aclose()


async def test_a_clock_run_out_to_concede_hands_the_seat_to_a_bot(live: LiveGateway) -> None:
    """A Redis-level table with a clock that concedes: seat 0 never moves, its clock runs
    out, a bot of the table's level takes it over and the others play to the end with
    it (the worker derives the bot's secret hash from the server key; the runner plays)."""
    clock = ClockOption(bank_s=0.0, per_move_s=1.0, on_expiry="concede")
    async with OrreryClient(live.redis_url) as client:
        table = unique("clk")
        await client.accept(
            table, CreateTable(game="tiny", seats=3, clock=clock, bot_level="random")
        )
        seats = [await client.join(table, f"P{s}") for s in range(3)]
        await client.start(seats[0])
        players = [play_seat(client, seat, random.Random(s)) for s, seat in enumerate(seats[1:])]
        async with asyncio.timeout(WAIT_S):
            finals = await asyncio.gather(*players)
    assert all(view["phase"] == "finished" for view in finals)
    types = await _log_types(live, table)
    assert types[types.index("table.clock_expired") + 1 :][:2] == [
        "table.seat_left",
        "table.seat_taken_over",
    ]
    first = next(s for s in finals[0]["seats"] if s["bot_from_seq"] is not None)
    assert first["bot_level"] == "random" and first["left"]


async def test_two_seats_end_when_one_leaves(live: LiveGateway) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ann = await sign_up(http, unique("Ann"))
        bob = await sign_up(http, unique("Bob"))
        table = (await ann.create_table("tiny", 2))["table_id"]
        await ann.join(table)
        await bob.join(table)
        await ann.start(table)
        assert (await bob.post(f"/v1/tables/{table}/leave")).status_code == 200
        final = await _until_finished(ann, table)
        lines = {line["seat"]: line for line in final["standings"] if line["seat"] is not None}
        assert (lines[0]["rank"], lines[1]["rank"]) == (1, 2)
        assert lines[1]["bot_from_seq"] is None
        types = await _log_types(live, table)
        assert "table.seat_taken_over" not in types and types[-1] == "table.finished"
        # asked for: a bot on two seats too
        made = await ann.post("/v1/tables", {"game": "tiny", "seats": 2, "on_abandon": "bot"})
        assert made.status_code == 201, made.text
        bad = await ann.post("/v1/tables", {"game": "tiny", "seats": 3, "bot_level": "expert"})
        assert (bad.status_code, error_of(bad)) == (422, "bad_level")


async def _bots_play(live: LiveGateway, game: str, level: str) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ann = await sign_up(http, unique("Ann"))
        table = (await ann.create_table(game, 2))["table_id"]
        await ann.join(table)
        await ann.bot(table, level=level)
        await ann.start(table)
        final = await play_to_end(ann, table, via="ws")
        assert final["phase"] == "finished" and final["moves"] > 0
        assert final["seats"][1]["bot_level"] == level
        assert (await _table(ann, table))["state"] == "finished"  # played out, not abandoned


@pytest.mark.parametrize("level", BOT_LEVELS)
async def test_each_level_plays_a_game_to_the_end(live: LiveGateway, level: str) -> None:
    await _bots_play(live, "tiny", level)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", BOT_LEVELS)
async def test_each_level_plays_each_game_to_the_end(
    live: LiveGateway, game: str, level: str
) -> None:
    await _bots_play(live, game, level)
