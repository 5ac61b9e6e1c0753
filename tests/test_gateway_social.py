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

from orrery.moderation import ModerationError, reports, resolve
from orrery_contracts import keys
from orrery_contracts.social import REPORT_MESSAGES
from tests.support.gateway import LiveGateway, Player, error_of, live_gateway, next_frame, sign_up
from tests.support.gateway import unique as unique_name
from tests.support.service import PARTITIONS, REPO
from tests.test_gateway_acl import PASSWORD as ACL_PASSWORD
from tests.test_gateway_acl import acl_rules

pytestmark = pytest.mark.gateway

WAIT = 30.0


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    # presence flags that expire within a second: a closed socket is soon offline
    with live_gateway(
        Path(tmp_path_factory.mktemp("gw-social")), bots=False, ORRERY_PRESENCE_TTL_S="1"
    ) as gateway:
        gateway.service.start("matchmaker", ORRERY_SECRET_KEY=gateway.key)
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


async def test_a_party_invitation_is_a_notice_and_never_crosses_a_block(
    http: httpx.AsyncClient,
) -> None:
    ann, ben = await two(http)
    cal = await sign_up(http, unique_name("Cal"))
    assert (await cal.post(f"/v1/players/{ann.player_id}/block")).status_code == 200
    ticket = {"game": "tiny", "seats": 2, "pace": "turn_based"}
    refused = await ann.post("/v1/queue", {**ticket, "party": [cal.player_id]})
    assert refused.status_code == 403 and error_of(refused) == "blocked"
    async with ben.notices() as socket:
        queued = await ann.post("/v1/queue", {**ticket, "party": [ben.player_id]})
        assert queued.status_code == 201, queued.text
        notice = await frame_of(socket, "party_invite")
        assert notice == {
            "type": "party_invite",
            "player_id": ann.player_id,
            "name": ann.name,
            "ticket_id": queued.json()["ticket_id"],
            "game": "tiny",
        }


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
    assert own.status_code == 403 and error_of(own) == "bad_report"
    missing = await ann.post(f"/v1/tables/{table}/chat/1-0/report")
    assert missing.status_code == 404 and error_of(missing) == "no_such_message"
    second = (await eve.post(f"/v1/tables/{table}/chat/{worse['id']}/report")).json()["report_id"]
    third = (await ann.post(f"/v1/tables/{table}/chat/{worse['id']}/report")).json()["report_id"]

    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        report = (await reports(redis))[first]
        assert report.state == "open" and report.filed.reason == "rude"
        assert report.filed.reporter == ann.player_id and report.filed.author == ben.player_id
        # the chat's newest 20 messages then, with their authors
        messages = report.filed.messages
        assert len(messages) == REPORT_MESSAGES
        assert [m.text for m in messages[-2:]] == ["a rude line", "a ruder line"]
        assert messages[0].text == "line 4" and messages[0].player_id == ann.player_id
        assert messages[-1].player_id == ben.player_id
        # the operator's command line: delete (as `orrery chat delete` does), then in
        # this process what it calls: mute, dismiss, and no second resolution
        deleted = reports_cli(live, "resolve", second, "--delete", "--note", "slur")
        assert deleted.returncode == 0, deleted.stderr
        history = (await ann.get(f"/v1/tables/{table}/chat")).json()["messages"]
        assert next(m for m in history if m["id"] == worse["id"])["deleted"] is True
        await resolve(redis, first, "mute", days=2, by="operator")
        refused = await ben.post(f"/v1/tables/{table}/chat", {"text": "let me speak"})
        assert refused.status_code == 403 and error_of(refused) == "muted"
        assert refused.json()["detail"]["until"] > 0
        await resolve(redis, third, "dismiss")
        with pytest.raises(ModerationError, match="resolved already"):
            await resolve(redis, third, "dismiss")
    finally:
        await redis.aclose()
    listed = reports_cli(live, "list", "--all", "--json")
    assert listed.returncode == 0, listed.stderr
    found = {r["report_id"]: r for r in json.loads(listed.stdout)["reports"]}
    assert {r: found[r]["state"] for r in (first, second, third)} == {
        first: "mute",
        second: "delete",
        third: "dismiss",
    }
    assert found[second]["resolutions"][0]["note"] == "slur"
    assert found[first]["resolutions"][0] | {"at": 0} == {
        "type": "report.resolved",
        "report_id": first,
        "action": "mute",
        "days": 2,
        "note": "",
        "by": "operator",
        "at": 0,
    }
    shown = reports_cli(live, "show", first)
    assert shown.returncode == 0 and "a rude line" in shown.stdout and "mute" in shown.stdout


# ---------------------------------------------------------------- erasing an account


