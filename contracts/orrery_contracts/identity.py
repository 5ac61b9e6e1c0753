"""Player identities a trusted gateway vouches for, so ratings can be keyed by player.

A Redis-level client can name itself anything in ``table.join``; a rating must not
follow a free-text name. The gateway (which authenticates players) adds to a join's
envelope an ``identity`` assertion: ``<player_id>.<signature>``, the signature being
HMAC-SHA256 under the server key (``ORRERY_SECRET_KEY``) of the table id, command id and
player id. The worker checks it and records ``player_id`` in the join only when it
holds; without the key, or with a bad signature, the join is anonymous (and not rated).
Binding the command id and table id means an assertion cannot be replayed onto another
join.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

PLAYER_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
# a server-side bot's id (``bot:<level>``, orrery_contracts.lobby): only a gateway vouches for it
BOT_ID = re.compile(r"^bot:[a-z]{1,16}\Z")


def _vouchable(player_id: str) -> bool:
    return bool(PLAYER_ID.match(player_id) or BOT_ID.match(player_id))


def _signature(key: bytes, table_id: str, command_id: str, player_id: str) -> str:
    message = f"orrery-identity|{table_id}|{command_id}|{player_id}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def sign_identity(key: bytes, table_id: str, command_id: str, player_id: str) -> str:
    """The assertion a gateway puts in a join's envelope ``identity`` field."""
    if not _vouchable(player_id):
        raise ValueError("a player id has 1-64 characters of A-Z a-z 0-9 _ -")
    return f"{player_id}.{_signature(key, table_id, command_id, player_id)}"


def verified_player(
    key: bytes | None, table_id: str, command_id: str, assertion: str | None
) -> str:
    """The player id the assertion vouches for, or "" (anonymous)."""
    if not key or not assertion:
        return ""
    player_id, _, signature = assertion.rpartition(".")
    if not _vouchable(player_id):
        return ""
    expected = _signature(key, table_id, command_id, player_id)
    return player_id if hmac.compare_digest(expected, signature) else ""


def seat_secret(key: str, table_id: str, seat: int, player_id: str) -> str:
    """The secret of a player's seat that a trusted front door derives from the server
    key instead of storing it (the gateway for joins, the matchmaker for the tables it
    makes): ``HMAC(key, "seat|<table>|<seat>|<player>")`` as URL-safe base64."""
    message = f"seat|{table_id}|{seat}|{player_id}".encode()
    digest = hmac.new(key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
