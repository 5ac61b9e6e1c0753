"""The notification routes: my preferences, my e-mail address and its confirmation, my
browsers' push subscriptions, the tables waiting for me, and the two links messages
carry (confirm an address, unsubscribe), which need no session: they are signed and
single-purpose (notify/links.py).

Addresses and endpoints are personal data (notify/contacts.py): they are answered to
their owner only (``GET /v1/players/me/email``), never logged, and the notifiers learn
of a new address through their input stream by the player's id alone.
"""

from __future__ import annotations

import html
import re
from typing import Annotated, Any

import msgspec
import structlog
from litestar import Request, Response, delete, get, post, put
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import ErrorBody
from notify import contacts, links, prefs
from notify.models import (
    EmailIn,
    EmailStatus,
    MyTurns,
    NotificationPrefs,
    Notifications,
    PushEndpoint,
    PushState,
    PushSubscriptionIn,
    VerifyEmail,
    WaitingTable,
)
from notify.push import endpoint_allowed
from notify.settings import push_hosts
from orrery_contracts import keys
from orrery_contracts.lobby import player_tables_key

log = structlog.get_logger("orrery.gateway")

# an address: one @, no spaces or control characters, a dotted domain (the mail server
# is the judge of the rest; the confirmation link proves it)
EMAIL = re.compile(r"^[^@\s\x00-\x1f\x7f]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+\Z")
VERIFY_EVERY_S = 60  # one confirmation mail per player per minute at most
MY_TABLES = 100
Token = Annotated[str, Parameter(description="the signed link's token", max_length=1024)]


class _Status(msgspec.Struct):
    phase: str = ""
    to_move: list[int] = []


_status = msgspec.json.Decoder(_Status)


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    return {
        status: ResponseSpec(ErrorBody, description="error", generate_examples=False)
        for status in statuses
    }


def _verifying_key(player_id: str) -> str:
    return f"orrery:{{ntf}}:verifying:{player_id}"


async def _vapid_public(redis: Any) -> str:
    raw = await redis.get(keys.NOTIFY_VAPID)
    return raw.decode() if raw else ""


async def _notifications(redis: Any, player: str) -> Notifications:
    chosen = await prefs.load(redis, player)
    _, state = await contacts.email_of(redis, player)
    return Notifications(
        **msgspec.structs.asdict(chosen),
        email=state,
        push_subscriptions=await contacts.push_count(redis, player),
        vapid_public_key=await _vapid_public(redis),
    )


@get("/players/me/notifications", operation_id="getNotifications", tags=["notifications"])
async def get_notifications(player: str, gateway: Gateway) -> Notifications:
    """My notification preferences, my address's state, my push subscriptions' count and
    the key a browser subscribes with."""
    return await _notifications(gateway.client.redis, player)


@put(
    "/players/me/notifications",
    responses=_errors(422),
    operation_id="setNotifications",
    tags=["notifications"],
)
async def set_notifications(
    data: NotificationPrefs, player: str, gateway: Gateway
) -> Notifications:
    """Choose the channels (``push``, ``email``; none: never), quiet hours and their
    time zone (422 ``bad_time_zone``)."""
    problem = prefs.check(data)
    if problem is not None:
        code = "bad_time_zone" if "time zone" in problem else "malformed"
        raise ApiError(422, code, problem)
    await prefs.save(gateway.client.redis, player, data)
    return await _notifications(gateway.client.redis, player)


@put(
    "/players/me/email",
    status_code=202,
    responses=_errors(422),
    operation_id="setEmail",
    tags=["notifications"],
)
async def set_email(data: EmailIn, player: str, gateway: Gateway) -> EmailStatus:
    """Give the address to tell me at: a link to confirm it is sent there, and it is
    used once I open it (``pending`` until then; 422 ``bad_email``; 429
    ``rate_limited``: one confirmation mail a minute)."""
    address = data.email.strip()
    if not EMAIL.match(address):
        raise ApiError(422, "bad_email", "not an e-mail address")
    redis = gateway.client.redis
    if not await redis.set(_verifying_key(player), "1", ex=VERIFY_EVERY_S, nx=True):
        raise ApiError(
            429,
            "rate_limited",
            "a confirmation was sent less than a minute ago",
            headers={"Retry-After": str(VERIFY_EVERY_S)},
        )
    await contacts.set_email(redis, player, address)
    await redis.xadd(
        keys.NOTIFY_STREAM, {"__data__": msgspec.json.encode(VerifyEmail()), "player": player}
    )
    log.info("email_set", player_id=player)
    return EmailStatus(email=address, state="pending")


@get("/players/me/email", operation_id="getEmail", tags=["notifications"])
async def get_email(player: str, gateway: Gateway) -> EmailStatus:
    """My address (null: none) and whether I confirmed it."""
    address, state = await contacts.email_of(gateway.client.redis, player)
    return EmailStatus(email=address, state=state)


@delete("/players/me/email", operation_id="deleteEmail", tags=["notifications"])
async def delete_email(player: str, gateway: Gateway) -> None:
    """Forget my address."""
    await contacts.remove_email(gateway.client.redis, player)


@post(
    "/players/me/push",
    status_code=201,
    responses=_errors(422),
    operation_id="addPushSubscription",
    tags=["notifications"],
)
async def add_push(data: PushSubscriptionIn, player: str, gateway: Gateway) -> PushState:
    """Keep a browser's push subscription (``PushSubscription.toJSON()``); an endpoint
    not on a known push service is refused (422 ``bad_endpoint``)."""
    if not endpoint_allowed(data.endpoint, push_hosts()):
        raise ApiError(422, "bad_endpoint", "the endpoint is not a known push service's")
    count = await contacts.add_push(gateway.client.redis, player, data)
    log.info("push_subscribed", player_id=player, subscriptions=count)
    return PushState(push_subscriptions=count)


