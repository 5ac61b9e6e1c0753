"""Server-side bots: the move a bot of a given level plays from its seat's view.

A bot is a client of the service: :func:`choose_move` reads only the view its seat is
given (the game's view and its ``legal`` commands, ``bots.seen``) and answers one of
those commands. The levels:

* ``random``: uniform over the legal moves (not the table's own commands), as
  ``clients/orrery_client/bot.py`` plays;
* ``greedy`` (``bots.greedy``): one move of look-ahead on states drawn consistent with
  the view, judged by the game's evaluation;
* ``ismcts`` (``bots.search``): information-set Monte Carlo tree search within a time
  budget per move and an iteration cap.

The games supply what differs between them, on their ``GameDefinition``:
``determinize(view, seat, rng, legal)`` (a full state consistent with the view) and
``evaluate(view, seat)`` (points now plus declared heuristics; each game's RULES.md,
"Bots"). The search is CPU work with no I/O: call it from a worker thread or process.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bots import greedy, search
from bots.seen import Seen, moves_of, read

LEVELS: tuple[str, ...] = ("random", "greedy", "ismcts")
DEFAULT_LEVEL = "greedy"


def _sampler(seen: Seen, rng: random.Random) -> Callable[[], Any]:
    determinize: Callable[..., Any] = getattr(seen.game, "determinize")  # noqa: B009

    def sample() -> Any:
        return determinize(seen.view, seen.seat, rng, seen.moves)

    return sample


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
    """The command (as the wire dict, like an entry of view["legal"]) the bot plays from
    its seat's view, or None when it has nothing to do. `view` is the JSON view dict the
    gateway and SDK hand a player (with its "legal" list); nothing else is read.

    ``random`` picks among the legal moves as they are; ``greedy`` and ``ismcts`` answer
    None unless the seat is to move (a free move, such as a trade, is not asked of them),
    and play at random in a game that supplies no ``determinize``/``evaluate``."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    moves = moves_of(view)
    if not moves:
        return None
    if level == "random":
        return rng.choice(moves)
    seen = read(game, view, seat)
    if not seen.to_move:
        return None
    if (
        getattr(seen.game, "determinize", None) is None
        or getattr(seen.game, "evaluate", None) is None
    ):
        return rng.choice(moves)
    sample = _sampler(seen, rng)
    if level == "greedy":
        states = [sample() for _ in range(greedy.SAMPLES)] if len(moves) > 1 else []
        return moves[greedy.choose(seen.game, states, seat, seen.moves, rng)]
    seats = len(view["seats"])
    index = search.choose(
        seen.game,
        seat,
        seats,
        sample,
        seen.moves,
        rng,
        budget_s=budget_s,
        max_iterations=max_iterations,
    )
    return moves[index]
