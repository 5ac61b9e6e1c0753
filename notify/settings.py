"""The notifier's settings (``orrery notifier``), read once when the process starts, and
the gateway's one notification setting (how long a player counts as present after a
request is the notifier's; the gateway only records when it last saw them)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import DEVELOPMENT, NOTIFICATIONS, Setting, number, whole

SMTP_URL_ENV = "ORRERY_SMTP_URL"
MAIL_FROM_ENV = "ORRERY_MAIL_FROM"
PUBLIC_URL_ENV = "ORRERY_PUBLIC_URL"
ACTIVE_ENV = "ORRERY_NOTIFY_ACTIVE_S"
GATHER_ENV = "ORRERY_NOTIFY_GATHER_S"
PER_HOUR_ENV = "ORRERY_NOTIFY_PER_HOUR"
DEDUPE_ENV = "ORRERY_NOTIFY_DEDUPE_S"
LEASE_ENV = "ORRERY_NOTIFY_LEASE_MS"
CLAIM_ENV = "ORRERY_NOTIFY_CLAIM_MS"
VAPID_KEY_ENV = "ORRERY_VAPID_PRIVATE_KEY"
VAPID_SUBJECT_ENV = "ORRERY_VAPID_SUBJECT"
FAULT_ENV = "ORRERY_FAULT_KILL_NOTIFIER_AFTER"
PUSH_HOSTS_ENV = "ORRERY_PUSH_HOSTS"
DEFAULT_PUSH_HOSTS = (
    "fcm.googleapis.com,*.push.services.mozilla.com,*.push.apple.com,*.notify.windows.com"
)

DEFAULT_ACTIVE_S = 120.0
DEFAULT_GATHER_S = 30.0
DEFAULT_PER_HOUR = 6
DEFAULT_DEDUPE_S = 7 * 24 * 3600
DEFAULT_LEASE_MS = 60_000
DEFAULT_CLAIM_MS = 30_000
DEFAULT_MAIL_FROM = "Orrery <orrery@localhost>"
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"
DEFAULT_VAPID_SUBJECT = "mailto:orrery@localhost"


def push_hosts(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """The push services' hosts a subscription may point at (gateway and notifier)."""
    raw = environ.get(PUSH_HOSTS_ENV) or DEFAULT_PUSH_HOSTS
    return tuple(h.strip().lower() for h in raw.split(",") if h.strip())


@dataclass(frozen=True)
class NotifierSettings:
    # where mail goes ("": no e-mail): smtp://host:port (loopback only),
    # smtp+starttls://user:password@host:port or smtps://…
    smtp_url: str = ""
    mail_from: str = DEFAULT_MAIL_FROM
    # the gateway's address as players reach it: the links in messages start with it
    public_url: str = DEFAULT_PUBLIC_URL
    # a player seen this recently (a request) is present: nothing is sent to them
    active_s: float = DEFAULT_ACTIVE_S
    # a delivery waits this long after the first notice, so close ones become one digest
    gather_s: float = DEFAULT_GATHER_S
    # messages per player per hour (more waits and joins the next digest)
    per_hour: int = DEFAULT_PER_HOUR
    # how long a delivered (player, table, turn) is remembered: never sent twice within it
    dedupe_s: int = DEFAULT_DEDUPE_S
    # a player's delivery is one notifier's this long; a crashed one's is taken after it
    lease_ms: int = DEFAULT_LEASE_MS
    # an input entry a crashed notifier read but did not settle is claimed after this
    claim_ms: int = DEFAULT_CLAIM_MS
    vapid_subject: str = DEFAULT_VAPID_SUBJECT
    # fault injection for the crash drills: SIGKILL right after "claim" or "send"
    fault: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> NotifierSettings:
        return cls(
            smtp_url=environ.get(SMTP_URL_ENV, ""),
            mail_from=environ.get(MAIL_FROM_ENV) or DEFAULT_MAIL_FROM,
            public_url=(environ.get(PUBLIC_URL_ENV) or DEFAULT_PUBLIC_URL).rstrip("/"),
            active_s=number(environ, ACTIVE_ENV, DEFAULT_ACTIVE_S),
            gather_s=number(environ, GATHER_ENV, DEFAULT_GATHER_S),
            per_hour=whole(environ, PER_HOUR_ENV, DEFAULT_PER_HOUR),
            dedupe_s=whole(environ, DEDUPE_ENV, DEFAULT_DEDUPE_S),
            lease_ms=whole(environ, LEASE_ENV, DEFAULT_LEASE_MS),
            claim_ms=whole(environ, CLAIM_ENV, DEFAULT_CLAIM_MS),
            vapid_subject=environ.get(VAPID_SUBJECT_ENV) or DEFAULT_VAPID_SUBJECT,
            fault=environ.get(FAULT_ENV, ""),
        )


