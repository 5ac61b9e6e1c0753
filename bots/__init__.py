"""Server-side bots: the move a bot of a given level plays from its seat's view.

A bot is a client of the service: it reads only the view its seat is given (with its
``legal`` commands) and answers one command. Every level currently picks uniformly among
the legal moves that are not table commands, like ``clients/orrery_client/bot.py``.
"""

from __future__ import annotations

import random
from typing import Any

from orrery_contracts.table import NOT_MOVES

LEVELS: tuple[str, ...] = ("random", "greedy", "ismcts")
DEFAULT_LEVEL = "greedy"


def choose_move(
    game: str,
    view: dict[str, Any],
    seat: int,
    level: str,
    rng: random.Random,
    *,
    budget_s: float = 0.5,
    max_iterations: int = 20_000,
) -> dict[str, Any] | None:
    """The command (a wire dict, like an entry of ``view["legal"]``) the bot plays, or None."""
    del game, seat, budget_s, max_iterations
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    moves = [c for c in view["legal"] if c.get("type") not in NOT_MOVES]
    return rng.choice(moves) if moves else None
