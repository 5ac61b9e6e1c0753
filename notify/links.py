"""Signed, single-purpose links: confirming an e-mail address and unsubscribing.

A token is ``<payload>.<signature>``, both base64url: the payload is JSON naming its
purpose, the player, a digest of the address it was made for and its expiry; the
signature is HMAC-SHA256 with a key derived from the server key for links only (so a
link can never pass for a session or a seat secret, nor a session for a link). A token
made for one purpose is refused for another, after its expiry, and once the player's
address changed (the digest no longer matches). Tokens name no address: a link that
leaks (a forwarded mail, a proxy's log) says nothing about whom it was sent to.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Literal

import msgspec

Purpose = Literal["verify_email", "unsubscribe"]
VERIFY_TTL_S = 2 * 24 * 3600
UNSUBSCRIBE_TTL_S = 90 * 24 * 3600


class LinkClaims(msgspec.Struct, frozen=True):
    purpose: Purpose
    player: str
    address: str  # a digest of the address (address_digest), never the address
    expires: int  # unix seconds


class BadLink(Exception):
    """The token is not a valid link for this purpose (forged, expired, another's)."""


_decode = msgspec.json.Decoder(LinkClaims)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def address_digest(address: str) -> str:
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()[:32]


def _link_key(secret_key: str) -> bytes:
    return hmac.new(secret_key.encode(), b"orrery notification links", hashlib.sha256).digest()


def sign(secret_key: str, purpose: Purpose, player: str, address: str, ttl_s: int) -> str:
    claims = LinkClaims(purpose, player, address_digest(address), int(time.time()) + ttl_s)
    payload = _b64(msgspec.json.encode(claims))
    mac = hmac.new(_link_key(secret_key), payload.encode(), hashlib.sha256).digest()
    return f"{payload}.{_b64(mac)}"


def verify(secret_key: str, token: str, purpose: Purpose) -> LinkClaims:
    """The token's claims, if it is a valid unexpired link for ``purpose``."""
    payload, _, signature = token.partition(".")
    if not payload or not signature or len(token) > 1024:
        raise BadLink("malformed")
    expected = hmac.new(_link_key(secret_key), payload.encode(), hashlib.sha256).digest()
    try:
        given = _unb64(signature)
        claims = _decode.decode(_unb64(payload))
    except (ValueError, msgspec.DecodeError, msgspec.ValidationError):
        raise BadLink("malformed") from None
    if not hmac.compare_digest(expected, given):
        raise BadLink("forged")
    if claims.purpose != purpose:
        raise BadLink("another purpose")
    if claims.expires < time.time():
        raise BadLink("expired")
    return claims
