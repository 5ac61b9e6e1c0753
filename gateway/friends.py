"""Friends: requests, acceptance, removal, the friends list with presence, a player's
public card, and inviting a friend to a table.

``POST /v1/players/{id}/friend`` asks, or accepts when the other asked first (a
``friend_request`` / ``friend_accepted`` notice goes to the other's notice stream);
``DELETE`` ends a friendship, withdraws my request or declines theirs. A block between
the two refuses a request (``blocked``) and ends whatever there was
(gateway.relations). ``POST /v1/tables/{id}/invite`` puts a ``table_invite`` notice on
a friend's stream: only a friend, never across a block, only by a player seated at
(or the creator of) a table not started yet; a private table then lets that friend
join without its invite.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from litestar import delete, get, post
from litestar.openapi import ResponseSpec

from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import ErrorBody, Struct
from gateway.presence import presence_for
from gateway.queue import PLAYER_ID
from gateway.relations import blocked_between, friends_of, hidden_from, notify, unfriend
from gateway.tables import seat_of
from orrery_contracts import keys
from orrery_contracts.lobby import gateway_table_key
from orrery_contracts.notices import FriendAccepted, FriendRequest, TableInvite
from orrery_contracts.social import (
    MAX_FRIENDS,
    MAX_PENDING,
    PresenceState,
    friends_key,
    requests_received_key,
    requests_sent_key,
)

FriendState = Literal["none", "requested", "asked_me", "friends"]


class Friendship(msgspec.Struct, frozen=True, kw_only=True):
    """Where I stand with ``player_id``: ``requested`` (I asked), ``asked_me``,
    ``friends`` or ``none``."""

    player_id: str
    state: FriendState


class Friend(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    presence: PresenceState


class PendingFriend(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str


class Friends(msgspec.Struct, frozen=True, kw_only=True):
    """My friends (with presence), the requests I received and those I sent."""

    friends: list[Friend]
    received: list[PendingFriend]
    sent: list[PendingFriend]


class PlayerCard(msgspec.Struct, frozen=True, kw_only=True):
    """Another player as I may see them: name, presence, where we stand."""

    player_id: str
    name: str
    presence: PresenceState
    friend: FriendState
    blocked: bool  # I blocked them


class InviteIn(Struct, frozen=True, kw_only=True):
    player_id: str


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    described = {
        403: "refused: a block between us, not a friend, or not my table",
        404: "no such player (or table)",
        409: "too many friends or requests, or the table has started",
    }
    return {
        status: ResponseSpec(ErrorBody, description=described[status], generate_examples=False)
        for status in statuses
    }


async def _account(gateway: Gateway, player: str, other: str) -> str:
    """The other player's name (404 when there is no such account; 422 for myself)."""
    if other == player:
        raise ApiError(422, "bad_friend", "that is you")
    name = await gateway.accounts.name_of(other) if PLAYER_ID.match(other) else None
    if name is None:
        raise ApiError(404, "no_such_player", "no such player")
    return name


async def friend_state(gateway: Gateway, player: str, other: str) -> FriendState:
    redis = gateway.client.redis
    async with redis.pipeline(transaction=False) as pipe:
        pipe.sismember(friends_key(player), other)
        pipe.sismember(requests_sent_key(player), other)
        pipe.sismember(requests_received_key(player), other)
        friends, sent, received = await pipe.execute()
    if friends:
        return "friends"
    if sent:
        return "requested"
    return "asked_me" if received else "none"


async def befriend(gateway: Gateway, player: str, other: str) -> Friendship:
    redis = gateway.client.redis
    await _account(gateway, player, other)
    if await blocked_between(redis, player, other):
        raise ApiError(403, "blocked", "one of you blocked the other")
    state = await friend_state(gateway, player, other)
    if state in ("friends", "requested"):
        return Friendship(player_id=other, state=state)
    mine = await gateway.accounts.name_of(player) or ""
    if state == "asked_me":
        if await redis.scard(friends_key(player)) >= MAX_FRIENDS:
            raise ApiError(409, "too_many_friends", f"at most {MAX_FRIENDS} friends")
        await unfriend(redis, player, other)  # the requests go
        async with redis.pipeline(transaction=False) as pipe:
            pipe.sadd(friends_key(player), other)
            pipe.sadd(friends_key(other), player)
            await pipe.execute()
        await notify(redis, other, FriendAccepted(player_id=player, name=mine))
        return Friendship(player_id=other, state="friends")
    if (
        await redis.scard(requests_sent_key(player)) >= MAX_PENDING
        or await redis.scard(requests_received_key(other)) >= MAX_PENDING
    ):
        raise ApiError(409, "too_many_requests", f"at most {MAX_PENDING} requests wait")
    async with redis.pipeline(transaction=False) as pipe:
        pipe.sadd(requests_sent_key(player), other)
        pipe.sadd(requests_received_key(other), player)
        added, _ = await pipe.execute()
    if added:
        await notify(redis, other, FriendRequest(player_id=player, name=mine))
    return Friendship(player_id=other, state="requested")


