"""The bots play whole games of every game at every level through the rules' own
functions, and never send a command the rules refuse; what a game's ``determinize``
builds from a seat's view shows that seat exactly that view, and accepts the seat's
legal commands.
"""

from __future__ import annotations

import math
from random import Random
from typing import Any

import msgspec
import pytest

from bots import LEVELS, choose_move
from bots.arena import play, wire_view
from games.playthrough import play_random
from games.registry import get_game

TIER = "unit"  # its slow and bench runs are of those tiers (tests/conftest.py)

GAMES = ("fractured_sky", "spacecraft", "federation")
ISMCTS_ITERATIONS = 2  # enough to run every part of the search, cheap enough for 100 games


def _levels(game: Any, level: str, index: int) -> list[str]:
    """Seat levels for the ``index``-th game: seat counts rotate over the game's range;
    an ismcts game seats one ismcts bot (its seat rotating) among random ones."""
    counts = range(max(game.min_seats, 1), game.max_seats + 1)
    seats = counts[index % len(counts)]
    if level != "ismcts":
        return [level] * seats
    return ["ismcts" if s == index % seats else "random" for s in range(seats)]


def _play_games(name: str, level: str, games: int) -> None:
    game = get_game(name)
    assert game is not None
    for index in range(games):
        levels = _levels(game, level, index)
        result = play(
            game, levels, seed=1000 + index, budget_s=math.inf, max_iterations=ISMCTS_ITERATIONS
        )
        assert result.commands > 0
        assert len(result.standing.points) == len(levels)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_a_game_at_each_level_ends_with_legal_moves_only(name: str, level: str) -> None:
    _play_games(name, level, 1)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_a_hundred_games_at_each_level_end_with_legal_moves_only(name: str, level: str) -> None:
    _play_games(name, level, 100)


def _check_determinize(name: str, seeds: range) -> int:
    game = get_game(name)
    assert game is not None
    determinize = getattr(game, "determinize", None)
    assert determinize is not None
    checked = 0
    for seats in range(game.min_seats, game.max_seats + 1):
        for seed in seeds:
            rng = Random(seed)
            states: list[Any] = []
            play_random(
                game,
                game.options_type(),
                seats,
                seed,
                on_step=lambda state, *_, kept=states: kept.append(msgspec.msgpack.encode(state)),
            )
            for encoded in states[:: max(1, len(states) // 12)]:
                state = msgspec.msgpack.decode(encoded, type=game.state_type)
                status = game.status(state)
                for seat in range(len(game.score(state).points)):
                    view = game.view(state, seat)
                    legal = game.legal_commands(state, seat) if seat in status.to_move else []
                    sampled = determinize(view, seat, rng, legal)
                    assert game.view(sampled, seat) == view
                    accepted = {msgspec.json.encode(c) for c in game.legal_commands(sampled, seat)}
                    assert {msgspec.json.encode(c) for c in legal} <= accepted
                    checked += 1
    return checked


@pytest.mark.parametrize("name", GAMES)
def test_a_determinized_state_shows_the_seat_its_own_view(name: str) -> None:
    assert _check_determinize(name, range(1)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_determinized_states_over_many_games(name: str) -> None:
    assert _check_determinize(name, range(1, 8)) > 0


def test_random_picks_like_the_sdk_bot() -> None:
    from orrery_client.bot import choose

    game = get_game("spacecraft")
    assert game is not None
    state = game.initial_state(game.options_type(), 2)
    for event in game.setup(game.options_type(), 2, Random(3)):
        state = game.evolve(state, event)
    view = wire_view(game, state, 0)
    view["legal"].append({"type": "table.leave"})
    for seed in range(20):
        assert choose_move("spacecraft", view, 0, "random", Random(seed)) == choose(
            view, Random(seed)
        )


def test_a_seat_not_to_move_gets_no_move_from_the_planning_levels() -> None:
    game = get_game("federation")
    assert game is not None
    state = game.initial_state(game.options_type(), 2)
    for event in game.setup(game.options_type(), 2, Random(5)):
        state = game.evolve(state, event)
    waiting = next(s for s in range(2) if s not in game.status(state).to_move)
    view = wire_view(game, state, waiting)
    view["legal"] = [{"type": "table.leave"}]
    assert choose_move("federation", view, waiting, "greedy", Random(1)) is None
    with pytest.raises(ValueError):
        choose_move("federation", view, waiting, "grandmaster", Random(1))
