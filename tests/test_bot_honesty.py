"""Honest by construction: a bot's move depends only on what its seat may see.

For positions of random games of every game, a second state differs from the first only
in facts hidden from the seat (the order of decks, the tiles under the junkyard's tops,
other players' hidden chips, face-down tokens, the cards no one has seen; and, more
broadly, a whole other state the game's ``determinize`` draws from the seat's view).
The seat's view is the same in both, and so is the move each level chooses from it with
the same rng seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from random import Random
from typing import Any

import msgspec
import pytest

from bots import LEVELS, choose_move
from bots.arena import wire_view
from games.clone import clone
from games.federation.state import FederationState
from games.fractured_sky.state import FracturedSkyState, chip_class, unused_chips
from games.playthrough import play_random
from games.registry import get_game
from games.spacecraft.state import SpacecraftState

TIER = "unit"  # its slow and bench runs are of those tiers (tests/conftest.py)


def _fractured_sky(state: FracturedSkyState, seat: int, rng: Random) -> None:
    rng.shuffle(state.secret_deck)
    for pool in state.ai_pool:
        rng.shuffle(pool)
    for deck in state.ai_deck:
        rng.shuffle(deck)
    if state.revealed:
        return
    for other in range(state.seats):  # another player's chip, swapped for one of its class
        if other == seat:
            continue
        for region, chip in enumerate(state.airships[other]):
            if chip < 0:
                continue
            same = [
                v
                for v in unused_chips(state, other)
                if chip_class(v) == chip_class(chip) and v != chip
            ]
            if same:
                state.airships[other][region] = rng.choice(same)
                break


def _spacecraft(state: SpacecraftState, seat: int, rng: Random) -> None:
    rng.shuffle(state.deck)
    under = [t for pile in state.piles for t in pile[:-1]]
    rng.shuffle(under)
    for cell, pile in enumerate(state.piles):
        if pile:
            state.piles[cell] = (*(under.pop() for _ in pile[:-1]), pile[-1])


def _federation(state: FederationState, seat: int, rng: Random) -> None:
    state.law_stacks = [tuple(rng.sample(stack, len(stack))) for stack in state.law_stacks]
    rng.shuffle(state.deep_space)
    for level, row in enumerate(state.blue_tokens):
        if not state.blue_shown[level + 1]:
            rng.shuffle(row)
    hidden = [i for i, t in enumerate(state.orange_tokens) if t >= 0 and not state.orange_shown[i]]
    tokens = [state.orange_tokens[i] for i in hidden]
    rng.shuffle(tokens)
    for i, token in zip(hidden, tokens, strict=True):
        state.orange_tokens[i] = token


HIDE: dict[str, Callable[[Any, int, Random], None]] = {
    "fractured_sky": _fractured_sky,
    "spacecraft": _spacecraft,
    "federation": _federation,
}


def _positions(name: str, seats: int, seed: int, count: int) -> list[Any]:
    game = get_game(name)
    assert game is not None
    states: list[bytes] = []
    play_random(
        game,
        game.options_type(),
        seats,
        seed,
        on_step=lambda state, *_: states.append(msgspec.msgpack.encode(state)),
    )
    picked = states[:: max(1, len(states) // count)][:count]
    return [msgspec.msgpack.decode(s, type=game.state_type) for s in picked]


def _check(name: str, seats: int, seed: int, count: int) -> int:
    game = get_game(name)
    determinize = getattr(game, "determinize", None)
    assert game is not None and determinize is not None
    compared = 0
    rng = Random(seed)
    for state in _positions(name, seats, seed, count):
        for seat in game.status(state).to_move:
            crafted = clone(state)
            HIDE[name](crafted, seat, rng)
            view = wire_view(game, state, seat)
            legal = game.legal_commands(state, seat)
            drawn = determinize(game.view(state, seat), seat, rng, legal)
            for other in (crafted, drawn):
                seen = wire_view(game, other, seat)
                if other is drawn:  # who else is to move is the table's, not the game view's
                    seen["to_move"] = view["to_move"]
                assert seen == view
                for level in LEVELS:
                    moves = [
                        choose_move(
                            name, v, seat, level, Random(seed), budget_s=math.inf, max_iterations=8
                        )
                        for v in (view, seen)
                    ]
                    assert moves[0] == moves[1], (level, moves)
                    compared += 1
    return compared


@pytest.mark.parametrize(
    ("name", "seats"),
    [("fractured_sky", 3), ("fractured_sky", 1), ("spacecraft", 3), ("federation", 2)],
)
def test_a_bot_chooses_the_same_whatever_it_cannot_see(name: str, seats: int) -> None:
    assert _check(name, seats, seed=7, count=3) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fractured_sky", "spacecraft", "federation"])
def test_a_bot_chooses_the_same_whatever_it_cannot_see_in_many_positions(name: str) -> None:
    game = get_game(name)
    assert game is not None
    for seats in range(game.min_seats, game.max_seats + 1):
        assert _check(name, seats, seed=seats, count=12) > 0
