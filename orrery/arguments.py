"""Checks of command-line arguments shared by ``demo`` and ``play``: game names (with a
"did you mean"), ``--options`` (``key=value`` pairs or JSON objects) and player counts.
Each problem is a :class:`~orrery.errors.UserError` naming the fix."""

from __future__ import annotations

import difflib
import json
from typing import Any

from orrery.errors import UserError


def check_game(game: str, available: list[str]) -> str:
    """``game`` if it is hosted here, else an error naming it and the fix."""
    if game in available:
        return game
    folded = [g for g in available if g.lower() == game.lower()]
    close = folded or difflib.get_close_matches(game.lower(), available, n=1)
    if close:
        raise UserError(f"unknown game {game!r}; did you mean --game {close[0]}?")
    raise UserError(f"unknown game {game!r}; choose --game {' | '.join(available)}")


def parse_options(items: list[str]) -> dict[str, Any]:
    """``key=value`` items (values read as JSON when they parse: ``3``, ``true``, else as
    text) or JSON objects, merged left to right."""
    options: dict[str, Any] = {}
    for item in items:
        text = item.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                raise UserError(f"--options {text!r} is not a JSON object ({error.msg})") from None
            if not isinstance(value, dict):
                raise UserError(f"--options {text!r} is not a JSON object")
            options.update(value)
            continue
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise UserError(
                f"--options takes key=value (e.g. difficulty=hard) or a JSON object, not {text!r}"
            )
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def check_players(game: str, players: int | None, minimum: int, maximum: int) -> None:
    if players is not None and not minimum <= players <= maximum:
        raise UserError(
            f"{game} seats {minimum}-{maximum} players, not {players}; give --players in that range"
        )
