"""A command's RNG: ``derive_rng`` draws exactly what ``Random(SHA-256(seed || seq))``
draws, whatever is drawn first, though it seeds itself only at its first draw."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rng import derive_rng

pytestmark = pytest.mark.unit

DRAWS: list[Callable[[Random], Any]] = [
    lambda r: r.random(),
    lambda r: r.randint(0, 99),
    lambda r: r.randrange(1_000_000),
    lambda r: r.choice("abcdefgh"),
    lambda r: r.sample(range(60), 7),
    lambda r: r.choices(range(9), k=4),
    lambda r: r.getrandbits(70),
    lambda r: r.gauss(0.0, 1.0),
    lambda r: r.uniform(1.0, 2.0),
    lambda r: r.randbytes(6),
    lambda r: r.betavariate(2.0, 3.0),
    lambda r: _shuffled(r),
]


def _shuffled(rng: Random) -> list[int]:
    items = list(range(40))
    rng.shuffle(items)
    return items


def _reference(seed: bytes, seq: int) -> Random:
    digest = hashlib.sha256(seed + seq.to_bytes(8, "big")).digest()
    return Random(int.from_bytes(digest, "big"))


@given(
    seed=st.binary(min_size=32, max_size=32),
    seq=st.integers(min_value=0, max_value=2**40),
    draws=st.lists(st.integers(min_value=0, max_value=len(DRAWS) - 1), max_size=12),
)
def test_derive_rng_draws_what_a_seeded_random_draws(
    seed: bytes, seq: int, draws: list[int]
) -> None:
    derived, reference = derive_rng(seed, seq), _reference(seed, seq)
    assert [DRAWS[d](derived) for d in draws] == [DRAWS[d](reference) for d in draws]
    assert derived.getstate() == reference.getstate()


def test_its_state_and_copies_are_those_of_the_seeded_random() -> None:
    seed = bytes(range(32))
    fresh = derive_rng(seed, 7)
    assert fresh.getstate() == _reference(seed, 7).getstate()  # read before any draw
    copied = copy.deepcopy(derive_rng(seed, 8))
    assert copied.random() == _reference(seed, 8).random()
    restored = derive_rng(seed, 9)
    restored.setstate(Random(5).getstate())
    assert restored.random() == Random(5).random()
    bound = derive_rng(seed, 10).random  # held before the first draw: seeds once
    reference = _reference(seed, 10)
    assert [bound() for _ in range(3)] == [reference.random() for _ in range(3)]
