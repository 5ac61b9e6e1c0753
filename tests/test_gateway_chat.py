"""Table chat and undo through the gateway, against real processes: messages over HTTP
and the WebSocket, pushed live to another player, history with paging, spectators marked,
text kept as text, the rate limit, an operator's delete (the real command line), chat
never touching the game; ``table.undo`` over HTTP and the socket."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from orrery_contracts import keys
from orrery_contracts.chat import CHAT_RATE
from tests.support.gateway import (
    LiveGateway,
    Player,
    deleted_marker,
    frame_at,
    next_frame,
    sign_up,
    unique,
)
from tests.support.service import PARTITIONS, REPO

pytestmark = pytest.mark.gateway

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


async def tiny_table(a: Player, b: Player) -> str:
    table: str = (await a.create_table("tiny", 2))["table_id"]
    await a.join(table)
    await b.join(table)
    return table


async def chat_frame(socket: Any) -> dict[str, Any]:
    while True:
        frame = await next_frame(socket)
        if frame["type"] == "chat":
            return frame


async def say(player: Player, table: str, text: str) -> httpx.Response:
    return await player.post(f"/v1/tables/{table}/chat", {"text": text})


async def test_chat_over_http_and_the_socket(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ann"))
    ben = await sign_up(http, unique("Ben"))
    eve = await sign_up(http, unique("Eve"))
    table = await tiny_table(ann, ben)
    await ann.start(table)
    before = await ben.view(table)
    async with ben.live(table) as ben_socket, eve.live(table) as eve_socket:
        await next_frame(ben_socket)
        await next_frame(eve_socket)
        posted = await say(ann, table, f"  {XSS}  ")
        assert posted.status_code == 201, posted.text
        message = posted.json()
        assert message["seat"] == 0 and message["name"] == ann.name
        assert message["text"] == XSS and message["at"] > 0 and message["spectator"] is False
        pushed = await chat_frame(ben_socket)  # live, to another player
        assert pushed == {"type": "chat", **message}
        # a spectator says something over the socket: marked as a spectator, by name
        await eve_socket.send(json.dumps({"type": "say", "text": "hello from the rail"}))
        from_eve = await chat_frame(ben_socket)
        assert from_eve["spectator"] is True and from_eve["name"] == eve.name
        assert from_eve["seat"] is None and from_eve["text"] == "hello from the rail"
        assert (await chat_frame(eve_socket))["id"] == message["id"]
        # refusals come back on the socket as error frames
        await eve_socket.send(json.dumps({"type": "say", "text": "bell\x07"}))
        while (refused := await next_frame(eve_socket))["type"] != "error":
            pass
        assert refused["error"] == "bad_text"
    history = (await eve.get(f"/v1/tables/{table}/chat")).json()["messages"]
    assert [m["id"] for m in history] == [message["id"], from_eve["id"]]
    after = (await eve.get(f"/v1/tables/{table}/chat", after=message["id"])).json()
    assert [m["id"] for m in after["messages"]] == [from_eve["id"]]
    first = (await eve.get(f"/v1/tables/{table}/chat", limit=1)).json()["messages"]
    assert [m["id"] for m in first] == [message["id"]]
    # chat is not game state: the views did not move
    assert (await ben.view(table))["seq"] == before["seq"]
    for text, code, status in [("", "bad_text", 422), ("x" * 501, "bad_text", 422)]:
        response = await say(ann, table, text)
        assert response.status_code == status and response.json()["error"] == code
    assert (await say(ann, table, "x" * 500)).status_code == 201
    bad_after = await eve.get(f"/v1/tables/{table}/chat", after="nope")
    assert bad_after.status_code == 422
    missing = await say(ann, "tnosuchtable", "hi")
    assert missing.status_code == 404


async def test_rate_limit_and_an_operators_delete(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    ann = await sign_up(http, unique("Ann"))
    ben = await sign_up(http, unique("Ben"))
    table = await tiny_table(ann, ben)
    ids = []
    for n in range(CHAT_RATE):
        response = await say(ann, table, f"message {n}")
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    over = await say(ann, table, "one too many")
    assert over.status_code == 429 and over.json()["error"] == "rate_limited"
    assert (await say(ben, table, "ben has his own limit")).status_code == 201
    async with ben.live(table) as socket:
        await next_frame(socket)
        done = subprocess.run(
            [sys.executable, "-m", "orrery.cli", "chat", "delete", table, ids[1],
             "--redis-url", live.redis_url],
            env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        marker = await chat_frame(socket)
        assert marker == {"type": "chat", **deleted_marker(ids[1], marker["at"])}
    messages = (await ben.get(f"/v1/tables/{table}/chat")).json()["messages"]
    assert [m["id"] for m in messages][:CHAT_RATE] == ids
    assert messages[1] == deleted_marker(ids[1], messages[1]["at"])
    again = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "chat", "delete", table, ids[1],
         "--redis-url", live.redis_url],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert again.returncode == 2 and "no chat message" in again.stderr


async def to_build_step(players: dict[int, Player], table: str) -> int:
    """Play a SPACEcraft table until a seat may leave the junkyard; that seat leaves.
    Each command's view is waited for (an answer comes before the views show it)."""
    seq = 0
    while True:
        view = await view_at(players[0], table, seq)
        seat = view["to_move"][0]
        legal = (await view_at(players[seat], table, seq))["legal"]
        kinds = {c["type"]: c for c in legal}
        for kind in ("sc.leave", "sc.choose_goal", "sc.visit", "sc.search"):
            if kind in kinds:
                response = await players[seat].command(table, kinds[kind])
                assert response.status_code == 200, response.text
                seq = response.json()["last_seq"]
                break
        if kind == "sc.leave":
            await view_at(players[seat], table, seq)
            return seat


