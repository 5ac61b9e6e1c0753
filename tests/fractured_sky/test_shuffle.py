"""``setup.shuffle`` draws exactly what ``Random.shuffle`` draws: the same order of the
items and the generator left in the same state, for any seed and length, also for a
command's RNG seeded at its first draw and for a generator that draws integers
otherwise."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.fractured_sky.setup import shuffle
from games.rng import derive_rng

pytestmark = pytest.mark.unit


@given(seed=st.integers(min_value=0, max_value=2**256), length=st.integers(0, 80))
def test_shuffle_is_random_shuffle(seed: int, length: int) -> None:
    expected, items = list(range(length)), list(range(length))
    reference, mine = Random(seed), Random(seed)
    reference.shuffle(expected)
    shuffle(mine, items)
    assert items == expected
    assert mine.getstate() == reference.getstate()


@given(
    seed=st.binary(min_size=16, max_size=16),
    seq=st.integers(0, 10_000),
    length=st.integers(0, 40),
    drawn_first=st.booleans(),
)
def test_shuffle_of_a_command_rng(seed: bytes, seq: int, length: int, drawn_first: bool) -> None:
    expected, items = list(range(length)), list(range(length))
    reference, mine = derive_rng(seed, seq), derive_rng(seed, seq)
    if drawn_first:  # seeded before the shuffle, or by its first draw
        assert reference.random() == mine.random()
    reference.shuffle(expected)
    shuffle(mine, items)
    assert items == expected
    assert mine.random() == reference.random()


class _FloatsOnly(Random):
    """Draws integers from ``random()`` (``Random._randbelow_without_getrandbits``)."""

    def random(self) -> float:
        return super().random()


@given(seed=st.integers(min_value=0, max_value=2**64), length=st.integers(0, 40))
def test_shuffle_of_a_generator_without_getrandbits(seed: int, length: int) -> None:
    expected, items = list(range(length)), list(range(length))
    _FloatsOnly(seed).shuffle(expected)
    shuffle(_FloatsOnly(seed), items)
    assert items == expected
