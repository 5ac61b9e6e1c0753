"""Bots playing each other in process, through the games' own functions.

What the bench and the tests play: the table is the game's state alone (no service), a
seat's bot is handed exactly what a player gets, its seat's view and legal commands as
the wire dict (``wire_view``), and its answer goes through ``decide`` like a player's
command. Each command's time and CPU time are recorded per seat.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

import msgspec

from bots import choose_move
from bots.seen import command_type
from games.protocol import Game, Standing
from games.rng import derive_rng


def wire_view(game: Game[Any], state: Any, seat: int) -> dict[str, Any]:
    """The parts of the table view a bot reads, as the gateway's JSON would decode: the
    game's view for the seat, the seats, who is to move and the seat's legal commands."""
    status = game.status(state)
    seats = len(game.score(state).points)
    legal = game.legal_commands(state, seat) if not status.finished else []
    return {
        "game": game.name,
        "phase": "finished" if status.finished else "playing",
        "viewer": seat,
        "seats": [{"seat": s} for s in range(seats)],
        "to_move": list(status.to_move),
        "view": msgspec.to_builtins(game.view(state, seat)),
        "legal": [msgspec.to_builtins(c) for c in legal],
    }


@dataclass
class Played:
    """One finished game: its standing, and per seat each move's wall and CPU seconds."""

    standing: Standing
    commands: int
    wall: list[list[float]] = field(default_factory=list)
    cpu: list[list[float]] = field(default_factory=list)


def play(
    game: Game[Any],
    levels: Sequence[str],
    seed: int,
    *,
    options: Any = None,
    budget_s: float = 0.5,
    max_iterations: int = 20_000,
    max_commands: int = 5_000,
) -> Played:
    """One game with ``levels[s]`` at seat ``s``; every draw of the rules and of the bots
    follows from ``seed``. Raises when a bot answers a command the rules refuse."""
    seats = len(levels)
    options = options if options is not None else game.options_type()
    seed_bytes = seed.to_bytes(16, "big", signed=True)
    state = game.initial_state(options, seats)
    for event in game.setup(options, seats, derive_rng(seed_bytes, 0)):
        state = game.evolve(state, event)
    bots = [Random(f"{seed}/{s}") for s in range(seats)]
    chooser = Random(seed)
    result = Played(standing=game.score(state), commands=0)
    result.wall = [[] for _ in range(seats)]
    result.cpu = [[] for _ in range(seats)]
    while not (status := game.status(state)).finished:
        if result.commands >= max_commands:
            raise AssertionError(f"{game.name}: no end after {max_commands} commands")
        seat = chooser.choice(status.to_move)
        view = wire_view(game, state, seat)
        wall, cpu = time.perf_counter(), time.process_time()
        move = choose_move(
            game.name,
            view,
            seat,
            levels[seat],
            bots[seat],
            budget_s=budget_s,
            max_iterations=max_iterations,
        )
        result.wall[seat].append(time.perf_counter() - wall)
        result.cpu[seat].append(time.process_time() - cpu)
        if move is None:
            raise AssertionError(f"{game.name}: seat {seat} is to move but its bot passed")
        command = msgspec.convert(move, command_type(game))
        rng = derive_rng(seed_bytes, result.commands + 1)
        for event in game.decide(state, command, seat, rng):
            state = game.evolve(state, event)
        result.commands += 1
    result.standing = game.score(state)
    return result
