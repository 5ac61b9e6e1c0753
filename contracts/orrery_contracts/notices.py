"""Notices a player's clients read: one JSON document per entry (``__data__``) of a
seat's notice stream and of ``orrery:notice:<player_id>``, which the gateway forwards
as they are on ``/v1/players/me/live``. Tagged by ``type``."""

from __future__ import annotations

import msgspec


class YourTurn(msgspec.Struct, frozen=True, kw_only=True, tag="your_turn"):
    """Seat ``seat`` of ``table_id`` is to move since seq ``seq`` (``deadline_ms``: when
    its clock runs out; null without a clock)."""

    table_id: str
    seat: int
    seq: int
    deadline_ms: int | None


class Matched(msgspec.Struct, frozen=True, kw_only=True, tag="matched"):
    """The player's ticket ``ticket_id`` was matched: they hold ``seat`` at the started
    table ``table_id`` (written by the matchmaker)."""

    ticket_id: str
    table_id: str
    seat: int


class FriendRequest(msgspec.Struct, frozen=True, kw_only=True, tag="friend_request"):
    """Player ``player_id`` (named ``name``) asks to be the player's friend (accept with
    ``POST /v1/players/{player_id}/friend``; written by the gateway)."""

    player_id: str
    name: str


class FriendAccepted(msgspec.Struct, frozen=True, kw_only=True, tag="friend_accepted"):
    """Player ``player_id`` accepted the player's friend request (written by the
    gateway)."""

    player_id: str
    name: str


class TableInvite(msgspec.Struct, frozen=True, kw_only=True, tag="table_invite"):
    """Friend ``player_id`` invites the player to sit at ``table_id`` (a private table
    lets them join without its invite; written by the gateway)."""

    player_id: str
    name: str
    table_id: str
    game: str


class PartyInvite(msgspec.Struct, frozen=True, kw_only=True, tag="party_invite"):
    """Player ``player_id`` queued ticket ``ticket_id`` for ``game`` with the player in
    its party (accept with ``POST /v1/queue/{ticket_id}/accept``; written by the
    gateway)."""

    player_id: str
    name: str
    ticket_id: str
    game: str


class TournamentPaired(msgspec.Struct, frozen=True, kw_only=True, tag="tournament"):
    """Round ``round`` of tournament ``tournament_id`` is paired: the player holds
    ``seat`` at the started table ``table_id`` (written by the tournament organiser)."""

    tournament_id: str
    round: int
    table_id: str
    seat: int


Notice = (
    YourTurn
    | Matched
    | FriendRequest
    | FriendAccepted
    | TableInvite
    | PartyInvite
    | TournamentPaired
)
