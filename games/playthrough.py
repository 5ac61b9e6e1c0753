"""Random legal play of any game without I/O: shared by property tests and benchmarks.

A playthrough folds ``setup`` and then, while the game is not finished, picks a seat
that must act and one of its ``legal_commands`` at random, decides it and folds the
events (``owned=True``: with the game's ``play``, as a searching bot's simulation does,
the same events and states). ``on_step`` sees every intermediate state, so tests check
invariants there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from random import Random
from typing import Any

import msgspec

from games.definition import decide_then_fold
from games.protocol import Game
from games.rng import derive_rng
from orrery_contracts.base import CommandBody, EventBody


class Playthrough(msgspec.Struct, kw_only=True):
    state: Any
    events: list[EventBody]
    commands: list[tuple[int, CommandBody]]


def clone_state(game: Game[Any], state: Any) -> Any:
    """A deep, independent copy (for differential and fold tests)."""
    return copy.deepcopy(state)


def fold(game: Game[Any], options: Any, seats: int, events: list[EventBody]) -> Any:
    state = game.initial_state(options, seats)
    for event in events:
        state = game.evolve(state, event)
    return state


def play_random(
    game: Game[Any],
    options: Any,
    seats: int,
    seed: int,
    *,
    max_commands: int = 20_000,
    on_step: Callable[[Any, int, CommandBody, list[EventBody]], None] | None = None,
    owned: bool = False,
) -> Playthrough:
    """Play one game to its end with uniformly random legal commands (``owned``: each
    command with the game's ``play``, else ``decide`` and then ``evolve``)."""
    play = player(game) if owned else None
    chooser = Random(seed)
    seed_bytes = seed.to_bytes(16, "big", signed=True)
    events: list[EventBody] = list(game.setup(options, seats, derive_rng(seed_bytes, 0)))
    state = fold(game, options, seats, events)
    commands: list[tuple[int, CommandBody]] = []
    while not game.status(state).finished:
        if len(commands) >= max_commands:
            raise AssertionError(f"{game.name}: no end after {max_commands} commands")
        to_move = game.status(state).to_move
        if not to_move:
            raise AssertionError(f"{game.name}: unfinished but nobody to move")
        seat = chooser.choice(to_move)
        legal = game.legal_commands(state, seat)
        if not legal:
            raise AssertionError(f"{game.name}: seat {seat} must move but has no legal command")
        command = chooser.choice(legal)
        rng = derive_rng(seed_bytes, len(events) + 1)
        if play is not None:
            new = play(state, command, seat, rng)
        else:
            new = game.decide(state, command, seat, rng)
            for event in new:
                state = game.evolve(state, event)
        events.extend(new)
        commands.append((seat, command))
        if on_step is not None:
            on_step(state, seat, command, new)
    return Playthrough(state=state, events=events, commands=commands)


def player(game: Game[Any]) -> Callable[[Any, CommandBody, int, Random], list[EventBody]]:
    """The game's ``play`` (decide + evolve into a state the caller owns), or decide
    then evolve for a game that has none."""
    play: Callable[[Any, CommandBody, int, Random], list[EventBody]] | None = getattr(
        game, "play", None
    )
    return play if play is not None else decide_then_fold(game.decide, game.evolve)