async def every_value(live: LiveGateway) -> str:
    """Everything the server holds, every key and value, as one text."""
    redis = aioredis.Redis.from_url(live.redis_url)
    found = []
    try:
        async for key in redis.scan_iter(count=1000):
            raw_kind = await redis.type(key)
            kind = raw_kind.decode() if isinstance(raw_kind, bytes) else raw_kind
            if kind == "string":
                value: Any = await redis.get(key)
            elif kind == "hash":
                value = await redis.hgetall(key)
            elif kind == "set":
                value = await redis.smembers(key)
            elif kind == "zset":
                value = await redis.zrange(key, 0, -1)
            elif kind == "list":
                value = await redis.lrange(key, 0, -1)
            elif kind == "stream":
                value = await redis.xrange(key)
            else:
                value = ""
            found.append(f"{key!r} {value!r}")
    finally:
        await redis.aclose()
    return "\n".join(found)


async def test_erasing_an_account_leaves_nothing_personal(
    live: LiveGateway, http: httpx.AsyncClient
) -> None:
    ann, ben = await two(http)
    cal = await sign_up(http, unique_name("Cal"))
    await befriend(ann, ben)
    assert (await cal.post(f"/v1/players/{ann.player_id}/block")).status_code == 200
    email = f"{ann.player_id}@example.org"
    endpoint = f"https://fcm.googleapis.com/fcm/send/{ann.player_id}-endpoint"
    assert (await ann.http.put("/v1/players/me/email", json={"email": email},
                               headers=ann.headers)).status_code == 202  # fmt: skip
    subscription = {"endpoint": endpoint, "keys": {"p256dh": "BKey", "auth": "auth"}}
    assert (await ann.post("/v1/players/me/push", subscription)).status_code == 201
    played = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(played)
    await ben.join(played)
    await ann.start(played)
    await say(ann, played, "good game")
    waiting = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(waiting)

    async def what_others_read() -> str:
        answers = [
            await ben.get(f"/v1/players/{ann.player_id}"),
            await ben.get("/v1/players/me/friends"),
            await ben.get(f"/v1/tables/{played}"),
            await ben.get(f"/v1/tables/{played}/chat"),
            await ben.get(f"/v1/tables/{played}/view"),
            await ben.get("/v1/tables", state="open"),
            await ben.get("/v1/players/me/games"),
            await ben.get("/v1/players/presence", players=ann.player_id),
            await cal.get("/v1/players/me/blocks"),
        ]
        return "\n".join(a.text for a in answers)

    # the address and the endpoint never reach another player
    before = await what_others_read()
    assert ann.name in before and email not in before and endpoint not in before
    assert email in await every_value(live) and endpoint in await every_value(live)

    async with ann.notices():
        wrong = await ann.http.request(
            "DELETE", "/v1/players/me", json={"password": "not mine"}, headers=ann.headers
        )
        assert wrong.status_code == 401 and error_of(wrong) == "bad_credentials"
        erased = await ann.http.request(
            "DELETE", "/v1/players/me", json={"password": "a good password"}, headers=ann.headers
        )
        assert erased.status_code == 204, erased.text

    # every session of the account ends
    gone = await ann.get("/v1/players/me")
    assert gone.status_code == 401
    assert (await ann.get("/v1/tables")).status_code == 401
    signed_in = await http.post(
        "/v1/sessions", json={"name": ann.name, "password": "a good password"}
    )
    assert signed_in.status_code == 401
    # nothing of theirs is left to reach them, or to find them by
    everything = await every_value(live)
    assert email not in everything and endpoint not in everything
    assert f"orrery:gw:friends:{ann.player_id}" not in everything
    assert (await ben.get(f"/v1/players/{ann.player_id}")).status_code == 404
    assert (await ben.get("/v1/players/me/friends")).json()["friends"] == []
    assert (await cal.get("/v1/players/me/blocks")).json() == {"blocks": []}
    # they conceded the game in play and left the table not started
    detail = (await ben.get(f"/v1/tables/{played}")).json()
    assert detail["state"] == "finished"
    seat = next(p for p in detail["players"] if p["player_id"] == ann.player_id)
    assert seat["name"] == "deleted player"
    assert (await ben.get(f"/v1/tables/{waiting}")).json()["players"] == []
    # finished games' listings show the seat anonymised, the chat too
    mine = (await ben.get("/v1/players/me/games")).json()["games"]
    listed = next(g for g in mine if g["table_id"] == played)
    assert {s["name"] for s in listed["seats"]} == {"deleted player", ben.name}
    finished = (await ben.get("/v1/tables", state="finished", limit=100)).json()["tables"]
    shown = next(t for t in finished if t["table_id"] == played)
    assert ann.name not in json.dumps(shown)
    async with asyncio.timeout(WAIT):  # the finish rates both seats, the erased one too
        while True:
            board = (await ben.get("/v1/leaderboard/tiny", limit=100)).json()["entries"]
            rated = [e["name"] for e in board if e["player_id"] == ann.player_id]
            if rated:
                break
            await asyncio.sleep(0.1)
    assert rated == ["deleted player"]
    chat = (await ben.get(f"/v1/tables/{played}/chat")).json()["messages"]
    assert [(m["name"], m["text"]) for m in chat] == [("deleted player", "good game")]
    after = await what_others_read()
    assert email not in after and endpoint not in after
    assert email not in live.logs() and endpoint not in live.logs()  # nor in a log line
    # the name is free again
    again = await sign_up(http, ann.name)
    assert again.player_id != ann.player_id


