"""The one way a rule says "no": a stable machine code plus a human message.

Codes are part of the wire contract (clients switch on them); never reuse a code for
a different meaning. A message or detail must never name information hidden from the
seat that sent the command.
"""

from __future__ import annotations

from typing import Any


class Rejected(Exception):
    """A command the rules refuse. ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.detail = detail


# Codes more than one game raises; a game's own codes are written where it raises them.
# Every code and the one situation it names: the table in games/README.md.
NOT_YOUR_TURN = "not_your_turn"
WRONG_PHASE = "wrong_phase"
ILLEGAL_COMMAND = "illegal_command"
CANNOT_AFFORD = "cannot_afford"
GAME_OVER = "game_over"
NOT_AN_OPTION = "not_an_option"
ALREADY_CHOSEN = "already_chosen"
SUPPLY_EXHAUSTED = "supply_exhausted"
BAD_RESOURCE = "bad_resource"
UNKNOWN_SPACE = "unknown_space"
BAD_OPTIONS = "bad_options"
