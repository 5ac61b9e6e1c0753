"""The ``ismcts`` level: single-observer information-set Monte Carlo tree search.

After Cowling, Powley and Whitehouse (2012), "Information Set Monte Carlo Tree Search".
One tree for the bot's information set; each iteration:

1. samples one determinization: a full state consistent with the bot's view (the game's
   ``determinize``; what the seat does not see is drawn from what it has not seen);
2. selects down the tree among the commands available in that determinization (the
   game's ``legal_commands`` for whichever seat is to move, the bot's own at the root
   from its view's ``legal``), by UCB1 with availability counts: a child's exploration
   term counts the iterations in which it could have been chosen, not its parent's
   visits;
3. expands one untried command;
4. plays out at random, or greedily (``playout="greedy"``), for at most
   ``playout_depth`` commands or until the deadline;
5. backs up one reward per seat in 0..1 (``bots.simulate.rewards``: ranks of the final
   standing, or of each seat's evaluation when the playout was cut), each node adding
   the reward of the seat whose command led to it.

The answer is the root command visited most. Commands are keyed by their wire
encoding. A node with a long list of commands tries a fixed random subset of them
(``width``; the root the ones greedy rates best), so a few hundred iterations still
compare moves rather than spread over hundreds of placements. The budget is a time per
move and an iteration cap; with an infinite time the search depends on the rng alone.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Sequence
from random import Random
from typing import Any

from bots import greedy
from bots.seen import key
from bots.simulate import advance, rewards
from games.protocol import Game
from games.rejection import Rejected
from orrery_contracts.base import CommandBody

EXPLORATION = 0.7  # UCB1's constant, for rewards in 0..1
WIDTH = 12  # commands a node considers at most
PLAYOUT_DEPTH = 40  # commands a playout plays before the position is evaluated
GREEDY_PLAYOUT_WIDTH = 6  # commands a greedy playout step judges


class Node:
    """A tree node: the command's seat, its statistics, and its children by key."""

    __slots__ = ("available", "children", "salt", "seat", "total", "visits")

    def __init__(self, seat: int, salt: int) -> None:
        self.seat = seat  # who played the command leading here (-1 at the root)
        self.salt = salt  # orders a long command list the same way at every visit
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.children: dict[bytes, Node] = {}


def _subset(node: Node, commands: Sequence[CommandBody]) -> list[tuple[bytes, CommandBody]]:
    """The commands this node considers: all, or the ``WIDTH`` first in its own order."""
    keyed = [(key(c), c) for c in commands]
    if len(keyed) <= WIDTH:
        return keyed
    keyed.sort(key=lambda kc: zlib.crc32(kc[0], node.salt))
    return keyed[:WIDTH]


def _ucb(child: Node) -> float:
    return child.total / child.visits + EXPLORATION * math.sqrt(
        math.log(max(child.available, 1)) / child.visits
    )


class Search:
    """One move's search from a seat's view (its determinizer, root moves and budget)."""

    def __init__(
        self,
        game: Game[Any],
        seat: int,
        seats: int,
        sample: Callable[[], Any],
        root_moves: Sequence[CommandBody],
        rng: Random,
        *,
        playout: str = "random",
    ) -> None:
        self.game = game
        self.seat = seat
        self.seats = seats
        self.sample = sample
        self.rng = rng
        self.playout = playout
        self.evaluate: Callable[[Any, int], float] = getattr(game, "evaluate")  # noqa: B009
        self.root = Node(-1, rng.getrandbits(32))
        self.root_moves = [(key(c), c) for c in root_moves]
        self.deadline = math.inf

    def run(self, budget_s: float, max_iterations: int) -> bytes:
        """Search until the budget or the iteration cap; the key of the move to play."""
        self.deadline = time.perf_counter() + budget_s
        for _ in range(max_iterations):
            self.iterate()
            if time.perf_counter() >= self.deadline:
                break
        visited = [(child.visits, k) for k, child in self.root.children.items()]
        if not visited:
            return self.root_moves[self.rng.randrange(len(self.root_moves))][0]
        top = max(v for v, _ in visited)
        order = [k for k, _ in self.root_moves]
        return min((k for v, k in visited if v == top), key=order.index)

    def iterate(self) -> None:
        state = self.sample()
        node = self.root
        path = [node]
        expanded = False
        while not expanded:
            status = self.game.status(state)
            if status.finished or not status.to_move:
                break
            mover = self.seat if node is self.root else status.to_move[0]
            options = (
                self.root_moves
                if node is self.root
                else _subset(node, self.game.legal_commands(state, mover))
            )
            if not options:
                break
            untried = []
            for k, _ in options:
                child = node.children.get(k)
                if child is None:
                    untried.append(k)
                else:
                    child.available += 1
            commands = dict(options)
            if untried:
                chosen = untried[self.rng.randrange(len(untried))]
                expanded = True
            else:
                chosen = max((k for k, _ in options), key=lambda k: _ucb(node.children[k]))
            try:
                state = advance(self.game, state, commands[chosen], mover, self.rng)
            except Rejected:
                break  # not available in this determinization after all
            child = node.children.get(chosen)
            if child is None:
                child = node.children[chosen] = Node(mover, self.rng.getrandbits(32))
                child.available = 1
            node = child
            path.append(node)
        state = self.play_out(state)
        reward = rewards(self.game, state, self.seats, self.evaluate)
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                visited.total += reward[visited.seat]

    def play_out(self, state: Any) -> Any:
        game = self.game
        for _ in range(PLAYOUT_DEPTH):
            if time.perf_counter() >= self.deadline:
                break
            status = game.status(state)
            if status.finished or not status.to_move:
                break
            mover = status.to_move[self.rng.randrange(len(status.to_move))]
            if self.playout == "greedy":
                command = greedy.playout_move(game, state, mover, self.rng, GREEDY_PLAYOUT_WIDTH)
            else:
                moves = game.legal_commands(state, mover)
                command = moves[self.rng.randrange(len(moves))] if moves else None
            if command is None:
                break
            try:
                state = advance(game, state, command, mover, self.rng)
            except Rejected:
                break
        return state


def choose(
    game: Game[Any],
    seat: int,
    seats: int,
    sample: Callable[[], Any],
    moves: Sequence[CommandBody],
    rng: Random,
    *,
    budget_s: float,
    max_iterations: int,
    playout: str = "random",
) -> int:
    """The index in ``moves`` the search plays (``sample`` draws one determinization)."""
    if len(moves) == 1:
        return 0
    root = list(range(len(moves)))
    if len(moves) > WIDTH:  # the root compares the moves greedy rates best
        states = [sample() for _ in range(greedy.SAMPLES)]
        indices = greedy.candidates(len(moves), rng, 3 * WIDTH)
        scores = greedy.judge(game, states, seat, moves, indices, rng)
        rated = sorted(
            zip(indices, scores, strict=True),
            key=lambda pair: -math.inf if pair[1] is None else -pair[1],
        )
        root = sorted(i for i, _ in rated[:WIDTH])
    search = Search(game, seat, seats, sample, [moves[i] for i in root], rng, playout=playout)
    chosen = search.run(budget_s, max_iterations)
    return next(i for i in root if key(moves[i]) == chosen)