@pytest.mark.slow  # a gateway of its own; the tests above take the same paths
async def test_the_gateway_needs_nothing_beyond_its_acl_for_them(live: LiveGateway) -> None:
    """All of the above through a gateway connected as the Redis user orrery-gateway."""
    admin = aioredis.Redis.from_url(live.redis_url)
    try:
        await admin.execute_command(
            "ACL", "SETUSER", "orrery-gateway", *acl_rules("orrery-gateway")
        )
    finally:
        await admin.aclose()
    user = live.redis_url.replace("redis://", f"redis://orrery-gateway:{ACL_PASSWORD}@")
    url = await asyncio.to_thread(
        live.start_gateway, user, ORRERY_GATEWAY_RATE="1000", ORRERY_GATEWAY_BURST="1000"
    )
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        ann, ben = await two(http)
        cal = await sign_up(http, unique_name("Cal"))
        async with ben.notices() as socket:
            await befriend(ann, ben)
            await frame_of(socket, "presence", player_id=ann.player_id)
        assert (await ann.get("/v1/players/me/friends")).status_code == 200
        assert (await ann.get("/v1/players/presence", players=ben.player_id)).status_code == 200
        assert (await ann.get(f"/v1/players/{ben.player_id}")).status_code == 200
        table = (await ann.create_table("tiny", 2, private=True))["table_id"]
        await ann.join(table)
        invited = await ann.post(f"/v1/tables/{table}/invite", {"player_id": ben.player_id})
        assert invited.status_code == 204, invited.text
        await ben.join(table)
        assert (await cal.post(f"/v1/players/{ann.player_id}/block")).status_code == 200
        said = await say(ben, table, "hello")
        assert await chat_texts(cal, table) == ["hello"]
        reported = await cal.post(f"/v1/tables/{table}/chat/{said['id']}/report")
        assert reported.status_code == 201, reported.text
        erased = await ann.http.request(
            "DELETE", "/v1/players/me", json={"password": "a good password"}, headers=ann.headers
        )
        assert erased.status_code == 204, erased.text
        seated = (await ben.get(f"/v1/tables/{table}")).json()["players"]
        assert [p["player_id"] for p in seated] == [ben.player_id]  # Ann's seat opened
    assert "NOPERM" not in live.logs()


@pytest.mark.slow  # an archiver and a gateway of their own
async def test_an_erased_players_archived_games_show_them_as_deleted(
    live: LiveGateway, tmp_path: Path
) -> None:
    """A finished table moved to the archive, then a player of it erased: every listing
    read from the archive (my games, closed tables, the table, its chat) names the
    seat deleted player, and the name is in none of them."""
    archive = {"ORRERY_ARCHIVE_URL": f"sqlite:///{tmp_path / 'archive.sqlite3'}"}
    archiver = live.service.start("archiver", ORRERY_ARCHIVE_AFTER_S="1", **archive)
    try:
        url = await asyncio.to_thread(live.start_gateway, **archive)
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            ann, ben = await two(http)
            table = (await ann.create_table("tiny", 2))["table_id"]
            await ann.join(table)
            await ben.join(table)
            await ann.start(table)
            await say(ann, table, "good game")
            left = await ann.post(f"/v1/tables/{table}/leave")  # two seats: the table closes
            assert left.status_code == 200, left.text
            redis = aioredis.Redis.from_url(live.redis_url)
            try:
                tombstone = keys.tombstone_key(keys.partition_of(table, PARTITIONS), table)
                async with asyncio.timeout(WAIT):
                    while not await redis.exists(tombstone):
                        await asyncio.sleep(0.1)
            finally:
                await redis.aclose()
            erased = await ann.http.request(
                "DELETE",
                "/v1/players/me",
                json={"password": "a good password"},
                headers=ann.headers,
            )
            assert erased.status_code == 204, erased.text
            answers = {
                "games": await ben.get("/v1/players/me/games"),
                "closed": await ben.get("/v1/tables", state="closed", limit=100),
                "table": await ben.get(f"/v1/tables/{table}"),
                "chat": await ben.get(f"/v1/tables/{table}/chat"),
            }
    finally:
        archiver.terminate()
        archiver.wait(20)
    assert all(a.status_code == 200 for a in answers.values()), answers
    games = answers["games"].json()["games"]
    (game,) = [g for g in games if g["table_id"] == table]
    assert sorted(s["name"] for s in game["seats"]) == sorted(["deleted player", ben.name])
    assert answers["table"].json()["state"] == "closed", answers["table"].text
    listed = [t for t in answers["closed"].json()["tables"] if t["table_id"] == table]
    assert [sorted(p["name"] for p in t["players"]) for t in listed] == [
        sorted(["deleted player", ben.name])
    ]
    seated = answers["table"].json()["players"]
    assert sorted(p["name"] for p in seated) == sorted(["deleted player", ben.name])
    chat = answers["chat"].json()["messages"]
    assert [(m["name"], m["text"]) for m in chat] == [("deleted player", "good game")]
    assert not [name for name, a in answers.items() if ann.name in a.text]
