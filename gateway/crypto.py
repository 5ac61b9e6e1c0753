"""Everything the gateway derives from the server key, each for one purpose.

* a seat's secret: ``HMAC(key, "seat|<table>|<seat>|<player>")`` as URL-safe base64
  (43 characters): computed when needed, stored nowhere, sent to no browser;
* the session signing key: ``HMAC(key, "session")`` (so a session key never doubles as
  the identity key the workers verify joins with, which is the key itself);
* invites are random and kept only as their SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from orrery_contracts import identity as identity_module
from orrery_contracts.identity import sign_identity


def _mac(key: str, message: str) -> bytes:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()


def seat_secret(key: str, table_id: str, seat: int, player_id: str) -> str:
    # (the contract's: the matchmaker seats players at the tables it makes with it too)
    return identity_module.seat_secret(key, table_id, seat, player_id)


def session_key(key: str) -> bytes:
    return _mac(key, "session")


def identity(key: str, table_id: str, command_id: str, player_id: str) -> str:
    """The signed assertion a join carries (verified by the worker, orrery_contracts.identity)."""
    return sign_identity(key.encode(), table_id, command_id, player_id)


def new_invite() -> str:
    return secrets.token_urlsafe(16)


def invite_hash(invite: str) -> str:
    return hashlib.sha256(invite.encode()).hexdigest()


def same_invite(invite: str | None, stored_hash: str) -> bool:
    if not invite or not stored_hash:
        return False
    return hmac.compare_digest(invite_hash(invite), stored_hash)
