"""The test game itself honours the decider contract (so platform tests can trust it)."""

import pytest

from games.playthrough import fold, play_random
from tests.support.tinygame import GAME, TinyOptions

pytestmark = pytest.mark.unit


def test_random_play_ends_and_folds() -> None:
    for seed in range(20):
        result = play_random(GAME, TinyOptions(), 3, seed)
        assert GAME.status(result.state).finished
        assert fold(GAME, TinyOptions(), 3, result.events) == result.state
