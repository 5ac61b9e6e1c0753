"""The ``greedy`` level: one move of look-ahead, judged by the game's own evaluation.

Each candidate command is played on a few determinizations of the seat's view (states
consistent with what it sees, the rest drawn at random: ``determinize`` of the game)
through the game's own rules; the seat's view of each result is evaluated (``evaluate``
of the game: points now plus its declared heuristics) and the candidates compared by
their mean. A command a determinization refuses counts only where it is accepted. Ties
go to the rng. When the legal list is long, a random sample of it is judged, so a move
stays cheap enough to serve as the search's playout policy too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from bots.simulate import advance, copy
from games.protocol import Game
from games.rejection import Rejected
from orrery_contracts.base import CommandBody

SAMPLES = 2  # determinizations each candidate is played on
MAX_CANDIDATES = 24  # a longer legal list is sampled down to this many


def candidates(count: int, rng: Random, limit: int = MAX_CANDIDATES) -> list[int]:
    """The indices of the moves to judge: all of them, or a random sample of ``limit``."""
    if count <= limit:
        return list(range(count))
    return sorted(rng.sample(range(count), limit))


def judge(
    game: Game[Any],
    states: Sequence[Any],
    seat: int,
    moves: Sequence[CommandBody],
    indices: Sequence[int],
    rng: Random,
) -> list[float | None]:
    """Per index in ``indices``: the mean evaluation after playing that move on each
    state, None where every state refused it."""
    evaluate: Callable[[Any, int], float] = getattr(game, "evaluate")  # noqa: B009
    scores: list[float | None] = []
    for i in indices:
        total = 0.0
        played = 0
        for state in states:
            try:
                after = advance(game, copy(game, state), moves[i], seat, rng)
            except Rejected:
                continue
            total += evaluate(game.view(after, seat), seat)
            played += 1
        scores.append(total / played if played else None)
    return scores


def best(indices: Sequence[int], scores: Sequence[float | None], rng: Random) -> int:
    """The index with the highest score, ties (and an all-refused list) broken by rng."""
    known = [(s, i) for s, i in zip(scores, indices, strict=True) if s is not None]
    if not known:
        return rng.choice(list(indices))
    top = max(s for s, _ in known)
    return rng.choice([i for s, i in known if s == top])


def choose(
    game: Game[Any], states: Sequence[Any], seat: int, moves: Sequence[CommandBody], rng: Random
) -> int:
    """The index in ``moves`` greedy plays from ``states`` (determinizations of its view)."""
    if len(moves) == 1:
        return 0
    indices = candidates(len(moves), rng)
    return best(indices, judge(game, states, seat, moves, indices, rng), rng)


def playout_move(
    game: Game[Any], state: Any, seat: int, rng: Random, limit: int
) -> CommandBody | None:
    """Greedy's move for ``seat`` in a full state (a playout step: the state is its own
    single determinization), judging at most ``limit`` legal commands."""
    moves = game.legal_commands(state, seat)
    if not moves:
        return None
    if len(moves) == 1:
        return moves[0]
    indices = candidates(len(moves), rng, limit)
    return moves[best(indices, judge(game, [state], seat, moves, indices, rng), rng)]
