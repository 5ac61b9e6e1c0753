"""The gateway's API against real processes (embedded Valkey, worker, projector, the
gateway under uvicorn, the bot runner): accounts and sessions, the lobby, private
invites, seats, commands and their refusals, views, replays, the WebSocket with resume,
notices, limits, and the OpenAPI document. Games here are the tiny test game."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import msgspec
import pytest
import redis.asyncio as aioredis
import websockets
from openapi_spec_validator import validate

from gateway.crypto import seat_secret, session_key
from orrery_contracts import keys
from orrery_contracts.lobby import lobby_table_key
from tests.support.gateway import (
    Frames,
    LiveGateway,
    Player,
    auth_frame,
    error_of,
    frame_at,
    live_gateway,
    next_frame,
    play_to_end,
    sign_up,
    unique,
)

pytestmark = pytest.mark.gateway


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-api"))) as gateway:
        yield gateway


async def seated_table(a: Player, b: Player, seats: int = 2) -> str:
    table: str = (await a.create_table("tiny", seats))["table_id"]
    await a.join(table)
    await b.join(table)
    return table


# ---------------------------------------------------------------- accounts and sessions

GOOD = "a good password"


async def test_accounts_and_sessions(http: httpx.AsyncClient, live: LiveGateway) -> None:
    name = unique("Ann")
    created = await http.post("/v1/players", json={"name": f"  {name} ", "password": GOOD})
    assert created.status_code == 201
    assert created.json()["name"] == name and created.json()["player_id"].startswith("p")
    again = await http.post("/v1/players", json={"name": name.upper(), "password": GOOD})
    assert again.status_code == 409 and error_of(again) == "name_taken"
    for body, code in [
        ({"name": "", "password": GOOD}, "bad_name"),
        ({"name": "\x1b[31mred", "password": GOOD}, "bad_name"),
        ({"name": "x" * 41, "password": GOOD}, "bad_name"),
        ({"name": unique("Short"), "password": "1234567"}, "bad_password"),
        ({"name": unique("Nopass")}, "malformed"),
        ({"name": unique("Extra"), "password": GOOD, "admin": True}, "malformed"),
    ]:
        refused = await http.post("/v1/players", json=body)
        assert refused.status_code == 422 and error_of(refused) == code, (body, refused.text)
    garbage = await http.post(
        "/v1/players", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert garbage.status_code in (400, 422) and "Traceback" not in garbage.text
    wrong = await http.post("/v1/sessions", json={"name": name, "password": "not " + GOOD})
    assert wrong.status_code == 401 and error_of(wrong) == "bad_credentials"
    nobody = await http.post("/v1/sessions", json={"name": unique("Ghost"), "password": "x" * 8})
    assert nobody.status_code == 401 and error_of(nobody) == "bad_credentials"
    session = await http.post("/v1/sessions", json={"name": name.lower(), "password": GOOD})
    assert session.status_code == 200
    body = session.json()
    assert set(body) == {"token", "player_id", "expires_at"} and body["expires_at"].endswith("Z")
    me = await http.get("/v1/players/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status_code == 200
    assert me.json() == {"player_id": body["player_id"], "name": name, "ratings": {}, "tables": []}


async def test_missing_forged_and_expired_sessions_are_401(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    player = await sign_up(http, unique("Sam"))
    now = int(time.time())
    claims = {"sub": player.player_id, "iat": now - 100, "exp": now - 10, "typ": "session"}
    expired = jwt.encode(claims, session_key(live.key), algorithm="HS256")
    forged = jwt.encode({**claims, "exp": now + 100}, "not the key" * 4, algorithm="HS256")
    # the raw server key signs identities for the workers, not sessions
    other_purpose = jwt.encode({**claims, "exp": now + 100}, live.key, algorithm="HS256")
    unsigned = jwt.encode({**claims, "exp": now + 100}, None, algorithm="none")
    cases = [None, "Bearer", "Basic abc", f"Bearer {player.token}x"]
    cases += [f"Bearer {t}" for t in (expired, forged, other_purpose, unsigned)]
    for header in cases:
        headers = {"Authorization": header} if header else {}
        for method, path in [
            ("GET", "/v1/players/me"),
            ("GET", "/v1/tables"),
            ("POST", "/v1/tables"),
            ("GET", "/v1/tables/t1/view"),
            ("POST", "/v1/tables/t1/commands"),
            ("GET", "/v1/leaderboard/tiny"),
        ]:
            response = await http.request(method, path, headers=headers, json={})
            assert response.status_code == 401, (header, path, response.text)
            assert error_of(response) in ("unauthorized", "session_expired")
    assert (
        error_of(await http.get("/v1/players/me", headers={"Authorization": f"Bearer {expired}"}))
        == "session_expired"
    )
    url = f"{player.ws_base}/v1/tables/t1/live"
    async with websockets.connect(url) as socket:
        await socket.send(auth_frame(forged))
        frame = await next_frame(socket)
        assert frame["type"] == "error" and frame["error"] == "unauthorized"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await next_frame(socket)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_health_openapi_and_static_files(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    assert (await http.get("/readyz")).json() == {"status": "ready"}
    document = (await http.get("/v1/openapi.json")).json()
    validate(document)
    assert document["openapi"].startswith("3.1")
    paths = set(document["paths"])
    assert {
        "/v1/players",
        "/v1/sessions",
        "/v1/players/me",
        "/v1/players/me/games",
        "/v1/tables",
        "/v1/tables/{table_id}/join",
        "/v1/tables/{table_id}/bots",
        "/v1/tables/{table_id}/start",
        "/v1/tables/{table_id}/leave",
        "/v1/tables/{table_id}/commands",
        "/v1/tables/{table_id}/view",
        "/v1/tables/{table_id}",
        "/v1/tables/{table_id}/replay",
        "/v1/leaderboard/{game}",
        "/healthz",
        "/readyz",
    } <= paths
    assert document["paths"]["/v1/tables"]["post"]["security"] == [{"bearer": []}]
    page = await http.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    head = await http.head("/")
    assert head.status_code == 200 and not head.content
    assert head.headers["content-length"] == page.headers["content-length"]
    missing = await http.get("/v1/no-such-thing")
    assert missing.status_code == 404 and error_of(missing) == "not_found"


async def test_readyz_says_not_ready_without_the_service(live: LiveGateway) -> None:
    # db 1 of the same server has never been initialised: no partitions, no groups
    url = live.start_gateway(redis_url=live.redis_url.rsplit("/", 1)[0] + "/1", ready=False)
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        assert (await http.get("/healthz")).status_code == 200
        ready = await http.get("/readyz")
        assert ready.status_code == 503 and error_of(ready) == "not_ready"
        signup = await http.post("/v1/players", json={"name": "Zed", "password": "12345678"})
        assert signup.status_code == 503 and error_of(signup) == "unavailable"


async def test_body_cap_rate_limit_across_gateways_and_cors(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    player = await sign_up(http, unique("Big"))
    huge = {"game": "tiny", "seats": 2, "options": {"x": "y" * 20_000}}
    too_big = await player.post("/v1/tables", huge)
    assert too_big.status_code == 413 and error_of(too_big) == "too_large"
    # two more gateways with a tight bucket: the bucket is in Redis, so they share it
    slow = {"ORRERY_GATEWAY_RATE": "0.01", "ORRERY_GATEWAY_BURST": "4"}
    cors = {"ORRERY_GATEWAY_CORS_ORIGINS": "https://app.example"}
    urls = [live.start_gateway(**slow, **cors), live.start_gateway(**slow)]
    statuses = []
    for i in range(6):
        async with httpx.AsyncClient(base_url=urls[i % 2], timeout=30) as other:
            response = await other.get("/v1/players/me", headers=player.headers)
            statuses.append(response.status_code)
            if response.status_code == 429:
                assert error_of(response) == "rate_limited"
                assert int(response.headers["retry-after"]) >= 1
    assert statuses == [200, 200, 200, 200, 429, 429]
    async with httpx.AsyncClient(base_url=urls[0], timeout=30) as other:
        preflight = await other.options(
            "/v1/tables",
            headers={
                "Origin": "https://app.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert preflight.headers.get("access-control-allow-origin") == "https://app.example"
        foreign = await other.get("/healthz", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in foreign.headers
    # the default gateway allows no cross-origin browser calls
    plain = await http.get("/healthz", headers={"Origin": "https://app.example"})
    assert "access-control-allow-origin" not in plain.headers


# ---------------------------------------------------------------- the lobby


async def test_lobby_lists_public_tables_by_state_with_a_cursor(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Lia"))
    ben = await sign_up(http, unique("Leo"))
    made = [(await ann.create_table("tiny", 2))["table_id"] for _ in range(3)]
    private = await ann.create_table("tiny", 2, private=True)
    assert private["invite"] and (await ann.create_table("tiny", 1))["invite"] is None
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"game": "tiny", "state": "open", "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = (await ben.get("/v1/tables", **params)).json()
        assert len(page["tables"]) <= 2
        seen += [t["table_id"] for t in page["tables"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert set(made) <= set(seen) and private["table_id"] not in seen
    assert seen.index(made[2]) < seen.index(made[1]) < seen.index(made[0])  # newest first
    entry = next(t for t in (await ben.get("/v1/tables", game="tiny")).json()["tables"])
    assert set(entry) == {"table_id", "game", "seats", "players", "state", "options", "created_at"}
    # it moves to "playing" and then "finished"
    table = made[0]
    await ann.join(table)
    await ben.join(table)
    await ann.start(table)
    playing = (await ben.get("/v1/tables", state="playing", game="tiny")).json()["tables"]
    assert table in [t["table_id"] for t in playing]
    assert table not in [t["table_id"] for t in (await ben.get("/v1/tables")).json()["tables"]]
    await asyncio.gather(play_to_end(ann, table, via="http"), play_to_end(ben, table, via="ws"))
    async with asyncio.timeout(30):
        while True:
            finished = (await ben.get("/v1/tables", state="finished")).json()["tables"]
            if table in [t["table_id"] for t in finished]:
                break
            await asyncio.sleep(0.05)
    # a finished table answers every command game_over, the lobby's included
    restart = await ann.post(f"/v1/tables/{table}/start")
    assert restart.status_code == 422 and error_of(restart) == "game_over", restart.text
    cat = await sign_up(http, unique("Cat"))
    late = await cat.post(f"/v1/tables/{table}/join", {})
    assert late.status_code == 409 and error_of(late) == "game_over", late.text
    for params, code in [
        ({"state": "nope"}, "bad_state"),
        ({"cursor": "garbage"}, "bad_cursor"),
        ({"game": "No Such"}, "unknown_game"),
        ({"limit": "many"}, "malformed"),
    ]:
        refused = await ben.get("/v1/tables", **params)
        assert refused.status_code == 422 and error_of(refused) == code, (params, refused.text)
    # my page lists the tables where I hold a seat, with my seat
    mine = (await ben.get("/v1/players/me")).json()["tables"]
    assert [(t["table_id"], t["seat"]) for t in mine if t["table_id"] == table] == [(table, 1)]


async def test_private_tables_need_their_invite(http: httpx.AsyncClient) -> None:
    host = await sign_up(http, unique("Hal"))
    guest = await sign_up(http, unique("Gus"))
    made = await host.create_table("tiny", 3, private=True)
    table, invite = made["table_id"], made["invite"]
    for body in ({}, {"invite": "wrong" * 5}, {"invite": invite + "x"}):
        refused = await guest.post(f"/v1/tables/{table}/join", body)
        assert refused.status_code == 403 and error_of(refused) == "bad_invite"
    assert await host.join(table) == 0  # the creator needs no invite
    assert await guest.join(table, invite=invite) == 1
    listed = [t["table_id"] for t in (await guest.get("/v1/tables", game="tiny")).json()["tables"]]
    assert table not in listed
    # but it is on my page
    assert table in [t["table_id"] for t in (await guest.get("/v1/players/me")).json()["tables"]]


# ---------------------------------------------------------------- seats and commands


async def test_join_bots_start_and_leave_refusals(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    cat = await sign_up(http, unique("Cat"))
    table = (await ann.create_table("tiny", 2))["table_id"]
    missing = await ann.post("/v1/tables/t-nope/join", {})
    assert missing.status_code == 404 and error_of(missing) == "no_such_table"
    bad_id = await ann.post("/v1/tables/bad%20id/join", {})
    assert bad_id.status_code == 404
    assert await ann.join(table, seat=1) == 1
    again = await ann.post(f"/v1/tables/{table}/join", {})
    assert again.status_code == 409 and error_of(again) == "already_seated"
    taken = await ben.post(f"/v1/tables/{table}/join", {"seat": 1})
    assert taken.status_code == 409 and error_of(taken) == "seat_taken"
    no_seat = await ben.post(f"/v1/tables/{table}/join", {"seat": 7})
    assert no_seat.status_code == 422 and error_of(no_seat) == "no_such_seat"
    # not seated: no start, no leave, no bots, no commands
    for path, body in [
        ("start", None),
        ("leave", None),
        ("bots", {}),
        ("commands", {"command_id": "c1", "body": {"type": "tiny.draw"}}),
    ]:
        refused = await cat.post(f"/v1/tables/{table}/{path}", body)
        assert refused.status_code == 403 and error_of(refused) == "not_seated", path
    early = await ann.post(f"/v1/tables/{table}/start")
    assert early.status_code == 422 and error_of(early) == "seats_open"
    assert early.json()["outcome"] == "rejected" and early.json()["code"] == "seats_open"
    assert await ben.join(table) == 0
    full = await cat.post(f"/v1/tables/{table}/join", {})
    assert full.status_code == 409 and error_of(full) == "table_full"
    no_room = await ann.post(f"/v1/tables/{table}/bots", {})
    assert no_room.status_code == 409 and error_of(no_room) == "table_full"
    # leaving before the start opens the seat again
    left = await ben.post(f"/v1/tables/{table}/leave")
    assert left.status_code == 200 and left.json()["outcome"] == "accepted"
    assert await cat.join(table) == 0
    await ann.start(table)
    late = await ben.post(f"/v1/tables/{table}/join", {})
    assert late.status_code == 409 and error_of(late) == "table_started"
    late_bot = await ann.post(f"/v1/tables/{table}/bots", {})
    assert late_bot.status_code == 409 and error_of(late_bot) == "table_started"


async def test_commands_outcomes_duplicates_and_scoped_ids(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    table = await seated_table(ann, ben)
    await ann.start(table)
    view = await ann.view(table)
    assert view["viewer"] == 0 and view["to_move"] == [0]
    # a rejection: 422 with the outcome document
    wrong = await ben.command(table, {"type": "tiny.draw"}, "same-id")
    assert wrong.status_code == 422
    body = wrong.json()
    assert body["outcome"] == "rejected" and body["code"] == "not_your_turn"
    assert body["error"] == "not_your_turn" and body["command_id"] == "same-id"
    assert set(body) >= {"code", "message", "detail"}
    # the same id from another player is another command (ids are scoped per player)
    first = await ann.command(table, {"type": "tiny.stand"}, "same-id")
    assert first.status_code == 200, first.text
    accepted = first.json()
    assert accepted["outcome"] == "accepted" and accepted["command_id"] == "same-id"
    again = await ann.command(table, {"type": "tiny.stand"}, "same-id")
    assert again.status_code == 200
    assert again.json() == {
        "outcome": "duplicate",
        "command_id": "same-id",
        "table_id": table,
        "original": accepted,
    }
    for body, code in [
        ({"type": "table.join", "name": "x"}, "use_endpoint"),
        ({"type": "table.create", "game": "tiny", "seats": 2}, "use_endpoint"),
        ({"no": "type"}, "malformed"),
        ({"type": "chess.move"}, "unknown_command"),
    ]:
        refused = await ben.command(table, body)
        assert refused.status_code == 422 and error_of(refused) == code, (body, refused.text)
    bad_id = await ben.command(table, {"type": "tiny.stand"}, "has spaces")
    assert bad_id.status_code == 422 and error_of(bad_id) == "bad_command_id"


async def test_views_and_replays_show_only_my_seat(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    eve = await sign_up(http, unique("Eve"))
    table = await seated_table(ann, ben)
    started = await ann.start(table)
    async with eve.live(table) as socket:
        await frame_at(socket, started["last_seq"])
    mine = await ann.view(table)
    theirs = await ben.view(table)
    spectator = await eve.view(table)
    assert (mine["viewer"], theirs["viewer"], spectator["viewer"]) == (0, 1, None)
    assert mine["view"]["seats"][0]["cards"] and mine["view"]["seats"][1]["cards"] is None
    assert theirs["view"]["seats"][1]["cards"] and theirs["view"]["seats"][0]["cards"] is None
    assert all(s["cards"] is None for s in spectator["view"]["seats"])
    assert spectator["legal"] == [] and mine["legal"]
    at = started["last_seq"]
    replayed = (await ann.get(f"/v1/tables/{table}/replay", at=at)).json()
    assert replayed["seq"] == at and replayed["viewer"] == 0
    assert replayed["view"]["seats"][0]["cards"] == mine["view"]["seats"][0]["cards"]
    assert (await eve.get(f"/v1/tables/{table}/replay", at=at)).json()["viewer"] is None
    # my replay as the spectator: nobody's cards
    as_spectator = (
        await ann.get(f"/v1/tables/{table}/replay", at=at, **{"as": "spectator"})
    ).json()
    assert as_spectator["viewer"] is None and as_spectator["legal"] == []
    assert all(s["cards"] is None for s in as_spectator["view"]["seats"])
    # a seq inside the start command's events: the table after that command (nobody saw
    # the table between them), saying which seq it shows and which one was asked for
    inside = (await ann.get(f"/v1/tables/{table}/replay", at=started["first_seq"])).json()
    assert inside["seq"] == at and inside["viewer"] == 0
    assert inside["replay"]["at"] == started["first_seq"] and inside["replay"]["seq"] == at
    assert inside["replay"]["first_seq"] == started["first_seq"]
    lobby = (await eve.get(f"/v1/tables/{table}/replay", at=2)).json()
    assert lobby["phase"] == "lobby" and lobby["seq"] == 2
    beyond = await ann.get(f"/v1/tables/{table}/replay", at=at + 100)
    assert beyond.status_code == 404 and error_of(beyond) == "no_such_seq"
    not_int = await ann.get(f"/v1/tables/{table}/replay", at="x")
    assert not_int.status_code == 422


async def test_my_socket_follows_my_seat_when_the_lobby_record_lags_the_view(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    """Views and the lobby record are separate writes: a join's view may reach a watching
    socket before the record that says whose seat it is. The socket waits for the record."""
    ann, ben = await sign_up(http, unique("Ada")), await sign_up(http, unique("Ben"))
    table = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(table)
    redis = aioredis.Redis.from_url(live.redis_url)
    key = lobby_table_key(table)
    before = await redis.get(key)  # Ben not seated yet
    assert await ben.join(table) == 1
    joined = await redis.get(key)
    seq = json.loads(joined)["seq"]
    await redis.set(key, before)  # the lobby projection behind the views
    try:
        async with ben.live(table, after=seq - 1) as socket:
            await asyncio.sleep(0.3)  # the socket holds the view back meanwhile
            await redis.set(key, joined)  # the record catches up
            frame = await frame_at(socket, seq)
            assert frame["view"]["viewer"] == 1 and frame["seq"] == seq
    finally:
        await redis.set(key, joined)
        await redis.aclose()


async def test_websocket_resumes_after_a_reconnect_and_runs_commands(
    http: httpx.AsyncClient,
) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    table = (await ann.create_table("tiny", 2, {"max_cards": 8}))["table_id"]
    await ann.join(table)
    async with ben.live(table) as socket:
        first = await next_frame(socket)
        assert first["type"] == "view" and first["view"]["viewer"] is None
        await ben.join(table)  # the socket follows me to my new seat
        seated = await frame_at(socket, first["seq"] + 1)
        assert seated["view"]["viewer"] == 1
        started = await ann.start(table)
        last = (await frame_at(socket, started["last_seq"]))["seq"]
    # while my socket is away, Ann draws and so do I (over HTTP): two updates
    seqs = []
    for who in (ann, ben):
        response = await who.command(table, {"type": "tiny.draw"})
        assert response.status_code == 200, response.text
        seqs.append(response.json()["last_seq"])
    async with ben.live(table, after=last) as socket:
        frame = await next_frame(socket)
        assert frame["type"] == "view" and last < frame["seq"] <= seqs[-1]
        assert frame["view"]["viewer"] == 1
        if frame["seq"] < seqs[-1]:
            frame = await frame_at(socket, seqs[-1])
        assert frame["seq"] == seqs[-1] and frame["view"]["view"]["seats"][1]["card_count"] == 2
        # already up to date: nothing until the next update
        async with ben.live(table, after=seqs[-1]) as quiet:
            with pytest.raises(TimeoutError):
                await next_frame(quiet, timeout=0.5)
            stand = await ann.command(table, {"type": "tiny.stand"})
            pushed = await next_frame(quiet)
            assert pushed["seq"] == stand.json()["last_seq"]
        # my command over the socket: an outcome frame, then the new view
        command_id = uuid.uuid4().hex
        await socket.send(
            json.dumps(
                {"type": "command", "command_id": command_id, "body": {"type": "tiny.stand"}}
            )
        )
        frames = Frames(socket)  # the new view may come before the outcome, or after it
        outcome = await frames.outcome()
        assert outcome["outcome"] == "accepted" and outcome["command_id"] == command_id
        final = await frames.view_at(outcome["last_seq"])
        assert final["view"]["phase"] == "finished"
        for bad, code in [("not json", "malformed"), (json.dumps({"type": "hello"}), "malformed")]:
            await socket.send(bad)
            error = await next_frame(socket)
            assert error["type"] == "error" and error["error"] == code
        await socket.send(
            json.dumps({"type": "command", "command_id": "c", "body": {"type": "tiny.draw"}})
        )
        rejected = await next_frame(socket)
        assert rejected["type"] == "outcome" and rejected["code"] == "game_over"
    async with ben.live("t-no-such-table") as socket:
        assert (await next_frame(socket))["error"] == "no_such_table"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await next_frame(socket)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404


async def test_spectators_cannot_send_commands_over_the_socket(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    eve = await sign_up(http, unique("Eve"))
    table = await seated_table(ann, ben)
    await ann.start(table)
    async with eve.live(table) as socket:
        await next_frame(socket)
        await socket.send(
            json.dumps({"type": "command", "command_id": "x", "body": {"type": "tiny.draw"}})
        )
        refused = await next_frame(socket)
        assert refused["type"] == "error" and refused["error"] == "not_seated"


async def test_player_notices_are_pushed_to_that_player_only(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    ann = await sign_up(http, unique("Ada"))
    ben = await sign_up(http, unique("Ben"))
    notice = {"type": "your_turn", "table_id": "t1", "seat": 0, "seq": 9, "deadline_ms": 0}
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        for who, seq in ((ben, 1), (ann, 2)):
            stream = keys.player_notice_stream(who.player_id)
            await redis.xadd(stream, {"__data__": json.dumps({**notice, "seq": seq})})
        async with ann.notices(after="0-0") as socket:
            assert await next_frame(socket) == {**notice, "seq": 2}
            stream = keys.player_notice_stream(ann.player_id)
            await redis.xadd(stream, {"__data__": json.dumps({**notice, "seq": 3})})
            assert await next_frame(socket) == {**notice, "seq": 3}
            with pytest.raises(TimeoutError):
                await next_frame(socket, timeout=0.3)
    finally:
        await redis.aclose()


async def test_no_response_or_log_line_carries_a_secret(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    password = "a secret password"
    ann = await sign_up(http, unique("Ada"), password)
    ben = await sign_up(http, unique("Ben"), password)
    table = await seated_table(ann, ben)
    texts = []
    texts.append(json.dumps(await ann.start(table)))
    for who in (ann, ben):
        texts.append((await who.get("/v1/players/me")).text)
        texts.append((await who.get(f"/v1/tables/{table}/view")).text)
        texts.append((await who.get(f"/v1/tables/{table}/replay", at=4)).text)
        texts.append((await who.command(table, {"type": "tiny.stand"})).text)
    texts.append((await ann.get("/v1/tables", state="playing")).text)
    secrets_ = [seat_secret(live.key, table, s, p.player_id) for s, p in enumerate((ann, ben))]
    logs = live.logs()
    for secret in [*secrets_, live.key, password, ann.token, ben.token]:
        assert all(secret not in text for text in texts)
        assert secret not in logs
    assert all(token.encode() not in msgspec.json.encode(texts) for token in secrets_)


async def test_a_gateway_stopped_with_sockets_open_logs_no_failed_watch(live: LiveGateway) -> None:
    """SIGTERM while a socket follows a table: its view and chat watchers end before the
    gateway's Redis client closes, so no blocked read fails (and logs it) on the way out,
    and the process exits 0."""
    url = live.start_gateway()
    process = live.gateways[-1]
    async with httpx.AsyncClient(base_url=url, timeout=30) as own:
        ann = await sign_up(own, unique("Ada"))
        table = (await ann.create_table("tiny", 2))["table_id"]
        async with ann.live(table) as socket:
            assert (await next_frame(socket))["type"] == "view"
            process.send_signal(signal.SIGTERM)
            # a graceful stop ends the process normally, as a worker's does
            assert await asyncio.to_thread(process.wait, 30) == 0
    failed = [
        line
        for line in live.logs().splitlines()
        if table in line and ("watch_failed" in line or "watch_ended" in line)
    ]
    assert failed == []
