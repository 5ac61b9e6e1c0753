"""Player accounts in Redis: ``orrery:{acct}:player:<id>`` (hash: name, argon2id hash,
created_at) and ``orrery:{acct}:name:<folded name>`` → id, both written by one script,
so a name is taken exactly once (compared case-insensitively, after the same
normalisation ``table.join`` applies).

Passwords are hashed with argon2id (argon2-cffi's defaults) in a thread, so a sign-in
does not stall the event loop; an unknown name is checked against a dummy hash, so a
sign-in takes as long whether or not the name exists.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from gateway.errors import ApiError
from orrery_contracts.inputs import MAX_NAME, normalise_name

MIN_PASSWORD = 8
MAX_PASSWORD = 256
_hasher = PasswordHasher()
_DUMMY = _hasher.hash(secrets.token_urlsafe(16))

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'name', ARGV[2], 'hash', ARGV[3], 'created_at', ARGV[4])
return 1
"""


def player_key(player_id: str) -> str:
    return f"orrery:{{acct}}:player:{player_id}"


def name_key(name: str) -> str:
    return f"orrery:{{acct}}:name:{name.casefold()}"


@dataclass(frozen=True, slots=True)
class Account:
    player_id: str
    name: str


def valid_name(raw: str) -> str:
    name = normalise_name(raw)
    if name is None:
        raise ApiError(
            422,
            "bad_name",
            f"a name has 1 to {MAX_NAME} printable characters, no control characters",
        )
    return name


def valid_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ApiError(
            422,
            "bad_password",
            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
        )
    return password


class Accounts:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.create_script = redis.register_script(_CREATE)

    async def create(self, raw_name: str, password: str) -> Account:
        name = valid_name(raw_name)
        valid_password(password)
        if await self.redis.exists(name_key(name)):
            raise ApiError(409, "name_taken", "this name is taken")
        hashed = await asyncio.to_thread(_hasher.hash, password)
        player_id = "p" + secrets.token_hex(10)
        created = await self.create_script(
            keys=[name_key(name), player_key(player_id)],
            args=[player_id, name, hashed, int(time.time() * 1000)],
        )
        if not created:
            raise ApiError(409, "name_taken", "this name is taken")
        return Account(player_id, name)

    async def verify(self, raw_name: str, password: str) -> Account:
        name = normalise_name(raw_name) or ""
        player_id = await self.redis.get(name_key(name)) if name else None
        stored = (
            await self.redis.hmget(player_key(player_id.decode()), "name", "hash")
            if player_id
            else [None, None]
        )
        hashed = stored[1].decode() if stored[1] else _DUMMY
        ok = await asyncio.to_thread(_verify, hashed, password[:MAX_PASSWORD])
        if not ok or player_id is None or stored[0] is None:
            raise ApiError(401, "bad_credentials", "wrong name or password")
        if _hasher.check_needs_rehash(hashed):
            rehashed = await asyncio.to_thread(_hasher.hash, password)
            await self.redis.hset(player_key(player_id.decode()), "hash", rehashed)
        return Account(player_id.decode(), stored[0].decode())

    async def name_of(self, player_id: str) -> str | None:
        name = await self.redis.hget(player_key(player_id), "name")
        return name.decode() if name else None

    async def names_of(self, player_ids: list[str]) -> dict[str, str]:
        if not player_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(player_key(player_id), "name")
            names = await pipe.execute()
        return {p: n.decode() for p, n in zip(player_ids, names, strict=True) if n}


def _verify(hashed: str, password: str) -> bool:
    try:
        return _hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False
