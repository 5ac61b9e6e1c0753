"""The gateway's hot path (docs/benchmarks.md, "Gateway HTTP path (session 7)"): a
session token is verified once and then only its expiry is checked, without changing
what a token is accepted or refused for."""

from __future__ import annotations

import time

import jwt
import pytest

from gateway.crypto import session_key
from gateway.errors import ApiError
from gateway.sessions import VERIFIED_KEPT, Sessions

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