async def view_at(player: Player, table: str, seq: int) -> dict[str, Any]:
    """The player's view once it shows seq ``seq`` (views follow the answers)."""
    async with asyncio.timeout(60):
        while (view := await player.view(table))["seq"] < seq:
            await asyncio.sleep(0.05)
    return view


async def test_undo_over_http_and_the_socket(http: httpx.AsyncClient, live: LiveGateway) -> None:
    ann = await sign_up(http, unique("Ann"))
    ben = await sign_up(http, unique("Ben"))
    table = (await ann.create_table("spacecraft", 2))["table_id"]
    players = {await ann.join(table): ann, await ben.join(table): ben}
    await ann.start(table)
    seat = await to_build_step(players, table)
    me, other = players[seat], players[1 - seat]
    at_leave = await me.view(table)
    assert {"type": "table.undo", "to_seq": None} in at_leave["legal"]
    refused = await other.command(table, {"type": "table.undo"})
    assert refused.status_code == 422
    assert refused.json()["error"] == "undo_blocked"
    assert refused.json()["detail"] == {"reason": "turn_ended"}
    redis = aioredis.Redis.from_url(live.redis_url)
    notices = keys.notice_stream(keys.partition_of(table, PARTITIONS), table, seat)
    notified = await redis.xrevrange(notices, count=1)  # the newest notice
    reserve = next(c for c in at_leave["legal"] if c["type"] == "sc.reserve")
    assert (await me.command(table, reserve)).status_code == 200
    async with me.live(table) as socket:
        command_id = uuid.uuid4().hex
        await socket.send(
            json.dumps(
                {"type": "command", "command_id": command_id, "body": {"type": "table.undo"}}
            )
        )
        while (outcome := await next_frame(socket))["type"] != "outcome":
            pass
        assert outcome["outcome"] == "accepted", outcome
        restored = (await frame_at(socket, outcome["last_seq"]))["view"]
    for field in ("legal", "view", "to_move"):
        assert restored[field] == at_leave[field]
    undo = await me.command(table, {"type": "table.undo", "to_seq": at_leave["seq"] - 1})
    assert undo.status_code == 200, undo.text  # back over the leave too
    nothing = await me.command(table, {"type": "table.undo"})
    assert nothing.json()["detail"] == {"reason": "nothing_to_undo"}
    # an undo is not a new turn: no "your turn" notice came of it
    assert await redis.xrevrange(notices, count=1) == notified
    await redis.aclose()