SETTINGS = (
    Setting(
        SMTP_URL_ENV,
        "none (no e-mail)",
        "notifier",
        "the mail server: `smtp://host:port` (plain, loopback only), "
        "`smtp+starttls://user:password@host:port` or `smtps://user:password@host:port`",
        NOTIFICATIONS,
    ),
    Setting(
        MAIL_FROM_ENV,
        f"`{DEFAULT_MAIL_FROM}`",
        "notifier",
        "the sender of every message",
        NOTIFICATIONS,
    ),
    Setting(
        PUBLIC_URL_ENV,
        "the gateway's URL under `orrery serve`, else `http://127.0.0.1:8000`",
        "notifier",
        "the gateway's address as players reach it: links in messages (a table, "
        "confirm an address, unsubscribe) and the push service's VAPID audience start with it",
        NOTIFICATIONS,
    ),
    Setting(
        ACTIVE_ENV,
        "120",
        "notifier",
        "a player who made a request this recently, or holds a live socket, is present: "
        "their deliveries wait until they are not",
        NOTIFICATIONS,
    ),
    Setting(
        GATHER_ENV,
        "30",
        "notifier",
        "a delivery waits this long after a player's first waiting table, so tables that "
        "wait together go in one digest",
        NOTIFICATIONS,
    ),
    Setting(
        PER_HOUR_ENV,
        "6",
        "notifier",
        "messages per player per hour; past it, tables wait for the next digest",
        NOTIFICATIONS,
    ),
    Setting(
        DEDUPE_ENV,
        "604800",
        "notifier",
        "how long a delivered (player, table, turn) is remembered, never sent twice within it",
        NOTIFICATIONS,
    ),
    Setting(
        LEASE_ENV,
        "60000",
        "notifier",
        "a player's delivery belongs to one notifier this long; a crashed notifier's is "
        "taken up again after it",
        NOTIFICATIONS,
    ),
    Setting(
        CLAIM_ENV,
        "30000",
        "notifier",
        "an input entry a crashed notifier read but did not settle is claimed after this",
        NOTIFICATIONS,
    ),
    Setting(
        VAPID_KEY_ENV,
        "kept in `<data-dir>/data/vapid.key` (made at first start)",
        "notifier",
        "Web Push's VAPID private key (P-256, base64url); notifiers share it (`python -m "
        "notify.vapid` makes one), and publish its public half for the gateway",
        NOTIFICATIONS,
    ),
    Setting(
        PUSH_HOSTS_ENV,
        "`fcm.googleapis.com`, `*.push.services.mozilla.com`, `*.push.apple.com`, "
        "`*.notify.windows.com`",
        "gateway, notifier",
        "the push services a subscription may point at (comma-separated `https` hosts, "
        "`*.` patterns; `http://host:port` for a push service without TLS): any other "
        "endpoint is refused",
        NOTIFICATIONS,
    ),
    Setting(
        VAPID_SUBJECT_ENV,
        f"`{DEFAULT_VAPID_SUBJECT}`",
        "notifier",
        "the VAPID subject push services may contact (a `mailto:` or `https:` URL)",
        NOTIFICATIONS,
    ),
    Setting(
        FAULT_ENV,
        "–",
        "notifier",
        "SIGKILL the notifier right after `claim` (a delivery marked as sending) or `send`",
        DEVELOPMENT,
    ),
)
