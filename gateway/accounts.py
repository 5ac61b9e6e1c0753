"""Player accounts in Redis: ``orrery:{acct}:player:<id>`` (hash: name, argon2id hash,
created_at), ``orrery:{acct}:name:<folded name>`` → id (sign-in looks names up there)
and ``orrery:{acct}:look:<skeleton>`` → id for each look-alike key of the name
(:mod:`gateway.names`), all written by one script: a name is taken exactly once, and
so is every name a reader could mistake for it (``Аlice`` with a Cyrillic А is
``Alice``).

Accounts made before the look-alike keys existed get theirs at their next sign-in (or
from ``orrery accounts check``, which also reports look-alike pairs among them); their
names keep signing in even if today's name rule would refuse them.

Passwords (:mod:`gateway.passwords`): strength checked at sign-up, argon2id hashed in a
thread (a sign-in does not stall the event loop), an unknown name checked against a
dummy hash (a sign-in takes as long whether or not the name exists), and a back-off
per name after repeated failures.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2.exceptions import InvalidHashError, VerificationError

from gateway.errors import ApiError
from gateway.names import lookalike_keys
from gateway.passwords import MAX_PASSWORD, Backoff, check_password, hasher
from orrery_contracts.inputs import MAX_NAME, lookup_name, normalise_name

_DUMMY = hasher.hash(secrets.token_urlsafe(16))

# KEYS: the name key, the player key, then the look-alike keys. Taken if any is.
_CREATE = (Path(__file__).parent / "accounts_create.lua").read_text()


def player_key(player_id: str) -> str:
    return f"orrery:{{acct}}:player:{player_id}"


def name_key(name: str) -> str:
    return f"orrery:{{acct}}:name:{name.casefold()}"


def lookalike_key(skeleton: str) -> str:
    return f"orrery:{{acct}}:look:{skeleton}"


def lookalike_keys_of(name: str) -> list[str]:
    return [lookalike_key(s) for s in lookalike_keys(name)]


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
            f"a name has 1 to {MAX_NAME} printable characters, no control or invisible "
            "characters (but inside emoji)",
        )
    return name


class Accounts:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.create_script = redis.register_script(_CREATE)
        self.backoff = Backoff(redis)

    async def create(self, raw_name: str, password: str) -> Account:
        name = valid_name(raw_name)
        check_password(password, name)
        taken_keys = [name_key(name), *lookalike_keys_of(name)]
        if any(await self.redis.mget(taken_keys)):
            raise _taken()
        hashed = await asyncio.to_thread(hasher.hash, password)
        player_id = "p" + secrets.token_hex(10)
        created = await self.create_script(
            keys=[taken_keys[0], player_key(player_id), *taken_keys[1:]],
            args=[player_id, name, hashed, int(time.time() * 1000)],
        )
        if not created:
            raise _taken()
        return Account(player_id, name)

    async def verify(self, raw_name: str, password: str) -> Account:
        # today's form of the name first, then as an older, laxer rule stored it
        forms = [form for form in (normalise_name(raw_name), lookup_name(raw_name)) if form]
        forms = list(dict.fromkeys(form[: MAX_NAME * 4] for form in forms))
        folded = forms[0].casefold() if forms else ""
        await self.backoff.check(folded)
        found = await self.redis.mget([name_key(form) for form in forms]) if forms else []
        player_id = next((p for p in found if p), None)
        stored = (
            await self.redis.hmget(player_key(player_id.decode()), "name", "hash")
            if player_id
            else [None, None]
        )
        hashed = stored[1].decode() if stored[1] else _DUMMY
        ok = await asyncio.to_thread(_verify, hashed, password[:MAX_PASSWORD])
        if not ok or player_id is None or stored[0] is None:
            await self.backoff.failed(folded)
            raise ApiError(401, "bad_credentials", "wrong name or password")
        await self.backoff.succeeded(folded)
        account = Account(player_id.decode(), stored[0].decode())
        if hasher.check_needs_rehash(hashed):
            rehashed = await asyncio.to_thread(hasher.hash, password)
            await self.redis.hset(player_key(account.player_id), "hash", rehashed)
        await self.claim_lookalikes(account)
        return account

    async def claim_lookalikes(self, account: Account) -> list[str]:
        """Give an account made before look-alike keys the ones still free (SET NX);
        the player ids already holding the others (a look-alike made earlier)."""
        others = []
        for key in lookalike_keys_of(account.name):
            if not await self.redis.set(key, account.player_id, nx=True):
                holder = await self.redis.get(key)
                if holder is not None and holder.decode() != account.player_id:
                    others.append(holder.decode())
        return others

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


def _taken() -> ApiError:
    return ApiError(409, "name_taken", "this name (or one that looks the same) is taken")


def _verify(hashed: str, password: str) -> bool:
    try:
        return hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False


@dataclass(frozen=True, slots=True)
class LookalikeReport:
    accounts: int
    # groups of accounts whose names a reader could mistake for one another
    collisions: list[list[Account]]


async def check_lookalikes(redis: Any) -> LookalikeReport:
    """Every account's look-alike keys, claimed where still free (accounts made before
    they existed), and the groups of accounts that share one: names that look the same."""
    accounts = Accounts(redis)
    by_key: dict[str, list[Account]] = {}
    count = 0
    async for raw_key in redis.scan_iter(match=player_key("*"), count=500):
        key = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
        name = await redis.hget(key, "name")
        if name is None:
            continue
        account = Account(key.rsplit(":", 1)[1], name.decode())
        count += 1
        await accounts.claim_lookalikes(account)
        for skeleton_key in lookalike_keys_of(account.name):
            by_key.setdefault(skeleton_key, []).append(account)
    groups: dict[frozenset[str], list[Account]] = {}
    for group in by_key.values():
        if len(group) > 1:
            members = sorted(group, key=lambda a: a.player_id)
            groups[frozenset(a.player_id for a in members)] = members
    return LookalikeReport(count, sorted(groups.values(), key=lambda g: g[0].name))
