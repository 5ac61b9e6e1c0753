"""The front door, hardened (docs/gateway.md, "Hardening"), black-box against a real
gateway process over sockets: look-alike names, strict types, deep nesting, NUL and
source files in static paths, security headers, sessions never in WebSocket URLs,
guessable passwords, the back-off after failed sign-ins, argon2 parameters, and a bad
WebSocket frame."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis
import websockets
from argon2 import PasswordHasher

from gateway.accounts import name_key, player_key
from services.transfer import read_stored_log
from tests.support.gateway import (
    LiveGateway,
    auth_frame,
    error_of,
    next_frame,
    sign_up,
    unique,
)
from tests.support.service import PARTITIONS, REPO

pytestmark = pytest.mark.gateway

GOOD = "a good password"


# ---------------------------------------------------------------- 1. look-alike names


async def test_a_name_cannot_be_taken_again_by_a_look_alike(http: httpx.AsyncClient) -> None:
    tail = unique("")  # eight hex digits: each test run its own names
    alice = f"Alice{tail}"
    first = await http.post("/v1/players", json={"name": alice, "password": GOOD})
    assert first.status_code == 201
    look_alikes = [
        f"Аlice{tail}",  # Cyrillic А
        f"Αlice{tail}",  # Greek Α
        f"Alıce{tail}",  # dotless ı
        "".join(chr(ord(c) + 0xFEE0) for c in alice),  # fullwidth Ａｌｉｃｅ…
        f"𝐀lice{tail}",  # mathematical bold A
        f"AIice{tail}",  # capital I for l
        f"ALICE{tail}",  # case
    ]
    for name in look_alikes:
        taken = await http.post("/v1/players", json={"name": name, "password": GOOD})
        assert taken.status_code == 409 and error_of(taken) == "name_taken", (name, taken.text)
    # invisible characters are no characters of a name: refused, not a second Alice
    for name in (f"{alice}\u200d", f"\u200d{alice}", f"Al\u200dice{tail}", f"Alice\u2060{tail}"):
        refused = await http.post("/v1/players", json={"name": name, "password": GOOD})
        assert refused.status_code == 422 and error_of(refused) == "bad_name", (name, refused.text)
    # a no-break space is a space: "Ann Lee" once
    spaced = f"Ann Lee{tail}"
    made = await http.post("/v1/players", json={"name": spaced, "password": GOOD})
    assert made.status_code == 201
    nbsp = await http.post(
        "/v1/players", json={"name": spaced.replace(" ", "\u00a0"), "password": GOOD}
    )
    assert nbsp.status_code == 409 and error_of(nbsp) == "name_taken"
    signed = await http.post(
        "/v1/sessions", json={"name": spaced.replace(" ", "\u00a0 "), "password": GOOD}
    )
    assert signed.status_code == 200, signed.text
    # an emoji sequence keeps its joiner (woman technologist), and a different name is free
    for name in (f"👩\u200d💻{tail}", f"Alicia{tail}"):
        made = await http.post("/v1/players", json={"name": name, "password": GOOD})
        assert made.status_code == 201, (name, made.text)
        assert made.json()["name"] == name


async def test_accounts_check_reports_look_alikes_made_before_and_they_keep_working(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    tail = unique("")
    first = await sign_up(http, f"Mallory{tail}")
    # An account made before look-alike keys existed, with a Cyrillic о: written as the
    # old gateway wrote it (player hash and name key only).
    old_name, old_id = f"Mallоry{tail}", f"pold{tail}"
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        hashed = PasswordHasher().hash(GOOD)  # the old (library default) parameters
        await redis.hset(player_key(old_id), mapping={"name": old_name, "hash": hashed})
        await redis.set(name_key(old_name), old_id)
        checked = subprocess.run(
            [sys.executable, "-m", "orrery.cli", "accounts", "check", "--json"],
            env={**live.env(), "ORRERY_REDIS_URL": live.redis_url},
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
        )
        assert checked.returncode == 1, checked.stderr[-2000:]
        report = json.loads(checked.stdout)
        groups = [{m["player_id"] for m in g} for g in report["collisions"]]
        assert {first.player_id, old_id} in groups
        # the old account still signs in; its hash moves to today's parameters
        signed = await http.post("/v1/sessions", json={"name": old_name, "password": GOOD})
        assert signed.status_code == 200, signed.text
        rehashed = (await redis.hget(player_key(old_id), "hash")).decode()
        assert rehashed.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    finally:
        await redis.aclose()


def test_table_join_names_follow_the_same_rule() -> None:
    from orrery_contracts.inputs import normalise_name

    for name in ("Alice\u200d", "\u200dAlice", "Al\u200dice", "👩\u200d\u200d💻", "a\u200d💻"):
        assert normalise_name(name) is None, repr(name)
    assert normalise_name("👩🏽\u200d💻") == "👩🏽\u200d💻"
    assert normalise_name("Ann\u00a0\u3000 Lee") == "Ann Lee"
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert normalise_name(scotland) == scotland
    assert normalise_name("x\U000e0067\U000e007f") is None


# ---------------------------------------------------------------- 2. strict types


async def test_wrong_types_are_malformed_never_coerced(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ann"))
    for path, body in [
        ("/v1/tables", {"game": "tiny", "seats": "2"}),
        ("/v1/tables", {"game": "tiny", "seats": 2.5}),
        ("/v1/tables", {"game": "tiny", "seats": 2, "private": "true"}),
        ("/v1/tables/t1/join", {"seat": "0"}),
        ("/v1/tables/t1/bots", {"seat": "1"}),
        ("/v1/tables/t1/commands", {"command_id": 7, "body": {}}),
    ]:
        refused = await ann.post(path, body)
        assert refused.status_code == 422 and error_of(refused) == "malformed", (path, body)
    refused = await http.post("/v1/players", json={"name": unique("Bo"), "password": 12345678})
    assert refused.status_code == 422 and error_of(refused) == "malformed"
    made = await ann.post("/v1/tables", {"game": "tiny", "seats": 2})
    assert made.status_code == 201


async def test_a_table_made_unrated_is_created_unrated(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    """``"rated": false`` reaches ``table.create``: the log's ``table.created`` says so
    (a table made without it is rated, its event as it always was)."""
    ann = await sign_up(http, unique("Ann"))
    friendly = await ann.post("/v1/tables", {"game": "tiny", "seats": 2, "rated": False})
    ranked = await ann.post("/v1/tables", {"game": "tiny", "seats": 2})
    assert friendly.status_code == ranked.status_code == 201, (friendly.text, ranked.text)
    refused = await ann.post("/v1/tables", {"game": "tiny", "seats": 2, "rated": "no"})
    assert refused.status_code == 422 and error_of(refused) == "malformed"
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        created = {}
        for made in (friendly, ranked):
            table = made.json()["table_id"]
            log = await read_stored_log(redis, PARTITIONS, table)
            created[table] = msgspec.msgpack.decode(log.entries[0].body)
    finally:
        await redis.aclose()
    assert created[friendly.json()["table_id"]]["rated"] is False
    assert "rated" not in created[ranked.json()["table_id"]]


async def test_integral_floats_are_integers_as_json_schema_counts(
    http: httpx.AsyncClient,
) -> None:
    """JSON Schema's ``integer`` is any number without a fraction: ``2.0`` and ``1e0`` are
    integers, in a body as in a command's or an option's value."""
    ann = await sign_up(http, unique("Ann"))
    made = await ann.post(
        "/v1/tables", {"game": "tiny", "seats": 2.0, "options": {"max_cards": 3.0}}
    )
    assert made.status_code == 201, made.text
    table = made.json()["table_id"]
    joined = await ann.http.post(
        f"/v1/tables/{table}/join",
        content=b'{"seat": 0.0}',
        headers={**ann.headers, "Content-Type": "application/json"},
    )
    assert joined.status_code == 200 and joined.json() == {"seat": 0}, joined.text
    bot = await ann.http.post(
        f"/v1/tables/{table}/bots",
        content=b'{"seat": 1e0}',
        headers={**ann.headers, "Content-Type": "application/json"},
    )
    assert bot.status_code == 200 and bot.json() == {"seat": 1}, bot.text
    assert (await ann.start(table))["outcome"] == "accepted"
    # a command's integer: the rules read it (nothing to take back), not a malformed body
    undo = await ann.command(table, {"type": "table.undo", "to_seq": 0.0})
    assert undo.status_code == 422 and undo.json()["code"] == "undo_blocked", undo.text
    # a fraction is no integer, a string no number
    for body in ({"seats": 2.5}, {"seats": "2"}, {"seats": 2, "options": {"max_cards": 3.5}}):
        refused = await ann.post("/v1/tables", {"game": "tiny", **body})
        assert refused.status_code == 422, (body, refused.text)


# ---------------------------------------------------------------- 3. deep nesting


async def test_deep_nesting_is_malformed_on_every_endpoint_and_socket(
    http: httpx.AsyncClient,
) -> None:
    ann = await sign_up(http, unique("Ann"))
    table = (await ann.post("/v1/tables", {"game": "tiny", "seats": 1})).json()["table_id"]
    deep = "[" * 7000 + "]" * 7000
    unclosed = "[" * 15000
    bodies = [
        '{"game": "tiny", "seats": 2, "options": {"x": ' + deep + "}}",
        unclosed,
        '{"command_id": "c", "body": {"type": "tiny.draw", "x": ' + deep + "}}",
    ]
    paths = [
        "/v1/players",
        "/v1/sessions",
        "/v1/tables",
        f"/v1/tables/{table}/join",
        f"/v1/tables/{table}/bots",
        f"/v1/tables/{table}/start",
        f"/v1/tables/{table}/leave",
        f"/v1/tables/{table}/commands",
    ]
    headers = {**ann.headers, "content-type": "application/json"}
    for path in paths:
        for body in bodies:
            answer = await http.post(path, content=body.encode(), headers=headers)
            assert answer.status_code == 400, (path, body[:30], answer.status_code, answer.text)
            assert error_of(answer) == "malformed"
    await ann.join(table)
    async with ann.live(table) as socket:
        assert (await next_frame(socket))["type"] == "view"
        for body in bodies:
            await socket.send(body)
            frame = await next_frame(socket)
            assert frame["type"] == "error" and frame["error"] == "malformed", frame
        # the socket still works
        await socket.send(json.dumps({"type": "command", "command_id": "x", "body": {}}))
        assert (await next_frame(socket))["type"] in ("outcome", "error")


# ---------------------------------------------------------------- 4. static paths


async def test_static_paths_with_nul_or_source_files_are_not_found(
    http: httpx.AsyncClient,
) -> None:
    for path in ("/index.html%00.js", "/%00", "/app.js%00", "/lib/%00/api.js"):
        answer = await http.get(path)
        assert answer.status_code in (400, 404), (path, answer.status_code, answer.text)
    for path in ("/export.py", "/__init__.py", "/lib/../export.py"):
        answer = await http.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
        assert "def " not in answer.text
    assert (await http.get("/app.js")).status_code == 200
    assert (await http.get("/catalogue/index.json")).status_code == 200


# ---------------------------------------------------------------- 5. headers


async def test_every_response_carries_the_security_headers(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ann"))
    page = await http.get("/")
    csp = page.headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert directives["connect-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert page.headers["x-frame-options"] == "DENY"
    answers = [
        page,
        await http.get("/app.js"),
        await http.get("/healthz"),
        await http.get("/v1/openapi.json"),
        await http.get("/v1/players/me"),  # 401
        await ann.get("/v1/players/me"),
        await ann.get("/v1/tables/no-such-table"),  # 404
        await http.put("/v1/tables"),  # 405
        await http.get("/no-such-file.js"),
    ]
    for answer in answers:
        assert answer.headers["x-content-type-options"] == "nosniff", answer.url
        assert answer.headers["referrer-policy"] == "no-referrer", answer.url
        assert "content-security-policy" in answer.headers, answer.url
        if answer.url.path.startswith(("/v1", "/healthz")):
            assert answer.headers["cache-control"] == "no-store", answer.url


# ---------------------------------------------------------------- 6. sessions not in URLs


async def test_sessions_never_travel_in_urls(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ann"))
    table = (await ann.post("/v1/tables", {"game": "tiny", "seats": 1})).json()["table_id"]
    for path in (f"/v1/tables/{table}/live", "/v1/players/me/live"):
        # a valid session in the URL is refused, and so is the auth frame after it
        async with websockets.connect(f"{ann.ws_base}{path}?token={ann.token}") as socket:
            frame = await next_frame(socket)
            assert frame["type"] == "error" and frame["error"] == "token_in_url", frame
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await next_frame(socket)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        # no auth frame, or a malformed one: refused
        async with websockets.connect(f"{ann.ws_base}{path}") as socket:
            await socket.send(json.dumps({"type": "command", "token": ann.token}))
            frame = await next_frame(socket)
            assert frame["type"] == "error" and frame["error"] == "unauthorized", frame
    # the session in the first frame: views flow
    async with websockets.connect(f"{ann.ws_base}/v1/tables/{table}/live") as socket:
        await socket.send(auth_frame(ann.token))
        assert (await next_frame(socket))["type"] == "view"
    # plain HTTP never takes a session from the query string
    answer = await http.get("/v1/players/me", params={"token": ann.token})
    assert answer.status_code == 401 and error_of(answer) == "unauthorized"


# ---------------------------------------------------------------- 7. passwords


async def test_guessable_passwords_are_refused_with_advice(http: httpx.AsyncClient) -> None:
    name = unique("Pat")
    for password in ("password", "12345678", " " * 8, "qwertyuiop", name + "1", "Password1!"):
        refused = await http.post("/v1/players", json={"name": name, "password": password})
        assert refused.status_code == 422 and error_of(refused) == "weak_password", password
        assert "guess" in refused.json()["message"]
    short = await http.post("/v1/players", json={"name": name, "password": "x7#"})
    assert error_of(short) == "bad_password"
    made = await http.post("/v1/players", json={"name": name, "password": "violet kettle orbit"})
    assert made.status_code == 201


async def test_long_passphrases_are_judged_never_a_server_error(http: httpx.AsyncClient) -> None:
    """Password managers make passphrases past the estimator's 72 characters: up to the
    256 allowed, a long one signs up and a long guessable one is refused, never a 500."""
    words = "violet kettle orbit marble fennel quartz lantern meadow cobalt pebble "
    passphrase = (words * 3)[:200]
    made = await http.post("/v1/players", json={"name": unique("Long"), "password": passphrase})
    assert made.status_code == 201, made.text
    for guessable in ("0" * 73, "0" * 255, "0" * 256, "password" * 32):
        refused = await http.post(
            "/v1/players", json={"name": unique("Long"), "password": guessable}
        )
        assert refused.status_code == 422 and error_of(refused) == "weak_password", guessable
    too_long = await http.post("/v1/players", json={"name": unique("Long"), "password": "x" * 257})
    assert too_long.status_code == 422 and error_of(too_long) == "bad_password"


async def test_repeated_failed_sign_ins_back_off_per_name(http: httpx.AsyncClient) -> None:
    ann = await sign_up(http, unique("Ann"))
    ghost = unique("Ghost")  # no such account: it backs off the same way
    for name in (ann.name, ghost):
        for _ in range(5):
            wrong = await http.post("/v1/sessions", json={"name": name, "password": "nope " * 3})
            assert wrong.status_code == 401 and error_of(wrong) == "bad_credentials"
        wrong = await http.post("/v1/sessions", json={"name": name, "password": "nope " * 3})
        assert wrong.status_code == 401
        # now even the right password waits
        held = await http.post("/v1/sessions", json={"name": name, "password": GOOD})
        assert held.status_code == 429 and error_of(held) == "too_many_attempts", held.text
        assert int(held.headers["retry-after"]) >= 1
    # another name is not held back
    other = await sign_up(http, unique("Ben"))
    assert other.token
    await asyncio.sleep(1.2)  # the first back-off is one second
    signed = await http.post("/v1/sessions", json={"name": ann.name, "password": GOOD})
    assert signed.status_code == 200, signed.text


# ---------------------------------------------------------------- extra: bad frames


async def test_an_invalid_utf8_frame_logs_one_line_and_no_traceback(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    ann = await sign_up(http, unique("Ann"))
    table = (await ann.post("/v1/tables", {"game": "tiny", "seats": 1})).json()["table_id"]
    await ann.join(table)
    before = len(live.logs())
    async with ann.live(table) as socket:
        assert (await next_frame(socket))["type"] == "view"
        # a text frame whose payload is not UTF-8 (the client library would refuse to
        # build one: write the frame by hand)
        from websockets.frames import Frame, Opcode

        socket.protocol.send_frame(Frame(Opcode.TEXT, b"\xff\xfe{"))
        socket.send_data()
        with pytest.raises(websockets.ConnectionClosed):
            for _ in range(10):
                await next_frame(socket, timeout=10)
    await asyncio.sleep(0.5)
    logged = live.logs()[before:]
    assert "Traceback" not in logged, logged[-3000:]
    lines = [json.loads(line) for line in logged.splitlines() if "server_refused" in line]
    assert len(lines) == 1 and "UTF-8" in lines[0]["message"], logged[-3000:]
    assert lines[0]["error"] == "UnicodeDecodeError"
