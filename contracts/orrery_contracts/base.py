"""Base classes for every command and event body in the wire contract.

Every body is a small frozen msgspec Struct tagged by ``type`` with an explicit,
never-reused string tag (``table.create``, ``fs.place_airship``, ...). Game packages
subclass these and pass ``tag="..."``; tagged unions are then built per game.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec


class CommandBody(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A request a seat makes; the rules accept it (events) or reject it (a code)."""


class EventBody(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """A fact recorded in a table's log; folding facts rebuilds every state.

    ``chance``: the event records a random draw made by ``decide`` (a shuffle, a card
    drawn, a start player picked), declared by the event type itself (``chance = True``
    in its class body; a class variable, not a field: nothing on the wire). A command
    whose outcome holds such an event cannot be taken back (``games/undo.py``).
    """

    chance: ClassVar[bool] = False


class ViewBody(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat (or a spectator) may know of a game."""
