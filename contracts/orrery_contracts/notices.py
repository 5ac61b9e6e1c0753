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


Notice = YourTurn | Matched
