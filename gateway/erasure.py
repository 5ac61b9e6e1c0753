"""Erasing an account (``DELETE /v1/players/me``, the password confirming it) and
showing an erased player's seats as :data:`orrery_contracts.social.ERASED_NAME`.

What goes, in this order:

1. the erased mark (``social.erased_key``) is set first: from then on no session of
   the account passes (gateway.core), whatever fails later;
2. the player's seats: left at a table not started (the seat opens), conceded at a
   table in play (the game goes on without them); their waiting tickets are cancelled;
3. their friendships, friend requests and blocks, both ways; their presence, mute and
   notice stream;
4. what the notifiers keep to reach them: e-mail address, push subscriptions and
   notification preferences (``notify.contacts.erase_contacts``);
5. the account itself: its name, password hash and the name's look-alike keys (the
   name is free again).

What stays: the logs of their tables (the audit record of every game, seats by number
with the name they joined under), their ratings by player id (shown under the erased
name), and chat reports about or by them (an operator's record). Every listing of
tables (the lobby, one table, my games, archived ones) and the leaderboards show their
seats as "deleted player", read at answer time from the erased mark, so a name in a
log or the archive is never shown again.
"""

from __future__ import annotations

import contextlib
from typing import Any

import structlog
from litestar import delete
from litestar.openapi import ResponseSpec

from gateway.accounts import lookalike_keys_of, name_key, player_key
from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import ErrorBody, Struct
from gateway.queue import service as queue_service
from gateway.relations import unfriend
from notify.contacts import erase_contacts
from orrery_contracts import keys
from orrery_contracts.lobby import player_tables_key
from orrery_contracts.social import (
    away_key,
    blocked_by_key,
    erased_key,
    friends_key,
    mute_key,
    presence_key,
    requests_received_key,
    requests_sent_key,
)

log = structlog.get_logger("orrery.gateway")


class EraseIn(Struct, frozen=True, kw_only=True):
    """My password, confirming that my account goes."""

    password: str


# ---------------------------------------------------------------- erasing


async def erase(gateway: Gateway, player: str, password: str) -> None:
    accounts = gateway.accounts
    redis = gateway.client.redis
    name = await accounts.name_of(player)
    if name is None:
        raise ApiError(401, "unauthorized", "this account no longer exists")
    confirmed = await accounts.verify(name, password)  # 401 bad_credentials, backs off
    if confirmed.player_id != player:
        raise ApiError(401, "bad_credentials", "wrong name or password")
    await redis.set(erased_key(player), "1")
    await _leave_tables(gateway, player)
    await _leave_queue(gateway, player)
    await _forget_relations(redis, player)
    await erase_contacts(redis, player)
    await redis.delete(
        player_key(player),
        presence_key(player),
        away_key(player),
        keys.online_key(player),
        mute_key(player),
        keys.player_notice_stream(player),
    )
    for key in [name_key(name), *lookalike_keys_of(name)]:
        if await redis.get(key) == player.encode():
            await redis.delete(key)
    log.info("player_erased", player_id=player)


async def _leave_tables(gateway: Gateway, player: str) -> None:
    """Leave every table not started, concede every one in play."""
    members = await gateway.client.redis.zrevrange(player_tables_key(player), 0, -1)
    for member in members:
        table_id = member.decode().split(":", 1)[1]
        with contextlib.suppress(ApiError):
            record = await gateway.tables.record(table_id)
            if record.state in ("open", "playing"):
                await gateway.lobby.leave(player, table_id)


async def _leave_queue(gateway: Gateway, player: str) -> None:
    queue = queue_service(gateway)
    for ticket in (await queue.mine(player)).tickets:
        if ticket.state == "waiting":
            with contextlib.suppress(ApiError):
                await queue.cancel(player, ticket.ticket_id)


async def _forget_relations(redis: Any, player: str) -> None:
    """No friendship, request or block left with anyone, either way."""
    sets = [
        friends_key(player),
        requests_sent_key(player),
        requests_received_key(player),
        keys.blocks_key(player),
        blocked_by_key(player),
    ]
    others: set[str] = set()
    for key in sets:
        others |= {m.decode() for m in await redis.smembers(key)}
    for other in others:
        await unfriend(redis, player, other)
        await redis.srem(keys.blocks_key(other), player)
        await redis.srem(blocked_by_key(other), player)
    await redis.delete(*sets)


# ---------------------------------------------------------------- route


@delete(
    "/players/me",
    status_code=204,
    responses={401: ResponseSpec(ErrorBody, description="wrong password", generate_examples=False)},
    operation_id="erasePlayer",
    tags=["players"],
)
async def erase_me(data: EraseIn, player: str, gateway: Gateway) -> None:
    """Erase my account (my password confirms it).
    My name, friends, blocks, presence, e-mail address and push subscriptions go; I
    leave the tables not started and concede those in play; every session of mine ends.
    Finished games keep my seat (their logs are the audit record), listed as "deleted
    player"."""
    await erase(gateway, player, data.password)


ERASE_ROUTES = [erase_me]