async def friends_list(gateway: Gateway, player: str) -> Friends:
    redis = gateway.client.redis
    friends = sorted(await friends_of(redis, player))
    received = sorted(m.decode() for m in await redis.smembers(requests_received_key(player)))
    sent = sorted(m.decode() for m in await redis.smembers(requests_sent_key(player)))
    names = await gateway.accounts.names_of(friends + received + sent)
    presence = await presence_for(gateway, player, friends)
    return Friends(
        friends=[
            Friend(player_id=f, name=names[f], presence=presence[f]) for f in friends if f in names
        ],
        received=[PendingFriend(player_id=p, name=names[p]) for p in received if p in names],
        sent=[PendingFriend(player_id=p, name=names[p]) for p in sent if p in names],
    )


async def invite(gateway: Gateway, player: str, table_id: str, other: str) -> None:
    redis = gateway.client.redis
    record = await gateway.tables.record(table_id)
    info = await redis.hgetall(gateway_table_key(table_id))
    if seat_of(record, player) is None and info.get(b"creator", b"").decode() != player:
        raise ApiError(403, "not_seated", "only a player at the table invites to it")
    if record.state != "open":
        raise ApiError(409, "table_started", "invitations are for tables not started yet")
    await _account(gateway, player, other)
    if await blocked_between(redis, player, other):
        raise ApiError(403, "blocked", "one of you blocked the other")
    if other not in await friends_of(redis, player):
        raise ApiError(403, "not_friends", "invite your friends only")
    if info.get(b"private") == b"1":
        await redis.hset(gateway_table_key(table_id), f"invited:{other}", "1")
    mine = await gateway.accounts.name_of(player) or ""
    await notify(
        redis,
        other,
        TableInvite(player_id=player, name=mine, table_id=table_id, game=record.game),
    )


async def card(gateway: Gateway, player: str, other: str) -> PlayerCard:
    redis = gateway.client.redis
    name = await gateway.accounts.name_of(other) if PLAYER_ID.match(other) else None
    if name is None:
        raise ApiError(404, "no_such_player", "no such player")
    presence = await presence_for(gateway, player, [other])
    blocked = await redis.sismember(keys.blocks_key(player), other)
    hidden = other in await hidden_from(redis, player)
    return PlayerCard(
        player_id=other,
        name=name,
        presence=presence[other],
        friend="none" if hidden else await friend_state(gateway, player, other),
        blocked=bool(blocked),
    )


# ---------------------------------------------------------------- routes


@post(
    "/players/{player_id:str}/friend",
    status_code=200,
    responses=_errors(403, 404, 409),
    operation_id="befriendPlayer",
    tags=["friends"],
)
async def befriend_player(player_id: str, player: str, gateway: Gateway) -> Friendship:
    """Ask this player to be my friend, or accept when they asked me: ``requested``
    or ``friends``. Refused (``blocked``) when either of us blocked the other."""
    return await befriend(gateway, player, player_id)


@delete(
    "/players/{player_id:str}/friend",
    status_code=204,
    operation_id="unfriendPlayer",
    tags=["friends"],
)
async def unfriend_player(player_id: str, player: str, gateway: Gateway) -> None:
    """End our friendship, withdraw my request or decline theirs (done already when
    there is none)."""
    await unfriend(gateway.client.redis, player, player_id)


@get("/players/me/friends", operation_id="listFriends", tags=["friends"])
async def list_friends(player: str, gateway: Gateway) -> Friends:
    """My friends with their presence, the requests waiting for me and mine."""
    return await friends_list(gateway, player)


@get("/players/{player_id:str}", responses=_errors(404), operation_id="getPlayer", tags=["players"])
async def get_player(player_id: str, player: str, gateway: Gateway) -> PlayerCard:
    """A player: name, presence (offline across a block), whether we are
    friends and whether I blocked them."""
    return await card(gateway, player, player_id)


@post(
    "/tables/{table_id:str}/invite",
    status_code=204,
    responses=_errors(403, 404, 409),
    operation_id="inviteFriend",
    tags=["friends"],
)
async def invite_friend(table_id: str, data: InviteIn, player: str, gateway: Gateway) -> None:
    """Invite a friend to my table before it starts: a ``table_invite`` notice on their
    notice socket (a private table then lets them join without its invite). Refused
    for a player who is not my friend (``not_friends``) or across a block (``blocked``)."""
    await invite(gateway, player, table_id, data.player_id)


FRIEND_ROUTES = [befriend_player, unfriend_player, list_friends, get_player, invite_friend]