@delete("/players/me/push", operation_id="deletePushSubscription", tags=["notifications"])
async def delete_push(data: PushEndpoint, player: str, gateway: Gateway) -> None:
    """Forget a push subscription (by its endpoint)."""
    await contacts.remove_push(gateway.client.redis, player, data.endpoint)


@get("/players/me/turns", operation_id="myTurns", tags=["notifications"])
async def my_turns(player: str, gateway: Gateway) -> MyTurns:
    """The tables where it is my turn now (what the page's title and icon count)."""
    redis = gateway.client.redis
    members = await redis.zrevrange(player_tables_key(player), 0, MY_TABLES - 1)
    records = await gateway.tables.records([m.decode().split(":", 1)[1] for m in members])
    waiting = []
    for record in records:
        seat = next((p.seat for p in record.players if p.player_id == player), None)
        if seat is None or record.state != "playing":
            continue
        raw = await gateway.client.view_raw(record.table_id, None)
        if raw is None:
            continue
        status = _status.decode(raw)
        if status.phase == "playing" and seat in status.to_move:
            view = msgspec.json.decode(raw)
            waiting.append(
                WaitingTable(
                    table_id=record.table_id, game=record.game, seat=seat, seq=view.get("seq", 0)
                )
            )
    return MyTurns(tables=waiting)


# ---------------------------------------------------------------- signed links


def _page(title: str, text: str, form: str | None = None, status: int = 200) -> Response[str]:
    body = f"<p>{html.escape(text)}</p>"
    if form is not None:
        body += (
            f'<form method="post" action="{html.escape(form)}">'
            '<button type="submit">Unsubscribe</button></form>'
        )
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} — Orrery</title></head>"
        f'<body><h1>{html.escape(title)}</h1>{body}<p><a href="/">Orrery</a></p></body></html>'
    )
    return Response(page, status_code=status, media_type="text/html")


async def _claims(gateway: Gateway, token: str, purpose: links.Purpose) -> links.LinkClaims:
    """The link's claims, if it is valid and still names the player's address."""
    try:
        claims = links.verify(gateway.settings.secret_key, token, purpose)
    except links.BadLink:
        raise ApiError(400, "bad_link", "this link is not valid (or has expired)") from None
    address, _ = await contacts.email_of(gateway.client.redis, claims.player)
    if address is None or links.address_digest(address) != claims.address:
        raise ApiError(400, "bad_link", "this link is for an address no longer kept")
    return claims


@get(
    "/email/verify",
    include_in_schema=False,
    media_type="text/html",
)
async def verify_email(token: Token, gateway: Gateway) -> Response[str]:
    """The link in the confirmation mail: opening it confirms the address (an HTML
    page; 400 ``bad_link``)."""
    try:
        claims = await _claims(gateway, token, "verify_email")
    except ApiError as error:
        return _page("Not confirmed", error.message, status=400)
    await contacts.confirm_email(gateway.client.redis, claims.player)
    log.info("email_verified", player_id=claims.player)
    return _page("Address confirmed", "Orrery will tell you here when a game waits for you.")


@get(
    "/email/unsubscribe",
    include_in_schema=False,
    media_type="text/html",
)
async def unsubscribe_page(token: Token, gateway: Gateway) -> Response[str]:
    """The link in every mail: a page whose button stops the mails (opening the link
    alone changes nothing: mail scanners open links)."""
    try:
        await _claims(gateway, token, "unsubscribe")
    except ApiError as error:
        return _page("Unsubscribe", error.message, status=400)
    return _page(
        "Unsubscribe",
        "Stop the e-mails telling you a game waits for you?",
        form=f"/v1/email/unsubscribe?token={token}",
    )


@post(
    "/email/unsubscribe",
    status_code=200,
    include_in_schema=False,
    media_type="text/html",
    opt={"form_body": True},
)
async def unsubscribe(
    token: Token, gateway: Gateway, request: Request[Any, Any, Any]
) -> Response[str]:
    """Stop the mails: the page's button, or a mail client's one-click unsubscribe (RFC
    8058: a form body ``List-Unsubscribe=One-Click``)."""
    await request.body()
    try:
        claims = await _claims(gateway, token, "unsubscribe")
    except ApiError as error:
        return _page("Unsubscribe", error.message, status=400)
    redis = gateway.client.redis
    await prefs.save(
        redis, claims.player, prefs.without_email(await prefs.load(redis, claims.player))
    )
    log.info("email_unsubscribed", player_id=claims.player)
    return _page(
        "Unsubscribed", "No more e-mails will be sent. You can turn them on again in Orrery."
    )


NOTIFY_ROUTES = [
    get_notifications,
    set_notifications,
    set_email,
    get_email,
    delete_email,
    add_push,
    delete_push,
    my_turns,
]
LINK_ROUTES = [verify_email, unsubscribe_page, unsubscribe]

NOTIFY_MODELS = (
    Notifications,
    NotificationPrefs,
    EmailIn,
    EmailStatus,
    PushSubscriptionIn,
    PushEndpoint,
    PushState,
    MyTurns,
)
NOTIFY_TAGS = [
    {
        "name": "notifications",
        "description": "being told a table waits for me: Web Push, e-mail, preferences",
    }
]
