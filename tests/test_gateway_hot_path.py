"""The gateway's hot path (gateway/fastpath.py, docs/architecture.md): a
session token is verified once and then only its expiry is checked, without changing
what a token is accepted or refused for; a command request is answered by the fast
path (gateway.fastpath) when it is one the path expects, and otherwise by Litestar's
route, with the same answers either way (compared over HTTP on a live gateway)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from gateway.crypto import session_key
from gateway.errors import ApiError
from gateway.fastpath import CommandPath, command_table
from gateway.headers import headers_for
from gateway.sessions import VERIFIED_KEPT, Sessions
from gateway.settings import Settings
from tests.support.gateway import LiveGateway, Player, live_gateway, sign_up, unique

pytestmark = pytest.mark.gateway

KEY = "k" * 32


def refusal(sessions: Sessions, token: str) -> str:
    with pytest.raises(ApiError) as raised:
        sessions.player(token)
    assert raised.value.status == 401
    return raised.value.code


def test_a_verified_token_is_remembered_and_still_expires(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sessions = Sessions(KEY, ttl_s=60)
    token, _ = sessions.issue("p" + "0" * 31)
    player, expires = sessions.player(token)
    assert sessions.verified == {token: (player, expires)}
    calls = []
    monkeypatch.setattr(jwt, "decode", lambda *a, **k: calls.append(a))
    assert sessions.player(token) == (player, expires)
    assert calls == []  # the remembered answer: no second signature check
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 61)
    assert refusal(sessions, token) == "session_expired"
    assert token not in sessions.verified


def test_only_the_very_string_verified_is_taken_from_memory() -> None:
    sessions = Sessions(KEY, ttl_s=60)
    token, _ = sessions.issue("p" + "0" * 31)
    sessions.player(token)
    assert refusal(sessions, token + "x") == "unauthorized"
    now = int(time.time())
    claims = {"sub": "p" + "0" * 31, "iat": now - 100, "exp": now - 10, "typ": "session"}
    assert refusal(sessions, jwt.encode(claims, session_key(KEY))) == "session_expired"
    forged = jwt.encode({**claims, "exp": now + 100}, "not the key" * 4)
    assert refusal(sessions, forged) == "unauthorized"
    assert list(sessions.verified) == [token]  # refusals are not remembered


def test_the_memory_of_verified_tokens_is_bounded() -> None:
    sessions = Sessions(KEY, ttl_s=60)
    sessions.verified = {f"t{i}": ("p", 2**40) for i in range(VERIFIED_KEPT)}
    token, _ = sessions.issue("p" + "0" * 31)
    sessions.player(token)
    assert list(sessions.verified) == [token]


# ---------------------------------------------------------------- the command fast path


class _Gateway:
    """What the fast path uses of the process's Gateway: a real Sessions, the bucket
    and the command recorded instead of sent (this test is about which requests the
    path answers itself; the answers themselves are compared over HTTP below)."""

    def __init__(self) -> None:
        self.sessions = Sessions(KEY, ttl_s=60)
        self.settings = Settings(redis_url="redis://unused", secret_key=KEY, max_body_bytes=64)
        self.sent: list[tuple[str, str, str, dict[str, Any]]] = []

    async def player(self, token: str | None) -> tuple[str, int]:
        return self.sessions.player(token)

    @property
    def commands(self) -> _Gateway:
        return self

    async def send(
        self, player: str, table_id: str, command_id: str, body: dict[str, Any]
    ) -> tuple[int, Any]:
        self.sent.append((player, table_id, command_id, body))
        if command_id == "refused":
            raise ApiError(429, "rate_limited", "slow down", headers={"Retry-After": "3"})
        return 200, {"outcome": "accepted", "command_id": command_id}


async def _through(
    path: CommandPath, target: str, body: bytes, headers: list[tuple[bytes, bytes]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """What the fast path sent back, and what it deferred to the full app (the messages
    the app received), for one request whose body arrives in two parts."""
    route, _, query = target.partition("?")
    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": route,
        "query_string": query.encode(),
        "headers": headers,
    }
    half = len(body) // 2
    incoming = [
        {"type": "http.request", "body": body[:half], "more_body": True},
        {"type": "http.request", "body": body[half:], "more_body": False},
    ]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    deferred: list[dict[str, Any]] | None = None

    async def full_app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal deferred
        deferred = []
        while True:
            message = await receive()
            deferred.append(message)
            if not message.get("more_body"):
                return

    table = command_table(scope)  # type: ignore[arg-type]
    if table is None:  # as gateway.app.GatewayApp does
        await full_app(scope, receive, send)
    else:
        await path(scope, receive, send, table, full_app)  # type: ignore[arg-type]
    return sent, deferred


async def test_the_fast_path_answers_only_commands_it_expects_and_defers_the_rest() -> None:
    gateway = _Gateway()
    path = CommandPath(gateway, cors=True)  # type: ignore[arg-type]
    token, _ = gateway.sessions.issue("p" + "0" * 31)
    auth = [(b"authorization", f"Bearer {token}".encode())]
    good = json.dumps({"command_id": "c1", "body": {"type": "tiny.stand"}}).encode()
    # a command: answered here, the outcome encoded once, with the security headers
    sent, deferred = await _through(path, "/v1/tables/t1/commands", good, auth)
    assert deferred is None and gateway.sent == [
        ("p" + "0" * 31, "t1", "c1", {"type": "tiny.stand"})
    ]
    start, whole = sent
    assert start["status"] == 200 and json.loads(whole["body"]) == {
        "outcome": "accepted",
        "command_id": "c1",
    }
    assert dict(start["headers"]) == {
        b"content-type": b"application/json",
        b"content-length": str(len(whole["body"])).encode(),
        **dict(headers_for("/v1/tables/t1/commands")),
    }
    # a refusal after the bucket: answered here as the app's handler answers it
    refused = json.dumps({"command_id": "refused", "body": {"type": "x"}}).encode()
    sent, deferred = await _through(path, "/v1/tables/t1/commands", refused, auth)
    assert sent[0]["status"] == 429 and (b"retry-after", b"3") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {"error": "rate_limited", "message": "slow down"}
    # everything else goes to the full app before any side effect, its body unchanged
    deep = json.dumps({"command_id": "c1", "body": {"a": [[[[[[[[[[]]]]]]]]]]}}).encode()
    deep = deep.replace(b"[]", b"[" * 30 + b"]" * 30)
    others: list[tuple[str, bytes, list[tuple[bytes, bytes]]]] = [
        ("/v1/tables/t1/commands", good, []),  # no session
        ("/v1/tables/t1/commands", good, [(b"authorization", b"Bearer nope")]),
        ("/v1/tables/t1/commands?x=1", good, auth),  # a query string
        ("/v1/tables/t1/commands", b"not json", auth),
        ("/v1/tables/t1/commands", b"", auth),
        ("/v1/tables/t1/commands", deep, auth),
        ("/v1/tables/t1/commands", b'{"command_id": 1, "body": {}}', auth),
        ("/v1/tables/t1/commands", good[:-1] + b', "more": 1}', auth),
        ("/v1/tables/t1/commands", good + b" " * 64, auth),  # over the cap
        ("/v1/tables/t1/commands", good, [*auth, (b"origin", b"https://app.example")]),
        ("/v1/tables/t1/commands", good, [*auth, *auth]),
        ("/v1/tables/t1/commands", good, [*auth, (b"content-length", b"100000")]),
    ]
    gateway.sent.clear()
    for target, body, headers in others:
        sent, deferred = await _through(path, target, body, headers)
        assert sent == [] and deferred is not None, (target, body, headers)
        assert b"".join(m.get("body", b"") for m in deferred) == body
    assert gateway.sent == []
    # other routes never come here
    assert (
        command_table(
            {"type": "http", "method": "GET", "path": "/v1/tables/t1/commands", "query_string": b""}
        )
        is None
    )  # type: ignore[arg-type]
    assert (
        command_table(
            {"type": "http", "method": "POST", "path": "/v1/tables/t1/join", "query_string": b""}
        )
        is None
    )  # type: ignore[arg-type]


# ---------------------------------------------------------------- the same answers, over HTTP


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-hot")), bots=False) as gateway:
        yield gateway


def _answer(response: httpx.Response, command_id: str | None = None) -> tuple[Any, ...]:
    """A response as a client sees it, but for its date (and the command id, when two
    commands are compared)."""
    text = response.text.replace(command_id, "<id>") if command_id else response.text
    headers = {k: v for k, v in response.headers.items() if k not in ("date", "content-length")}
    return response.status_code, text, headers


async def test_a_command_gets_the_same_answer_with_and_without_the_fast_path(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    """Each request twice: as sent (the fast path's, when it takes it) and with a query
    string, which the fast path always leaves to Litestar's route and its hooks."""
    ann = await sign_up(http, unique("Ann"))
    ben = await sign_up(http, unique("Ben"))
    cid = await sign_up(http, unique("Cid"))
    table: str = (await ann.create_table("tiny", 2))["table_id"]
    await ann.join(table)
    await ben.join(table)
    await ann.start(table)

    async def both(
        player: Player | None, body: Any, target: str = table, **headers: str
    ) -> tuple[httpx.Response, httpx.Response]:
        path = f"/v1/tables/{target}/commands"
        sent = {**(player.headers if player else {}), **headers}
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        fast = await http.post(path, content=raw, headers=sent)
        full = await http.post(path + "?via=route", content=raw, headers=sent)
        return fast, full

    def command(body: Any, command_id: str | None = None) -> dict[str, Any]:
        return {"command_id": command_id or uuid.uuid4().hex, "body": body}

    deep = {"command_id": "x", "body": {"a": json.loads("[" * 40 + "]" * 40)}}
    same: list[tuple[Player | None, Any, str]] = [
        (ann, command({"type": "tiny.stand"}, "has spaces"), table),  # bad_command_id
        (ann, command({"no": "type"}), table),  # malformed
        (ann, command({"type": "table.create", "game": "tiny", "seats": 2}), table),
        (ann, command({"type": "tiny.stand"}), "tnosuchtable"),  # no_such_table
        (cid, command({"type": "tiny.stand"}), table),  # not_seated
        (None, command({"type": "tiny.stand"}), table),  # no session
        (ann, b"not json", table),
        (ann, b"", table),
        (ann, deep, table),
        (ann, {"command_id": 5, "body": {}}, table),
        (ann, {**command({"type": "tiny.stand"}), "extra": 1}, table),
        (ann, command({"type": "tiny.stand", "pad": "y" * 20_000}), table),  # too large
    ]
    for player, body, target in same:
        fast, full = await both(player, body, target)
        assert fast.status_code >= 400, fast.text
        assert _answer(fast) == _answer(full), body
    fast, full = await both(ann, b"{}", table, Authorization="Bearer forged")
    assert fast.status_code == 401 and _answer(fast) == _answer(full)
    # a rejection by the rules (not Ben's turn): each its own command id
    first, second = uuid.uuid4().hex, uuid.uuid4().hex
    fast = await ben.command(table, {"type": "tiny.draw"}, first)
    full = await http.post(
        f"/v1/tables/{table}/commands?via=route",
        json=command({"type": "tiny.draw"}, second),
        headers=ben.headers,
    )
    assert fast.status_code == 422 and fast.json()["code"] == "not_your_turn"
    assert _answer(fast, first) == _answer(full, second)
    # accepted once, then the same id again by each path: the same duplicate
    accepted = await ann.command(table, {"type": "tiny.stand"}, "once")
    assert accepted.status_code == 200 and accepted.json()["outcome"] == "accepted"
    fast, full = await both(ann, command({"type": "tiny.stand"}, "once"))
    assert fast.json()["outcome"] == "duplicate" and _answer(fast) == _answer(full)


async def test_an_empty_bucket_refuses_a_command_the_same_way_on_both_paths(
    http: httpx.AsyncClient, live: LiveGateway
) -> None:
    tight = live.start_gateway(ORRERY_GATEWAY_RATE="0.01", ORRERY_GATEWAY_BURST="2")
    player = await sign_up(http, unique("Tia"))
    async with httpx.AsyncClient(base_url=tight, timeout=30) as other:
        answers = []
        for via in ("", "", "", "?via=route"):
            response = await other.post(
                f"/v1/tables/tnosuchtable/commands{via}",
                json={"command_id": "c1", "body": {"type": "tiny.stand"}},
                headers=player.headers,
            )
            answers.append(response)
    assert [r.status_code for r in answers] == [404, 404, 429, 429]
    assert _answer(answers[2]) == _answer(answers[3])
    assert int(answers[2].headers["retry-after"]) >= 1
