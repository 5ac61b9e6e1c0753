"""Sending one Web Push message: RFC 8291 (the payload encrypted, ``aes128gcm``, for the
subscription's keys), RFC 8292 (a VAPID JWT for the endpoint's origin) and RFC 8030 (POST
to the endpoint with ``TTL``, ``Urgency`` and a ``Topic``: a push service replaces an
undelivered message with a newer one of the same topic, so a repeat never stacks).

An endpoint is a URL a player gave us, so before anything is sent to it it must be an
``https`` URL on a known push service's host (``ORRERY_PUSH_HOSTS``); anything else could
make the notifier call a host inside the network. Hosts listed there with an ``http:``
scheme (a test's push service on loopback) are taken as written.
"""

from __future__ import annotations

import base64
import fnmatch
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from notify.models import PushSubscriptionIn
from notify.vapid import vapid

GONE = frozenset({404, 410})
TTL_S = 24 * 3600


def endpoint_allowed(endpoint: str, hosts: tuple[str, ...]) -> bool:
    """Whether ``endpoint`` is a push service's URL we may call: ``https`` on a host
    matching one of ``hosts`` (``*.`` patterns), or ``http://host:port`` listed as such."""
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return False
    if not host or parts.username or parts.password:
        return False
    if parts.scheme == "https":
        return any(fnmatch.fnmatchcase(host, pattern) for pattern in hosts)
    if parts.scheme == "http":
        return f"http://{host}:{port}" in hosts
    return False


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encrypt(subscription: PushSubscriptionIn, payload: bytes) -> bytes:
    """The RFC 8291 body for the subscription (a fresh sender key and salt each time)."""
    sender = ec.generate_private_key(ec.SECP256R1())
    body: bytes = http_ece.encrypt(
        payload,
        private_key=sender,
        dh=_unb64(subscription.keys.p256dh),
        auth_secret=_unb64(subscription.keys.auth),
        version="aes128gcm",
    )
    return body


def vapid_headers(private_key: str, endpoint: str, subject: str) -> dict[str, str]:
    parts = urlsplit(endpoint)
    audience = f"{parts.scheme}://{parts.netloc}"
    claims = {"aud": audience, "sub": subject, "exp": int(time.time()) + 12 * 3600}
    signed: dict[str, str] = vapid(private_key).sign(claims)
    return {"Authorization": signed["Authorization"]}


@dataclass(frozen=True)
class PushSender:
    private_key: str
    public_key: str  # what browsers subscribe with (notify.vapid.public_key)
    subject: str
    hosts: tuple[str, ...]

    async def send(
        self, http: Any, subscription: PushSubscriptionIn, payload: bytes, topic: str
    ) -> int:
        """POST the message; the push service's status (0: refused here, never sent)."""
        if not endpoint_allowed(subscription.endpoint, self.hosts):
            return 0
        headers = {
            **vapid_headers(self.private_key, subscription.endpoint, self.subject),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(TTL_S),
            "Urgency": "normal",
            "Topic": topic[:32],
        }
        response = await http.post(
            subscription.endpoint, content=encrypt(subscription, payload), headers=headers
        )
        return int(response.status_code)
