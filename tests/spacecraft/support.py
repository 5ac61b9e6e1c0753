"""Helpers for SPACEcraft tests: a ready-to-play state and hand-made situations."""

from __future__ import annotations

from random import Random

from games.playthrough import fold
from games.spacecraft import GAME, SpacecraftOptions
from games.spacecraft.state import SpacecraftState
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import ChooseGoal, Placement

J = cat.JUNK_ID


def started(players: int = 3, variant: str = "basic", seed: int = 1) -> SpacecraftState:
    """A state right after setup and every seat choosing its first goal option."""
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    state = fold(GAME, options, players, GAME.setup(options, players, Random(seed)))
    for seat in range(players):
        apply(state, ChooseGoal(goal=state.goal_options[seat][0]), seat)
    return state


def apply(state: SpacecraftState, command: CommandBody, seat: int) -> list[EventBody]:
    events = GAME.decide(state, command, seat, Random(0))
    for event in events:
        GAME.evolve(state, event)
    return events


def slot_of(kind: str) -> int:
    return cat.SLOT_OF_KIND[kind]


def beside(**counts: int) -> list[int]:
    out = [0] * cat.N_JUNK
    for name, n in counts.items():
        out[J[name]] = n
    return out


def P(kind: str, x: int, y: int) -> Placement:
    return Placement(kind=kind, x=x, y=y)


def empty_junkyard(state: SpacecraftState, size: int = 5, tile: str = "screw") -> None:
    """Every cell a pile of 3 ``tile``s, no pawns."""
    state.size = size
    state.piles = [(J[tile],) * 3 for _ in range(size * size)]
    state.pawns = [-1] * state.players


def cell(state: SpacecraftState, x: int, y: int) -> int:
    return y * state.size + x
