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
def all_games() -> dict[str, Game[Any]]:
    specs = list(BUILTIN.values())
    extra = os.environ.get("ORRERY_EXTRA_GAMES", "")
    specs += [s.strip() for s in extra.split(",") if s.strip()]
    games: dict[str, Game[Any]] = {}
    for spec in specs:
        game = _load(spec)
        if game is not None:
            games[game.name] = game
    return games


def get_game(name: str) -> Game[Any] | None:
    return all_games().get(name)
