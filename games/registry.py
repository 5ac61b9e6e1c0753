"""Which games this installation hosts, by name.

The shipped games are listed in ``BUILTIN``; a game whose package is absent is simply
not offered. ``ORRERY_EXTRA_GAMES`` (comma-separated ``module:attribute``) adds more,
which is how the platform tests plug in a tiny game of their own.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from typing import Any

from games.protocol import Game

BUILTIN: dict[str, str] = {
    "fractured_sky": "games.fractured_sky:GAME",
    "spacecraft": "games.spacecraft:GAME",
    "federation": "games.federation:GAME",
}


def _load(spec: str) -> Game[Any] | None:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return None
        raise
    game: Game[Any] = getattr(module, attribute)
    return game


@cache
def _extra_games() -> dict[str, Game[Any]]:
    extra = os.environ.get("ORRERY_EXTRA_GAMES", "")
    games = (_load(spec.strip()) for spec in extra.split(",") if spec.strip())
    return {game.name: game for game in games if game is not None}


@cache
def get_game(name: str) -> Game[Any] | None:
    """The game called ``name``; only that game's package is imported."""
    if name in BUILTIN:
        return _load(BUILTIN[name])
    return _extra_games().get(name)


def all_games() -> dict[str, Game[Any]]:
    names = [*BUILTIN, *_extra_games()]
    return {name: game for name in names if (game := get_game(name)) is not None}
