"""What the gateway's notification routes take and answer (the OpenAPI document is made
from these), and what the notifiers read: a player's preferences and the entries of
their input stream."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

Channel = Literal["push", "email"]
Clock = Annotated[str, Meta(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$", description="HH:MM")]
EmailState = Literal["none", "pending", "verified"]


class QuietHours(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Nothing is sent from ``start`` to ``end`` (local time; past midnight when end <
    start); what waits then goes in one digest at ``end``."""

    start: Clock
    end: Clock


class NotificationPrefs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How I want to be told a table waits for me: the channels (none: never), quiet
    hours and the time zone they are in (an IANA name such as ``Europe/Paris``)."""

    channels: list[Channel] = msgspec.field(default_factory=lambda: ["push", "email"])
    quiet_hours: QuietHours | None = None
    time_zone: Annotated[str, Meta(min_length=1, max_length=64)] = "UTC"


class Notifications(NotificationPrefs, frozen=True, kw_only=True):
    """My preferences, and what they can reach: my address's state (an address is
    used once confirmed), how many browsers are subscribed to push, and the key a
    browser subscribes with (``applicationServerKey``, base64url)."""

    email: EmailState
    push_subscriptions: int
    vapid_public_key: str


class EmailIn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    email: Annotated[str, Meta(min_length=3, max_length=254)]


class EmailStatus(msgspec.Struct, frozen=True, kw_only=True):
    """My address (only ever shown to me) and its state: ``pending`` until I open the
    link sent to it."""

    email: str | None
    state: EmailState


class PushKeys(msgspec.Struct, frozen=True, kw_only=True):
    p256dh: Annotated[str, Meta(min_length=1, max_length=200)]
    auth: Annotated[str, Meta(min_length=1, max_length=100)]


class PushSubscriptionIn(msgspec.Struct, frozen=True, kw_only=True):
    """A browser's ``PushSubscription.toJSON()``."""

    endpoint: Annotated[str, Meta(min_length=8, max_length=1024)]
    keys: PushKeys
    expirationTime: int | None = None


class PushEndpoint(msgspec.Struct, frozen=True, kw_only=True):
    endpoint: Annotated[str, Meta(min_length=8, max_length=1024)]


class PushState(msgspec.Struct, frozen=True, kw_only=True):
    push_subscriptions: int


class WaitingTable(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    game: str
    seat: int
    seq: int  # since when it has been my turn there


class MyTurns(msgspec.Struct, frozen=True, kw_only=True):
    """The tables where it is my turn now."""

    tables: list[WaitingTable]


class VerifyEmail(msgspec.Struct, frozen=True, tag="verify_email"):
    """An input entry of the notifiers: send the player a link to confirm their address
    (the address itself is never in the stream: the notifier reads it)."""
