"""Setup by player count: junkyard, workshop tokens, blueprint, goals, design cards."""

from __future__ import annotations

from random import Random

import pytest

from games.playthrough import fold
from games.spacecraft import GAME, SpacecraftOptions
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat


def _setup(players: int, variant: str, seed: int = 9) -> SpacecraftState:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    state = fold(GAME, options, players, GAME.setup(options, players, Random(seed)))
    assert state == fold(GAME, options, players, GAME.setup(options, players, Random(seed)))
    return state


def test_two_player_junkyard() -> None:
    state = _setup(2, "basic")
    assert state.size == 4 and state.returned == [1] * cat.N_JUNK
    heights = [len(p) for p in state.piles]
    centre = [5, 6, 9, 10]
    assert [heights[i] for i in centre] == [5, 5, 5, 5]
    assert sorted(h for i, h in enumerate(heights) if i not in centre) == [4] * 12
    assert sum(heights) == 68


@pytest.mark.parametrize("players", [3, 4])
def test_three_four_player_junkyard(players: int) -> None:
    state = _setup(players, "basic")
    assert state.size == 5 and [len(p) for p in state.piles] == [3] * 25
    tiles = sorted(t for p in state.piles for t in p)
    assert [tiles.count(t) for t in range(cat.N_JUNK)] == list(cat.JUNK_COUNT)


@pytest.mark.parametrize("seed", range(8))
def test_workshop_tokens_blueprint_goals(seed: int) -> None:
    state = _setup(4, "basic", seed)
    assert sorted(state.tokens) == list(range(cat.N_JUNK))
    assert set(state.tokens[:2]) <= set(cat.LIGHT_TOKENS)
    assert state.blueprint in cat.BLUEPRINT_BY_ID
    dealt = [g for options in state.goal_options for g in options]
    assert len(dealt) == 8 and len(set(dealt)) == 8
    assert state.phase == "goals" and state.pawns == [-1] * 4
    assert all(r == [cat.GREY_BODY] for r in ([p.kind for p in rk] for rk in state.rockets))


@pytest.mark.parametrize(("players", "deck"), [(2, 10), (3, 13), (4, 16)])
def test_design_decks_by_player_count(players: int, deck: int) -> None:
    state = _setup(players, "basic")
    assert len(state.lower) == len(state.upper) == 4 and len(state.deck) == deck
    assert len(state.removed_designs) == 3 * cat.DECK_REMOVALS[players]
    levels = [cat.DESIGN_BY_ID[c].deck for c in state.lower + state.upper + state.deck]
    assert levels == sorted(levels)  # I on top, III at the bottom


@pytest.mark.parametrize(
    ("players", "sides"), [(2, ["B"] * 6), (3, ["A"] * 4 + ["B"] * 4), (4, ["A"] * 8)]
)
def test_advanced_layout_by_player_count(players: int, sides: list[str]) -> None:
    state = _setup(players, "advanced")
    assert state.adv_sides == sides
    assert len(state.adv_cards) + len(state.adv_removed) == 9
    assert state.markers_left == [cat.MARKERS_PER_PLAYER] * players
    assert state.lower == [] and state.deck == []
