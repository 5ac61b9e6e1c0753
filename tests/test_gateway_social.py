"""Players among players through the gateway, over real HTTP and WebSockets: friend
requests, acceptance and removal with their notices; presence from live sockets
(online, away, offline once the socket closes), on the friends list and pushed on the
notice socket; invitations to a table; blocks that refuse requests and invitations and
hide chat both ways."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from orrery_contracts import keys
from orrery_contracts.social import REPORT_MESSAGES
from tests.support.gateway import LiveGateway, Player, error_of, live_gateway, next_frame, sign_up
from tests.support.gateway import unique as unique_name
from tests.support.service import PARTITIONS, REPO

pytestmark = pytest.mark.gateway

WAIT = 30.0


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    # presence flags that expire within a second: a closed socket is soon offline
    with live_gateway(
        Path(tmp_path_factory.mktemp("gw-social")), bots=False, ORRERY_PRESENCE_TTL_S="1"
    ) as gateway:
        yield gateway


async def two(http: httpx.AsyncClient) -> tuple[Player, Player]:
    return await sign_up(http, unique_name("Ann")), await sign_up(http, unique_name("Ben"))


async def frame_of(socket: Any, kind: str, **match: Any) -> dict[str, Any]:
    """The next frame of ``kind`` whose members include ``match``."""
    async with asyncio.timeout(WAIT):
        while True:
            frame = await next_frame(socket)
            if frame["type"] == kind and all(frame.get(k) == v for k, v in match.items()):
                return frame


async def befriend(a: Player, b: Player) -> None:
    assert (await a.post(f"/v1/players/{b.player_id}/friend")).json()["state"] == "requested"
    assert (await b.post(f"/v1/players/{a.player_id}/friend")).json()["state"] == "friends"


async def test_a_friend_request_is_accepted_then_removed(http: httpx.AsyncClient) -> None:
    ann, ben = await two(http)
    async with ben.notices() as ben_socket, ann.notices() as ann_socket:
        asked = await ann.post(f"/v1/players/{ben.player_id}/friend")
        assert asked.status_code == 200, asked.text
        assert asked.json() == {"player_id": ben.player_id, "state": "requested"}
        notice = await frame_of(ben_socket, "friend_request")
        assert notice == {"type": "friend_request", "player_id": ann.player_id, "name": ann.name}
        # asking again changes nothing and sends no second notice
        assert (await ann.post(f"/v1/players/{ben.player_id}/friend")).json()["state"] == (
            "requested"
        )
        mine = (await ben.get("/v1/players/me/friends")).json()
        assert mine == {
            "friends": [],
            "received": [{"player_id": ann.player_id, "name": ann.name}],
            "sent": [],
        }
        card = (await ben.get(f"/v1/players/{ann.player_id}")).json()
        assert card["friend"] == "asked_me" and card["name"] == ann.name
        accepted = await ben.post(f"/v1/players/{ann.player_id}/friend")
        assert accepted.json() == {"player_id": ann.player_id, "state": "friends"}
        told = await frame_of(ann_socket, "friend_accepted")
        assert told["player_id"] == ben.player_id and told["name"] == ben.name
    friends = (await ann.get("/v1/players/me/friends")).json()
    assert [f["player_id"] for f in friends["friends"]] == [ben.player_id]
    assert friends["received"] == friends["sent"] == []
    assert (
        await ann.http.delete(f"/v1/players/{ben.player_id}/friend", headers=ann.headers)
    ).status_code == 204
    for player in (ann, ben):
        listed = (await player.get("/v1/players/me/friends")).json()
        assert listed == {"friends": [], "received": [], "sent": []}
    # refusals: myself, nobody
    assert error_of(await ann.post(f"/v1/players/{ann.player_id}/friend")) == "bad_friend"
    nobody = await ann.post("/v1/players/pnobody000000000000/friend")
    assert nobody.status_code == 404 and error_of(nobody) == "no_such_player"


async def test_presence_follows_the_sockets(http: httpx.AsyncClient) -> None:
    ann, ben = await two(http)
    await befriend(ann, ben)

    async def presence_of(player: Player) -> str:
        answer = await ann.get("/v1/players/presence", players=player.player_id)
        assert answer.status_code == 200, answer.text
        state: str = answer.json()["players"][0]["presence"]
        return state

    assert await presence_of(ben) == "offline"
    async with ann.notices() as ann_socket:
        # my friends' presence when the socket opens
        assert (await frame_of(ann_socket, "presence"))["presence"] == "offline"
        async with ben.notices() as ben_socket:
            frame = await frame_of(ann_socket, "presence", player_id=ben.player_id)
            assert frame["presence"] == "online"
            assert await presence_of(ben) == "online"
            await ben_socket.send(json.dumps({"type": "presence", "state": "away"}))
            assert (await frame_of(ann_socket, "presence"))["presence"] == "away"
            listed = (await ann.get("/v1/players/me/friends")).json()["friends"]
            assert listed == [{"player_id": ben.player_id, "name": ben.name, "presence": "away"}]
            await ben_socket.send(json.dumps({"type": "presence", "state": "online"}))
            assert (await frame_of(ann_socket, "presence"))["presence"] == "online"
            await ben_socket.send(json.dumps({"type": "presence", "state": "asleep"}))
            assert (await frame_of(ben_socket, "error"))["error"] == "malformed"
        # the socket closed: offline once its flag expires
        assert (await frame_of(ann_socket, "presence"))["presence"] == "offline"
    # a table's socket counts too, and its page can say it is hidden
    table = (await ben.create_table("tiny", 2))["table_id"]
    async with ben.live(table) as socket:
        await next_frame(socket)
        async with asyncio.timeout(WAIT):
            while await presence_of(ben) != "online":
                await asyncio.sleep(0.05)
        await socket.send(json.dumps({"type": "presence", "state": "away"}))
        async with asyncio.timeout(WAIT):
            while await presence_of(ben) != "away":
                await asyncio.sleep(0.05)
    card = (await ann.get(f"/v1/players/{ben.player_id}")).json()
    assert card["friend"] == "friends" and card["blocked"] is False
    assert card["presence"] in ("away", "offline")


async def test_invite_a_friend_to_a_private_table(http: httpx.AsyncClient) -> None:
    ann, ben = await two(http)
    eve = await sign_up(http, unique_name("Eve"))
    made = await ann.create_table("tiny", 2, private=True)
    table = made["table_id"]
    await ann.join(table)
    # only friends
    refused = await ann.post(f"/v1/tables/{table}/invite", {"player_id": ben.player_id})
    assert refused.status_code == 403 and error_of(refused) == "not_friends"
    await befriend(ann, ben)
    # only someone at the table
    stranger = await eve.post(f"/v1/tables/{table}/invite", {"player_id": ben.player_id})
    assert stranger.status_code == 403 and error_of(stranger) == "not_seated"
    async with ben.notices() as ben_socket:
        sent = await ann.post(f"/v1/tables/{table}/invite", {"player_id": ben.player_id})
        assert sent.status_code == 204, sent.text
        notice = await frame_of(ben_socket, "table_invite")
        assert notice == {
            "type": "table_invite",
            "player_id": ann.player_id,
            "name": ann.name,
            "table_id": table,
            "game": "tiny",
        }
    # the invitation opens the private table to the friend, without its invite
    assert await ben.join(table) == 1
    # and to nobody else
    eve_join = await eve.post(f"/v1/tables/{table}/join")
    assert eve_join.status_code == 403 and error_of(eve_join) == "bad_invite"


async def test_a_block_refuses_requests_and_invitations_both_ways(
    http: httpx.AsyncClient,
) -> None:
    ann, ben = await two(http)
    await befriend(ann, ben)
    blocked = await ann.post(f"/v1/players/{ben.player_id}/block")
    assert blocked.status_code == 200 and blocked.json() == {"blocks": [ben.player_id]}
    # the friendship ended, for both
    for player in (ann, ben):
        assert (await player.get("/v1/players/me/friends")).json()["friends"] == []
    for asker, other in ((ann, ben), (ben, ann)):
        asked = await asker.post(f"/v1/players/{other.player_id}/friend")
        assert asked.status_code == 403 and error_of(asked) == "blocked"
    table = (await ben.create_table("tiny", 2))["table_id"]
    await ben.join(table)
    invited = await ben.post(f"/v1/tables/{table}/invite", {"player_id": ann.player_id})
    assert invited.status_code == 403 and error_of(invited) in ("blocked", "not_friends")
    # the one who blocked reads as offline to the blocked one, whatever they do
    async with ann.notices():
        await asyncio.sleep(0.3)
        seen = (await ben.get("/v1/players/presence", players=ann.player_id)).json()
        assert seen["players"][0]["presence"] == "offline"
        assert (await ben.get(f"/v1/players/{ann.player_id}")).json()["presence"] == "offline"
    assert (await ann.get(f"/v1/players/{ben.player_id}")).json()["blocked"] is True
    unblocked = await ann.http.delete(f"/v1/players/{ben.player_id}/block", headers=ann.headers)
    assert unblocked.status_code == 204
    assert (await ann.get("/v1/players/me/blocks")).json() == {"blocks": []}
    assert (await ben.post(f"/v1/players/{ann.player_id}/friend")).json()["state"] == "requested"


# ---------------------------------------------------------------- chat: blocks, reports


async def say(player: Player, table: str, text: str) -> dict[str, Any]:
    posted = await player.post(f"/v1/tables/{table}/chat", {"text": text})
    assert posted.status_code == 201, posted.text
    message: dict[str, Any] = posted.json()
    return message


async def chat_texts(player: Player, table: str) -> list[str]:
    answer = await player.get(f"/v1/tables/{table}/chat")
    assert answer.status_code == 200, answer.text
    return [m["text"] for m in answer.json()["messages"]]


async def heard_until(socket: Any, last: str) -> list[str]:
    """The chat lines a socket hears until ``last`` (which must come)."""
    heard = []
    while True:
        frame = await frame_of(socket, "chat")
        heard.append(frame["text"])
        if frame["text"] == last:
            return heard


async def test_a_block_hides_chat_both_ways_in_history_and_live(
    http: httpx.AsyncClient,
) -> None:
    ann, ben = await two(http)
    eve = await sign_up(http, unique_name("Eve"))  # a spectator
    table = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(table)
    await ben.join(table)
    assert (await ann.post(f"/v1/players/{ben.player_id}/block")).status_code == 200
    assert (await eve.post(f"/v1/players/{ann.player_id}/block")).status_code == 200
    async with ann.live(table) as a, ben.live(table) as b, eve.live(table) as e:
        for socket in (a, b, e):
            await next_frame(socket)
        await say(ben, table, "b1")
        await say(ann, table, "a1")
        await say(eve, table, "e1")  # a spectator's line
        await say(ann, table, "a2")
        await say(ben, table, "b2")
        assert await heard_until(a, "a2") == ["a1", "a2"]
        assert await heard_until(b, "b2") == ["b1", "e1", "b2"]
        assert await heard_until(e, "b2") == ["b1", "e1", "b2"]
    assert await chat_texts(ann, table) == ["a1", "a2"]
    assert await chat_texts(ben, table) == ["b1", "e1", "b2"]
    assert await chat_texts(eve, table) == ["b1", "e1", "b2"]
    # unblocked: everything again
    await ann.http.delete(f"/v1/players/{ben.player_id}/block", headers=ann.headers)
    assert await chat_texts(ann, table) == ["b1", "a1", "a2", "b2"]


def reports_cli(live: LiveGateway, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", "reports", *args, "--redis-url", live.redis_url],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_reports_carry_the_chat_and_an_operator_resolves_them(
    live: LiveGateway, http: httpx.AsyncClient
) -> None:
    ann, ben = await two(http)
    eve = await sign_up(http, unique_name("Eve"))
    table = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(table)
    await ben.join(table)
    # a long chat before: lines of seat 0 written as the worker writes them
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        stream = keys.chat_stream(keys.partition_of(table, PARTITIONS), table)
        for n in range(REPORT_MESSAGES + 2):
            entry = {"seat": 0, "name": ann.name, "text": f"line {n}", "at": 1}
            await redis.xadd(stream, {"__data__": json.dumps(entry)})
    finally:
        await redis.aclose()
    bad = await say(ben, table, "a rude line")
    worse = await say(ben, table, "a ruder line")
    filed = await ann.post(f"/v1/tables/{table}/chat/{bad['id']}/report", {"reason": "rude"})
    assert filed.status_code == 201, filed.text
    assert filed.json()["messages"] == REPORT_MESSAGES
    first = filed.json()["report_id"]
    # refusals: twice, my own, no such message
    again = await ann.post(f"/v1/tables/{table}/chat/{bad['id']}/report")
    assert again.status_code == 409 and error_of(again) == "already_reported"
    own = await ben.post(f"/v1/tables/{table}/chat/{bad['id']}/report")
    assert own.status_code == 422 and error_of(own) == "bad_report"
    missing = await ann.post(f"/v1/tables/{table}/chat/1-0/report")
    assert missing.status_code == 404 and error_of(missing) == "no_such_message"
    second = (await eve.post(f"/v1/tables/{table}/chat/{worse['id']}/report")).json()["report_id"]
    third = (await ann.post(f"/v1/tables/{table}/chat/{worse['id']}/report")).json()["report_id"]

    shown = reports_cli(live, "show", first, "--json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["state"] == "open" and report["reason"] == "rude"
    assert report["reporter"] == ann.player_id and report["author"] == ben.player_id
    # the chat's newest 20 messages then, with their authors
    messages = report["messages"]
    assert len(messages) == REPORT_MESSAGES
    assert [m["text"] for m in messages[-2:]] == ["a rude line", "a ruder line"]
    assert messages[0]["text"] == f"line {4}" and messages[0]["player_id"] == ann.player_id
    assert messages[-1]["player_id"] == ben.player_id

    deleted = reports_cli(live, "resolve", second, "--delete", "--note", "slur")
    assert deleted.returncode == 0, deleted.stderr
    history = (await ann.get(f"/v1/tables/{table}/chat")).json()["messages"]
    assert next(m for m in history if m["id"] == worse["id"])["deleted"] is True
    muted = reports_cli(live, "resolve", first, "--mute", "2")
    assert muted.returncode == 0, muted.stderr
    refused = await ben.post(f"/v1/tables/{table}/chat", {"text": "let me speak"})
    assert refused.status_code == 403 and error_of(refused) == "muted"
    assert refused.json()["detail"]["until"] > 0
    dismissed = reports_cli(live, "resolve", third, "--dismiss")
    assert dismissed.returncode == 0, dismissed.stderr
    twice = reports_cli(live, "resolve", third, "--dismiss")
    assert twice.returncode == 2 and "resolved already" in twice.stderr
    listed = reports_cli(live, "list", "--all", "--json")
    states = {r["report_id"]: r["state"] for r in json.loads(listed.stdout)["reports"]}
    assert {first: "mute", second: "delete", third: "dismiss"}.items() <= states.items()
    recorded = json.loads(reports_cli(live, "show", second, "--json").stdout)
    assert recorded["resolutions"][0]["note"] == "slur"
    assert [r for r in json.loads(reports_cli(live, "list", "--json").stdout)["reports"]
            if r["table_id"] == table] == []  # fmt: skip
