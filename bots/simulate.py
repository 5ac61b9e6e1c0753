"""The forward model a bot plans with: the game's own rules on a determinized state.

``advance`` plays one command into a state the caller owns (the game's ``play`` when it
has one, else ``decide`` and the fold of its events); ``rewards`` turns a position into
one number in 0..1 per seat from the game's standing (its ranks, so 3-5 players and the
automated opponents of a small Fractured Sky table count alike), or, for a position cut
before the end, from each seat's ``evaluate`` of its own view ranked against the others.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from games.clone import clone
from games.protocol import Game, Standing
from orrery_contracts.base import CommandBody


def copy(game: Game[Any], state: Any) -> Any:
    cloner: Callable[[Any], Any] | None = getattr(game, "clone", None)
    return cloner(state) if cloner is not None else clone(state)


def advance(game: Game[Any], state: Any, command: CommandBody, seat: int, rng: Random) -> Any:
    """``state`` after ``seat`` plays ``command`` (the state may be changed in place and
    returned); raises the game's ``Rejected`` when the rules refuse it."""
    play: Callable[..., Any] | None = getattr(game, "play", None)
    if play is not None:
        play(state, command, seat, rng)
        return state
    for event in game.decide(state, command, seat, rng):
        state = game.evolve(state, event)
    return state


def _ranked(values: list[float]) -> list[float]:
    """Per participant 1 for first place down to 0 for last; ties share the better."""
    n = len(values)
    if n < 2:
        return [1.0] * n
    return [(n - 1 - sum(1 for w in values if w > v)) / (n - 1) for v in values]


def rewards(
    game: Game[Any], state: Any, seats: int, evaluate: Callable[[Any, int], float]
) -> list[float]:
    """One reward per seat in 0..1 from the final standing, or for an unfinished game from
    each seat's evaluation of its own view (automated opponents by their points)."""
    standing: Standing = game.score(state)
    if game.status(state).finished:
        values = [-float(r) for r in standing.ranks] + [-float(o.rank) for o in standing.others]
    else:
        values = [evaluate(game.view(state, s), s) for s in range(seats)]
        values += [float(o.points) for o in standing.others]
    return _ranked(values)[:seats]
