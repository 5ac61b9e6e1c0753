"""Sessions: signed, expiring bearer tokens (JWT, HS256, ``sub`` = the player id).

Signed with a key derived from the server key for this purpose only
(:func:`gateway.crypto.session_key`); nothing about a session is stored, so any
gateway process with the same server key accepts it until it expires.

Checking a token's signature and claims (PyJWT) costs more CPU than the rest of an
HTTP command's own work in the gateway, and a client sends the same token with every
request: so a token that passed is remembered (:data:`VERIFIED_KEPT` of them, the
whole memory dropped when full) with its player and expiry, and a later request with
the very same string is checked against its expiry only. Nothing but a string that
was verified byte for byte is ever taken from memory, and expiry is checked each time.
"""

from __future__ import annotations

import datetime as dt
import time

import jwt

from gateway.crypto import session_key
from gateway.errors import ApiError
from orrery_contracts.identity import PLAYER_ID

ALGORITHM = "HS256"
VERIFIED_KEPT = 10_000  # verified tokens remembered per process


class Sessions:
    def __init__(self, secret_key: str, ttl_s: int) -> None:
        self.key = session_key(secret_key)
        self.ttl_s = ttl_s
        # token -> (player id, expiry): tokens whose signature and claims passed
        self.verified: dict[str, tuple[str, int]] = {}

    def issue(self, player_id: str) -> tuple[str, str]:
        """A token and its expiry (ISO 8601, UTC)."""
        now = int(time.time())
        expires = now + self.ttl_s
        token = jwt.encode(
            {"sub": player_id, "iat": now, "exp": expires, "typ": "session"},
            self.key,
            algorithm=ALGORITHM,
        )
        at = dt.datetime.fromtimestamp(expires, dt.UTC).isoformat().replace("+00:00", "Z")
        return token, at

    def player(self, token: str | None) -> tuple[str, int]:
        """The player id the token stands for and its expiry (unix seconds), or 401."""
        if not token:
            raise ApiError(401, "unauthorized", "this needs a session: Authorization: Bearer …")
        known = self.verified.get(token)
        if known is not None:
            if time.time() >= known[1]:  # PyJWT's test: expired once now reaches exp
                del self.verified[token]
                raise expired()
            return known
        player = self._verify(token)
        if len(self.verified) >= VERIFIED_KEPT:
            self.verified.clear()
        self.verified[token] = player
        return player

    def _verify(self, token: str) -> tuple[str, int]:
        try:
            claims = jwt.decode(
                token,
                self.key,
                algorithms=[ALGORITHM],
                options={"require": ["sub", "exp", "iat"]},
            )
        except jwt.ExpiredSignatureError:
            raise expired() from None
        except jwt.PyJWTError:
            raise ApiError(401, "unauthorized", "the session token is not valid") from None
        subject = claims.get("sub")
        if claims.get("typ") != "session" or not isinstance(subject, str):
            raise ApiError(401, "unauthorized", "the session token is not valid")
        if not PLAYER_ID.match(subject):
            raise ApiError(401, "unauthorized", "the session token is not valid")
        return subject, int(claims["exp"])


def expired() -> ApiError:
    return ApiError(401, "session_expired", "the session has expired; sign in again")


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None
