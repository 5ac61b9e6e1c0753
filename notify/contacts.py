"""Personal data: a player's e-mail address and Web Push subscriptions.

They live under their own hash tag (``orrery:{pd}:…``, contracts/orrery_contracts/keys.py),
apart from every game key, and only two Redis users may touch them: the gateway's (which
stores them for their owner and erases them) and the notifiers' (which send to them, drop a
subscription a push service says is gone). They never go in a stream, a view, a log line,
a chat or another player's answer: the notifiers' input stream names the player only.

* ``orrery:{pd}:email:<player>``: a hash ``address``, ``state`` (``pending`` until the
  player opens the signed link sent to it, then ``verified``);
* ``orrery:{pd}:push:<player>``: a hash from the SHA-256 of an endpoint to the
  subscription's JSON (endpoint and keys), at most :data:`MAX_PUSH` per player.

:func:`erase_contacts` removes both, and the player's notification preferences, when the
account goes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from notify.models import EmailState, PushSubscriptionIn
from orrery_contracts import keys

MAX_PUSH = 10
_subscription = msgspec.json.Decoder(PushSubscriptionIn)


def endpoint_id(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()


async def erase_contacts(redis: Any, player_id: str) -> None:
    """Erase everything kept to reach the player: their e-mail address, their push
    subscriptions and their notification preferences (for ``DELETE /v1/players/me``)."""
    await redis.delete(
        keys.email_key(player_id), keys.push_key(player_id), keys.notify_prefs_key(player_id)
    )


async def set_email(redis: Any, player_id: str, address: str) -> None:
    """Keep ``address`` as the player's, unconfirmed (replacing any other)."""
    await redis.delete(keys.email_key(player_id))
    await redis.hset(keys.email_key(player_id), mapping={"address": address, "state": "pending"})


async def email_of(redis: Any, player_id: str) -> tuple[str | None, EmailState]:
    found = await redis.hgetall(keys.email_key(player_id))
    address = found.get(b"address")
    if not address:
        return None, "none"
    state = found.get(b"state", b"pending").decode()
    return address.decode(), "verified" if state == "verified" else "pending"


async def confirm_email(redis: Any, player_id: str) -> None:
    await redis.hset(keys.email_key(player_id), "state", "verified")


async def remove_email(redis: Any, player_id: str) -> None:
    await redis.delete(keys.email_key(player_id))


async def add_push(redis: Any, player_id: str, subscription: PushSubscriptionIn) -> int:
    """Keep a subscription (the same endpoint again replaces it); the count after. The
    oldest-named one goes when there are more than :data:`MAX_PUSH`."""
    key = keys.push_key(player_id)
    await redis.hset(key, endpoint_id(subscription.endpoint), msgspec.json.encode(subscription))
    stored = await redis.hgetall(key)
    if len(stored) > MAX_PUSH:
        extra = sorted(stored)[: len(stored) - MAX_PUSH]
        extra = [k for k in extra if k.decode() != endpoint_id(subscription.endpoint)]
        if extra:
            await redis.hdel(key, *extra)
    return int(await redis.hlen(key))


async def remove_push(redis: Any, player_id: str, endpoint: str) -> None:
    await redis.hdel(keys.push_key(player_id), endpoint_id(endpoint))


async def push_count(redis: Any, player_id: str) -> int:
    return int(await redis.hlen(keys.push_key(player_id)))


async def subscriptions(redis: Any, player_id: str) -> list[PushSubscriptionIn]:
    found = []
    for raw in (await redis.hgetall(keys.push_key(player_id))).values():
        try:
            found.append(_subscription.decode(raw))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
    return found
